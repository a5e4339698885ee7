// analyze_capture's lanes at work: the batches the reader hands them and the pool of threads
// that runs them (core/capture/analysis.cpp has the lanes and the reader).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "capture/tcp_segment.h"

namespace anthro::capture_lanes {

// Segments and key log texts on their way from the reader to a lane. The segments' payloads
// point into the reader's buffer, which `block` keeps alive: no copy.
struct Batch {
  // Payload bytes a batch carries at most: a lane's queue then lags the reader by little, and an
  // observer merging the lanes in packet order holds little.
  static constexpr std::size_t kBytes = 256 << 10;
  std::vector<std::string> secrets;  // added before the segments
  std::vector<TcpSegment> segments;
  std::size_t bytes = 0;  // of the segments' payloads
  std::shared_ptr<const void> block;  // holds every segment's payload (the Router's hold on a reader buffer)
  std::uint64_t below = 0;  // every segment of the packets below it routed to the lane is here or earlier
};

// The lanes and the threads that run them. There are more lanes than threads, and a lane is run
// by whichever thread is free, by one thread at a time and its batches in order: a lane with
// more work, or a thread the scheduler gives less of a core, holds no other back (one thread a
// lane kept both lanes at the pace of the one sharing its core with the reader). A Lane has
// add_secrets(text, origin), feed(segment), fed_below(packets) and finish().
template <class Lane>
class LanePool {
 public:
  LanePool(unsigned threads, std::vector<std::unique_ptr<Lane>> lanes, std::string origin)
      : origin_(std::move(origin)), slots_(lanes.size()) {
    for (std::size_t i = 0; i < lanes.size(); ++i) slots_[i].lane = std::move(lanes[i]);
    try {
      for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
    } catch (const std::system_error& e) {  // the process's thread limit: fewer threads do
      if (threads_.empty())
        throw std::runtime_error(std::string("cannot start a decoding thread: ") + e.what() +
                                 " (fewer with --threads)");
    }
  }
  ~LanePool() { close(); }
  LanePool(const LanePool&) = delete;
  LanePool& operator=(const LanePool&) = delete;

  std::size_t size() const { return slots_.size(); }
  Lane& lane(std::size_t i) { return *slots_[i].lane; }
  // Queues a batch for lane `i`; returns a segment list a thread is done with, emptied but with
  // its room, so the reader does not allocate a new one a batch.
  std::vector<TcpSegment> push(std::size_t i, Batch batch) {
    std::lock_guard lock(m_);
    slots_[i].queue.push_back(std::move(batch));
    schedule(slots_[i]);
    std::vector<TcpSegment> spent;
    if (!spent_.empty()) {
      spent = std::move(spent_.back());
      spent_.pop_back();
    }
    return spent;
  }
  // Blocks until `ready()`, asked again each time a thread lets a batch go.
  template <class Ready>
  void wait_until(Ready ready) {
    std::unique_lock lock(m_);
    let_go_.wait(lock, ready);
  }
  // Every lane finishes (on the pool's threads) once its queue is fed; then the threads end.
  // What a lane threw, if any, after it.
  std::exception_ptr close() {
    {
      std::lock_guard lock(m_);
      if (closed_) return failure();
      for (auto& slot : slots_) {
        slot.finish = true;
        schedule(slot);
      }
      closed_ = true;
    }
    work_.notify_all();
    for (auto& t : threads_) t.join();
    return failure();
  }

 private:
  struct Slot {
    std::unique_ptr<Lane> lane;
    std::deque<Batch> queue;
    bool busy = false;    // waiting in ready_, or being run
    bool finish = false;  // finish() once the queue is fed
    std::exception_ptr failure;  // after a throw the lane's batches are let go unfed
  };
  static constexpr std::size_t kSpentLists = 64;

  void schedule(Slot& slot) {
    if (slot.busy) return;  // the thread running it sees the new batch
    slot.busy = true;
    ready_.push_back(&slot);
    work_.notify_one();
  }
  void run() {
    std::unique_lock lock(m_);
    for (;;) {
      work_.wait(lock, [&] { return !ready_.empty() || closed_; });
      if (ready_.empty()) return;
      Slot& slot = *ready_.front();
      ready_.pop_front();
      run_lane(slot, lock);
    }
  }
  // Feeds the lane's whole queue, batches that come meanwhile included, then finishes it if asked.
  void run_lane(Slot& slot, std::unique_lock<std::mutex>& lock) {
    while (!slot.queue.empty()) {
      Batch batch = std::move(slot.queue.front());
      slot.queue.pop_front();
      lock.unlock();
      if (!slot.failure) guarded(slot, [&] { feed(*slot.lane, batch); });
      std::vector<TcpSegment> spent = std::move(batch.segments);
      spent.clear();
      batch = Batch();  // lets go of the reader's buffer
      lock.lock();
      if (spent.capacity() && spent_.size() < kSpentLists) spent_.push_back(std::move(spent));
      let_go_.notify_all();
    }
    if (slot.finish) {
      slot.finish = false;
      lock.unlock();
      if (!slot.failure) guarded(slot, [&] { slot.lane->finish(); });
      lock.lock();
    }
    slot.busy = false;
  }
  void feed(Lane& lane, const Batch& batch) {
    for (const auto& text : batch.secrets) lane.add_secrets(text, origin_);
    for (const TcpSegment& segment : batch.segments) lane.feed(segment);
    lane.fed_below(batch.below);
  }
  template <class F>
  static void guarded(Slot& slot, F f) {
    try {
      f();
    } catch (...) {
      slot.failure = std::current_exception();
    }
  }
  std::exception_ptr failure() const {
    for (const auto& slot : slots_)
      if (slot.failure) return slot.failure;
    return nullptr;
  }

  std::string origin_;
  std::mutex m_;
  std::condition_variable work_, let_go_;
  std::vector<Slot> slots_;
  std::deque<Slot*> ready_;  // lanes with work that no thread runs
  std::vector<std::vector<TcpSegment>> spent_;  // fed batches' segment lists, back to the reader
  bool closed_ = false;
  std::vector<std::thread> threads_;  // last: they start running at construction
};

}  // namespace anthro::capture_lanes
