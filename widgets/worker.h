// A job on a thread of its own, owned by one object. Each run is a new Worker with its own
// stop flag and its inputs held by the job, so a run never shares state with the one before.
// Nobody joins a Worker on the UI thread: destroying it asks the job to stop and leaves the
// join to a reaper thread.
#pragma once

#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <thread>

namespace anthro::widgets {

class Worker {
 public:
  using Job = std::function<void(const std::atomic<bool>& stop)>;

  explicit Worker(Job job);  // starts the job at once
  ~Worker();                 // stop(), then the reaper joins
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void stop();  // returns at once; the job sees it through its stop flag
  // Ready when the job has returned (for a later run that must come after this one).
  std::shared_future<void> finished() const { return finished_; }

 private:
  std::shared_ptr<std::atomic<bool>> stop_;
  std::shared_future<void> finished_;
  std::thread thread_;
};

// Runs `finish` on the reaper thread: the joins and destructors that may wait. Whatever is
// still queued at exit runs then.
void reap(std::function<void()> finish);

// Lowers the calling thread's scheduling priority (Linux: its nice value, which the threads it
// starts inherit). A job that keeps every core busy (a capture's decoding lanes) otherwise
// takes its share from the GUI thread too, whose event loop then stalls for tens of ms.
void yield_to_gui_thread();

}  // namespace anthro::widgets
