// The capture inspector's data. One indexing pass over a capture file (analyze_capture with
// an observer on each of its decoding lanes) writes a fixed-size row per frame to an unnamed
// temporary file, and the frame's decoded bytes to another, one per lane (each lane writes its
// own, so the merge into capture order moves only rows); readers then page through millions of
// frames while only small caches stay in memory. Rows become readable while the pass still runs, so a
// view can fill as it loads.
//
// Threads: load() runs once, on a worker thread (and the pass's lanes on theirs: each lane
// builds its rows, merged into capture order as they come); every other member may be called
// from any thread at any time.
#pragma once

#include <atomic>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "capture/analysis.h"
#include "protocol/describe.h"
#include "util/spill.h"

namespace anthro {

enum class FrameStatus : std::uint8_t { Ok, NoKey, Refused };
// What a row shows: an anthro-v1 frame, an HTTP message or SSE event of an HTTP connection, or
// a frame of a profile's own dissector (`profile`, profile/dissector.h), accepted or refused.
enum class RowKind : std::uint8_t { Frame, HttpRequest, HttpResponse, SseEvent, RiderRow, Dissected };

struct FrameRow {  // 56 bytes, widest members first: a row is written for every frame
  double ts = 0;
  std::uint64_t data_offset = 0;    // of the frame's bytes in frame file `data_file`
  std::uint64_t stream_offset = 0;  // of the frame in its direction's byte stream
  std::uint32_t data_size = 0;
  std::uint32_t connection = 0;     // index into connections()
  std::uint32_t stream_id = 0;      // 0 when the body was not read
  std::uint32_t token_count = 0;    // STREAM_TOKEN, or the tokens an SSE event carried
  std::uint16_t detail_size = 0;    // a refusal's detail text (Dissected: facts too), after the frame's bytes
  std::uint16_t http_status = 0;    // HTTP replies
  std::uint16_t data_file = 0;      // which of the index's frame files (the lane's that decoded it)
  // Dissected rows: whose, `type` indexing its frame_types; RiderRow rows: whose.
  ProfileId profile = ProfileId::AnthroV1;
  std::uint8_t type = 0, flags = 0;  // frames only
  RowKind kind = RowKind::Frame;
  Direction dir = Direction::ClientToServer;
  FrameStatus status = FrameStatus::Ok;
  FrameReason refusal = FrameReason::Version;  // when status is Refused
};
static_assert(sizeof(FrameRow) == 56);

// The Type column's word: the frame type ("STREAM_TOKEN"), or "HTTP_REQUEST", "HTTP_RESPONSE",
// "SSE_EVENT", a rider's row word (RiderRowWords::type), or a word of a Dissected row's profile
// (its frame_types).
const char* row_type_name(const FrameRow& row);
// Every word row_type_name() can give, frame types first.
const std::vector<std::string>& row_type_names();

// Everything a detail view shows of one frame. `bytes` are the frame as decoded: header and
// nonce as sent, the plaintext body in place of the ciphertext when it was opened, then the
// tag; an api_key's characters are '*' there and in the fields. An HTTP row's bytes are its
// HttpEvent text (secret header values '*'). A Dissected row's bytes are its frame as it
// arrived, its secrets '*' (profile/dissector.h).
struct FrameDetail {
  FrameRow row;
  Bytes bytes;
  std::vector<FrameField> fields;
  std::optional<Body> body;
  std::string summary;      // one line, as describe_body
  std::string status;       // "ok", "no key", or the reason with its detail
  std::string pretty_json;  // REQUEST / RESPONSE bodies (an HTTP request's body, an SSE event's data), indented; secrets redacted
  // HTTP requests and replies: what the riders read of their heads (HttpRowFields); a reply's
  // with what its end told (its error body, chunk extensions, trailer) once it was read whole.
  HttpRowParts rider_fields;
  // [begin, end) of `bytes` masked before they were kept (a Dissected row's secrets), so a hex
  // view can show them as masked rather than as '*' bytes.
  std::vector<std::pair<std::size_t, std::size_t>> masked;
  std::vector<std::string> columns;  // Dissected rows: a value for each of its profile's columns
};

struct FrameFilter {
  std::optional<std::uint32_t> connection;
  std::optional<std::uint32_t> stream_id;
  std::optional<std::string> type;  // a row_type_name(): "STREAM_TOKEN", "SSE_EVENT", …
  std::string text;  // found in the decoded body (case-sensitive bytes)
  bool empty() const { return !connection && !stream_id && !type && text.empty(); }
};

class CaptureIndex {
 public:
  // Errors (reason "io") when the temporary files cannot be made.
  static Result<std::shared_ptr<CaptureIndex>> create();

  // The indexing pass. `progress` as AnalyzeOptions::progress (false cancels), `threads` as
  // AnalyzeOptions::threads. Errors as analyze_capture's. Call once.
  Result<bool> load(const std::string& path, const CaptureKeySources& keys,
                    std::function<bool(std::uint64_t done, std::uint64_t total)> progress = {}, unsigned threads = 0);

  std::size_t frame_count() const { return published_.load(std::memory_order_acquire); }
  bool finished() const { return finished_.load(std::memory_order_acquire); }
  // Reads row `i` < frame_count(); nullopt only on an I/O error of the temporary file.
  std::optional<FrameRow> row(std::size_t i) const;
  std::optional<FrameDetail> detail(std::size_t i) const;
  // The connections seen so far, in order of appearance; final once finished().
  std::vector<CaptureConnection> connections() const;
  // The per-stream analysis; null until finished().
  std::shared_ptr<const CaptureAnalysis> analysis() const;
  // Rows matching `filter`, in order; stops early (returning what it has) when `cancelled`.
  std::vector<std::uint32_t> select(const FrameFilter& filter, const std::atomic<bool>* cancelled = nullptr) const;

  // Memory the caches may hold (bytes), for budgets and tests.
  static constexpr std::size_t kRowsPerPage = 1024, kCachedPages = 64, kCachedDetails = 256;

 private:
  // One event of a lane on its way to the rows.
  struct LaneEvent {
    enum What : std::uint8_t { Open, Negotiated, Row, ReplyEnd } what;
    std::uint32_t state = 0;                  // Open, Negotiated: its index in `states`; ReplyEnd: in `ends`
    std::uint64_t packet = 0;
    const CaptureConnection* conn = nullptr;  // the lane's record, whose address names the connection
    // Row: its bytes are in the lane's file; the merge sets `connection`. An HTTP message's
    // `stream_id` is its exchange, and so is a ReplyEnd's (the rest of its row unused).
    FrameRow row;
  };
  struct LaneEvents {
    std::vector<LaneEvent> events;
    std::vector<CaptureConnection> states;  // copied on the lane's thread, where it is not changing
    std::vector<HttpRowParts> ends;
    std::size_t next = 0;  // what the merge has taken
  };
  // A lane's bytes not yet written, appended in place: std::string's append costs a call and
  // more checks than a token frame's copy does.
  class DataBatch {
   public:
    char* extend(std::size_t n) {
      if (n > room_ - size_) grow(n);
      char* at = bytes_.get() + size_;
      size_ += n;
      return at;
    }
    void append(std::string_view s) {
      if (!s.empty()) std::memcpy(extend(s.size()), s.data(), s.size());
    }
    std::string_view view() const { return {bytes_.get(), size_}; }
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    void clear() { size_ = 0; }  // keeps its room for the next batch

   private:
    void grow(std::size_t n);
    std::unique_ptr<char[]> bytes_;
    std::size_t size_ = 0, room_ = 0;
  };
  struct LaneState {
    // The lane's thread only: its events since it last reported, their bytes not yet written,
    // and how many bytes its file holds.
    LaneEvents building;
    DataBatch data;
    std::uint64_t written = 0;
    std::size_t most_events = 0;  // in one batch
    SpillFile* file = nullptr;  // null when it could not be made
    std::uint16_t index = 0;
    // Under queue_m_: what the lane handed to the merge, and spent event lists handed back.
    std::deque<LaneEvents> ready;
    std::vector<std::vector<LaneEvent>> spare;  // at most kSpareEventLists
    std::uint64_t below = 0;  // the lane has reported everything of the packets below it
    bool done = false, failed = false;
    // The merge's (under merge_m_): what it took from `ready`, and what it knew of the lane then.
    std::deque<LaneEvents> merging;
    std::uint64_t merge_below = 0;
    bool merge_done = false;
    const CaptureConnection* last_conn = nullptr;  // the connection of the lane's last row, and its id
    std::uint32_t last_id = 0;
    void add(const LaneEvent& e);
    LaneEvent& new_row(std::uint64_t packet, const CaptureConnection& c);
    void end_row(LaneEvent& e, std::size_t data_size, std::string_view detail);
    bool write_data();
    const LaneEvent* head() const;
  };

  // Batches a lane may have handed over and not yet got back: the lists kept for reuse.
  static constexpr std::size_t kSpareEventLists = 4;
  // Batches a lane may leave in `ready` for a lane further on to merge, a lane.
  static constexpr std::size_t kQueuedBatches = 4;

  CaptureIndex(SpillFile rows, SpillFile data) : rows_(std::move(rows)) { data_.push_back(std::move(data)); }
  LaneObserver observer(LaneState& lane);
  static void frame_row(LaneState& lane, std::uint64_t packet, const CaptureConnection& c, const FrameEvent& e);
  static void http_row(LaneState& lane, std::uint64_t packet, const CaptureConnection& c, const HttpEvent& e);
  static void dissected_row(LaneState& lane, std::uint64_t packet, const CaptureConnection& c, const DissectedFrame& f);
  void make_lanes(unsigned count);
  void lane_progress(LaneState& lane, std::uint64_t packets);
  bool hand_over(LaneState& lane, std::uint64_t packets);
  void merge();
  void gather();
  bool merge_run();
  std::optional<std::uint64_t> run_stop(const LaneState& lane) const;
  void take(LaneState& lane, LaneEvents& batch, LaneEvent& e);
  void recycle(LaneState& lane);
  std::uint32_t connection_id(LaneState& lane, const CaptureConnection* c);
  void reply_end(std::uint64_t reply, HttpRowParts&& told);
  void add_row(const FrameRow& row);
  void flush_rows();
  void write_rows();
  bool read_rows(std::size_t first, std::size_t count, FrameRow* out) const;
  FrameDetail cache(std::size_t i, std::shared_ptr<FrameDetail> d) const;

  SpillFile rows_;
  // The frame files, lane by lane; made before the pass, then fixed (so read without a lock).
  std::vector<SpillFile> data_;
  std::atomic<std::size_t> published_{0};
  std::atomic<bool> finished_{false};

  // Loader state: the lanes (made before the pass, then fixed), and under merge_m_ the merge's.
  // A lane hands its events over (under queue_m_, briefly); one that no running lane has passed
  // then merges, unless another merges already: none waits for the merge.
  std::vector<std::unique_ptr<LaneState>> lanes_;
  std::mutex queue_m_, merge_m_;
  std::atomic<bool> merge_wanted_{false};
  std::vector<FrameRow> pending_;
  std::size_t merged_rows_ = 0;  // before pending_
  std::unordered_map<const CaptureConnection*, std::uint32_t> seen_;  // a lane's record -> id
  std::unordered_map<std::uint64_t, std::uint32_t> open_replies_;  // (connection, exchange) -> its reply's row
  // Pages of merged rows waiting to be written (under pages_m_), in order; written by one thread
  // at a time (write_m_), after a merge. More than kUnwrittenPages of them and a lane behind
  // merges and writes too.
  static constexpr std::size_t kUnwrittenPages = 16;
  std::mutex pages_m_, write_m_;
  std::deque<std::vector<FrameRow>> unwritten_;
  std::vector<std::vector<FrameRow>> spare_pages_;
  std::atomic<std::size_t> unwritten_rows_{0};
  std::atomic<bool> write_failed_{false};

  mutable std::mutex m_;  // guards what follows
  std::vector<CaptureConnection> connections_;
  std::shared_ptr<const CaptureAnalysis> analysis_;
  // What each reply's end told the riders beyond its head, by the reply's row; only replies with
  // something to tell (HttpRowFields::end_part: a few values each, per-chunk details dropped).
  std::unordered_map<std::uint32_t, HttpRowParts> reply_ends_;
  struct Page {
    std::size_t first = 0, count = 0;
    std::vector<FrameRow> rows;
  };
  mutable std::vector<Page> pages_;  // most recently used last
  mutable std::vector<std::pair<std::size_t, std::shared_ptr<const FrameDetail>>> details_;
};

}  // namespace anthro
