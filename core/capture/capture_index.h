// The capture inspector's data. One indexing pass over a capture file (analyze_capture with
// an observer) writes a fixed-size row per frame and the frame's decoded bytes to two unnamed
// temporary files; readers then page through millions of frames while only small caches stay
// in memory. Rows become readable while the pass still runs, so a view can fill as it loads.
//
// Threads: load() runs once, on a worker thread; every other member may be called from any
// thread at any time.
#pragma once

#include <atomic>
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
// a Layer Zero frame (seed 002), accepted or refused.
enum class RowKind : std::uint8_t { Frame, HttpRequest, HttpResponse, SseEvent, TokenIds, LayerZeroFrame };

struct FrameRow {
  double ts = 0;
  std::uint64_t data_offset = 0;    // of the frame's bytes in the index's frame file
  std::uint64_t stream_offset = 0;  // of the frame in its direction's byte stream
  std::uint32_t data_size = 0;
  std::uint16_t detail_size = 0;    // a refusal's detail text, stored after the frame's bytes
  std::uint16_t http_status = 0;    // HTTP replies
  std::uint32_t connection = 0;     // index into connections()
  std::uint32_t stream_id = 0;      // 0 when the body was not read
  std::uint32_t token_count = 0;    // STREAM_TOKEN, or the tokens an SSE event carried
  std::uint8_t type = 0, flags = 0;  // frames only
  RowKind kind = RowKind::Frame;
  Direction dir = Direction::ClientToServer;
  FrameStatus status = FrameStatus::Ok;
  FrameReason refusal = FrameReason::Version;  // when status is Refused
  // Layer Zero rows (`type` is the payload type byte, `stream_id` the sequence id). The index
  // keeps their bytes with the SessionToken masked, so what needs the token's bytes is taken
  // before: the CRC-32C the frame's bytes give, and the token's fingerprint.
  lz::TerminateReason lz_refusal = lz::TerminateReason::Normal;  // when status is Refused
  bool lz_crc_known = false;      // false for bytes that are no whole frame
  bool lz_has_token = false;
  std::uint32_t lz_crc = 0;
  std::uint64_t lz_token_fingerprint = 0;
};

// The Type column's word: the frame type ("STREAM_TOKEN"), or "HTTP_REQUEST", "HTTP_RESPONSE",
// "SSE_EVENT", or a Layer Zero payload type as seed 002 spells it ("SESSION_INIT", "MODEL_OUTPUT").
const char* row_type_name(const FrameRow& row);
// Every word row_type_name() can give, frame types first.
const std::vector<std::string>& row_type_names();

// Everything a detail view shows of one frame. `bytes` are the frame as decoded: header and
// nonce as sent, the plaintext body in place of the ciphertext when it was opened, then the
// tag; an api_key's characters are '*' there and in the fields. An HTTP row's bytes are its
// HttpEvent text (secret header values '*'). A Layer Zero row's bytes are its frame as it
// arrived, the SessionToken's bytes '*' (layer_zero_view.h says why).
struct FrameDetail {
  FrameRow row;
  Bytes bytes;
  std::vector<FrameField> fields;
  std::optional<Body> body;
  std::string summary;      // one line, as describe_body
  std::string status;       // "ok", "no key", or the reason with its detail
  std::string pretty_json;  // REQUEST / RESPONSE bodies (an HTTP request's body, an SSE event's data), indented; secrets redacted
  // HTTP requests and replies: seed 004's session headers; a reply's with what its end told
  // (error type, chunk token counts, trailer) once the reply was read to its end.
  HttpAffinity affinity;
  // [begin, end) of `bytes` masked before they were kept (a Layer Zero SessionToken), so a hex
  // view can show them as masked rather than as '*' bytes.
  std::vector<std::pair<std::size_t, std::size_t>> masked;
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

  // The indexing pass. `progress` as AnalyzeOptions::progress (false cancels). Errors as
  // analyze_capture's. Call once.
  Result<bool> load(const std::string& path, const CaptureKeySources& keys,
                    std::function<bool(std::uint64_t done, std::uint64_t total)> progress = {});

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
  CaptureIndex(SpillFile rows, SpillFile data) : rows_(std::move(rows)), data_(std::move(data)) {}
  void on_frame(const CaptureConnection& c, const FrameEvent& e);
  void on_http(const CaptureConnection& c, const HttpEvent& e);
  void on_reply_end(const CaptureConnection& c, const HttpEvent& e);
  void on_layer_zero_frame(const CaptureConnection& c, const lz::WireFrame& f);
  void add_row(FrameRow& row, std::string_view detail);
  std::uint32_t connection_id(const CaptureConnection& c);
  void flush_rows();
  bool read_rows(std::size_t first, std::size_t count, FrameRow* out) const;
  FrameDetail cache(std::size_t i, std::shared_ptr<FrameDetail> d) const;

  SpillFile rows_, data_;
  std::atomic<std::size_t> published_{0};
  std::atomic<bool> finished_{false};

  // Loader-only state.
  std::vector<FrameRow> pending_;
  std::unordered_map<const CaptureConnection*, std::uint32_t> seen_;  // the decoder's record -> id
  std::unordered_map<std::uint64_t, std::uint32_t> open_replies_;  // (connection, exchange) -> its reply's row
  Bytes record_, pending_data_;
  bool write_failed_ = false;

  mutable std::mutex m_;  // guards what follows
  std::vector<CaptureConnection> connections_;
  std::shared_ptr<const CaptureAnalysis> analysis_;
  // What each reply's end told, by the reply's row; only replies with something to tell (a
  // few numbers and an error type each; the per-chunk counts not kept).
  std::unordered_map<std::uint32_t, HttpAffinity> reply_ends_;
  struct Page {
    std::size_t first = 0, count = 0;
    std::vector<FrameRow> rows;
  };
  mutable std::vector<Page> pages_;  // most recently used last
  mutable std::vector<std::pair<std::size_t, std::shared_ptr<const FrameDetail>>> details_;
};

}  // namespace anthro
