// The capture index's merge: the lanes' events into capture order, numbered and stored as rows
// (the index's building on the lanes and its readers are in capture_index.cpp).
#include <algorithm>
#include <mutex>

#include "capture/capture_index.h"

namespace anthro {

// The lane's events so far are handed to the merge. A lane that finds no merge running merges
// (what any lane handed over meanwhile too); none waits for it. The merge and the rows' writes
// are left to a lane further on when there is one: the lane the others wait for would otherwise
// do them all (its report is what lets the merge go on).
void CaptureIndex::lane_progress(LaneState& lane, std::uint64_t packets) {
  const bool others_ahead = hand_over(lane, packets);
  // A lane that hands over while another merges sets merge_wanted_ after its events are in
  // `ready`: the merging lane sees it once it unlocks, and merges again.
  merge_wanted_.store(true);
  if (others_ahead && unwritten_rows_.load() < kUnwrittenPages * kRowsPerPage) return;
  while (merge_wanted_.load() && merge_m_.try_lock()) {
    merge_wanted_.store(false);
    merge();
    merge_m_.unlock();
  }
  write_rows();
}

// The lane's bytes are written, then its events queued for the merge. True when another lane
// still running has reported as far or further, and not too much waits to be merged.
bool CaptureIndex::hand_over(LaneState& lane, std::uint64_t packets) {
  const bool wrote = lane.write_data();
  std::lock_guard lock(queue_m_);
  lane.failed = lane.failed || !wrote;
  if (!lane.building.events.empty()) {
    lane.most_events = std::max(lane.most_events, lane.building.events.size());
    lane.ready.push_back(std::move(lane.building));
    lane.building = {};
    if (!lane.spare.empty()) {  // a list the merge is done with: no new memory to fault in
      lane.building.events = std::move(lane.spare.back());
      lane.spare.pop_back();
    }
    lane.building.events.reserve(lane.most_events);  // no regrowing into new memory
  }
  lane.below = packets;
  lane.done = packets == LaneObserver::kEndOfCapture;
  std::size_t queued = 0;
  bool others_ahead = false;
  for (const auto& other : lanes_) {
    queued += other->ready.size();
    others_ahead = others_ahead || (other.get() != &lane && !other->done && other->below >= lane.below);
  }
  return others_ahead && queued < kQueuedBatches * lanes_.size();
}

const CaptureIndex::LaneEvent* CaptureIndex::LaneState::head() const {
  return merging.empty() ? nullptr : &merging.front().events[merging.front().next];
}

// Events in packet order across the lanes (a lane's own in its order): the earliest event
// waiting is taken while every lane with nothing waiting has promised nothing before it.
void CaptureIndex::merge() {
  gather();
  while (merge_run()) {
  }
}

// What the lanes handed over, taken for merging (under queue_m_ only this long).
void CaptureIndex::gather() {
  std::lock_guard lock(queue_m_);
  for (auto& lane : lanes_) {
    while (!lane->ready.empty()) {
      lane->merging.push_back(std::move(lane->ready.front()));
      lane->ready.pop_front();
    }
    lane->merge_below = lane->below;
    lane->merge_done = lane->done;
    if (lane->failed) write_failed_.store(true);
  }
}

// The events of the lane with the earliest one, as far as no other lane can precede them (an
// equal packet, the capture's end, goes to the lower lane first). False when none can be taken.
bool CaptureIndex::merge_run() {
  LaneState* next = nullptr;
  for (auto& lane : lanes_)
    if (lane->head() && (!next || lane->head()->packet < next->head()->packet)) next = lane.get();
  if (!next) return false;
  const std::optional<std::uint64_t> stop = run_stop(*next);
  if (stop && next->head()->packet >= *stop) return false;
  const std::uint64_t last = stop ? *stop - 1 : LaneObserver::kEndOfCapture;  // the run's last packet
  while (!next->merging.empty()) {
    LaneEvents& batch = next->merging.front();
    std::size_t i = batch.next;
    for (; i < batch.events.size() && batch.events[i].packet <= last; ++i) take(*next, batch, batch.events[i]);
    batch.next = i;
    if (i < batch.events.size()) break;
    recycle(*next);
  }
  return true;
}

// The packet `lane`'s run stops before; none when nothing bounds it.
std::optional<std::uint64_t> CaptureIndex::run_stop(const LaneState& lane) const {
  std::optional<std::uint64_t> stop;
  auto bound = [&stop](std::uint64_t at) { stop = stop ? std::min(*stop, at) : at; };
  for (const auto& other : lanes_) {
    if (other.get() == &lane) continue;
    if (const LaneEvent* head = other->head()) {
      if (other->index > lane.index) {
        if (head->packet != LaneObserver::kEndOfCapture) bound(head->packet + 1);
      } else {
        bound(head->packet);
      }
    } else if (!other->merge_done) {
      bound(other->merge_below);
    }
  }
  return stop;
}

// The id of a lane's connection record: a connection's rows come in runs, one lookup a run.
std::uint32_t CaptureIndex::connection_id(LaneState& lane, const CaptureConnection* c) {
  if (c != lane.last_conn) {
    lane.last_id = seen_.at(c);
    lane.last_conn = c;
  }
  return lane.last_id;
}

void CaptureIndex::take(LaneState& lane, LaneEvents& batch, LaneEvent& e) {
  switch (e.what) {
    case LaneEvent::Open: {
      seen_.emplace(e.conn, static_cast<std::uint32_t>(seen_.size()));
      std::lock_guard lock(m_);
      connections_.push_back(std::move(batch.states[e.state]));
      break;
    }
    case LaneEvent::Negotiated: {
      std::lock_guard lock(m_);
      connections_[connection_id(lane, e.conn)] = std::move(batch.states[e.state]);
      break;
    }
    case LaneEvent::Row:
      e.row.connection = connection_id(lane, e.conn);
      if (e.row.kind == RowKind::HttpResponse)
        open_replies_[std::uint64_t{e.row.connection} << 32 | e.row.stream_id] =
            static_cast<std::uint32_t>(merged_rows_ + pending_.size());
      add_row(e.row);
      break;
    case LaneEvent::ReplyEnd:
      reply_end(std::uint64_t{connection_id(lane, e.conn)} << 32 | e.row.stream_id, std::move(batch.ends[e.state]));
      break;
  }
}

// A batch the merge is done with; its event list goes back to the lane for reuse.
void CaptureIndex::recycle(LaneState& lane) {
  std::vector<LaneEvent> events = std::move(lane.merging.front().events);
  lane.merging.pop_front();
  events.clear();
  std::lock_guard lock(queue_m_);
  if (lane.spare.size() < kSpareEventLists) lane.spare.push_back(std::move(events));
}

void CaptureIndex::reply_end(std::uint64_t reply, HttpRowParts&& told) {
  auto it = open_replies_.find(reply);
  if (it == open_replies_.end()) return;
  std::uint32_t row = it->second;
  open_replies_.erase(it);
  std::lock_guard lock(m_);
  reply_ends_[row] = std::move(told);
  std::erase_if(details_, [row](const auto& d) { return d.first == row; });  // read again with its end
}

// Stores `row` (its bytes are in its lane's file already).
void CaptureIndex::add_row(const FrameRow& row) {
  // Buffered: one write per page of rows, not one per frame.
  pending_.push_back(row);
  if (pending_.size() == kRowsPerPage) flush_rows();
}

// The merged rows, a page of them, queued for writing (write_rows).
void CaptureIndex::flush_rows() {
  if (pending_.empty()) return;
  merged_rows_ += pending_.size();
  std::vector<FrameRow> page;
  std::lock_guard lock(pages_m_);
  if (!spare_pages_.empty()) {
    page = std::move(spare_pages_.back());
    spare_pages_.pop_back();
  }
  page.swap(pending_);  // pending_ gets the spare page's memory
  unwritten_rows_.fetch_add(page.size());
  unwritten_.push_back(std::move(page));
}

// Writes the queued pages in order, each published once written; does nothing while another
// thread writes them.
void CaptureIndex::write_rows() {
  std::unique_lock writing(write_m_, std::try_to_lock);
  if (!writing) return;
  for (;;) {
    std::vector<FrameRow> page;
    {
      std::lock_guard lock(pages_m_);
      if (unwritten_.empty()) return;
      page = std::move(unwritten_.front());
      unwritten_.pop_front();
    }
    std::string_view bytes(reinterpret_cast<const char*>(page.data()), page.size() * sizeof(FrameRow));
    // After a failed write later rows would land at the wrong offsets: publishing stops there.
    if (!write_failed_.load() && rows_.append(bytes))
      published_.store(published_.load() + page.size(), std::memory_order_release);
    else
      write_failed_.store(true);
    unwritten_rows_.fetch_sub(page.size());
    page.clear();
    std::lock_guard lock(pages_m_);
    if (spare_pages_.size() < kUnwrittenPages) spare_pages_.push_back(std::move(page));
  }
}

}  // namespace anthro
