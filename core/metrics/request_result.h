// One request as a live session saw it, or one stream as a capture shows it: the record that
// figures, charts, checklist items and reports read, with one meaning wherever it came from.
// RequestRecorder builds it from protocol-neutral events; request_json.h writes it as JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/record_extension.h"
#include "metrics/request_figures.h"
#include "protocol/body.h"
#include "util/boxed.h"

namespace anthro {

// The clock of live requests' timelines: steady_clock in seconds, as core/session stamps them.
double steady_now_s();

// How a request ended, as the client or the capture saw it.
enum class RequestEnd {
  Open,              // no end seen: the capture stops first, or the request is under way
  Response,          // a RESPONSE frame, or the HTTP response read to its end
  Error,             // an ERROR frame for the stream, or an HTTP error status
  ConnectionError,   // an ERROR on stream 0: the server gave up the whole connection
  ProtocolError,     // the server's bytes could not be read (a refused frame, a bad HTTP response)
  ConnectionClosed,  // the connection closed before the request ended
  Timeout,           // no end within the client's timeout
  SendFailed,        // the request could not be written
  ClientClosed,      // the client closed on purpose after its cancel point (no CANCEL frame)
  CancelClosed,      // a cancel that closed the connection (HTTP's only cancel, or a forced one)
};
// "open", "response", "error", "connection_error", "protocol_error", "connection_closed",
// "timeout", "send_failed", "client_closed", "cancel_closed".
const char* to_string(RequestEnd end);
std::optional<RequestEnd> parse_request_end(std::string_view text);

struct RequestResult {
  // The request on its connection, one numbering live and captured: the anthro-v1 or HTTP/2
  // stream, or the HTTP/1.1 exchange's number (1 for the connection's first request).
  std::uint32_t stream_id = 0;
  RequestTimeline timeline;
  RequestFigures figures;
  std::string text;
  RequestEnd end = RequestEnd::Open;
  std::optional<StopReason> stop_reason;
  std::optional<std::string> error;  // for a person: "429: overloaded", "connection closed before RESPONSE", ...
  std::optional<int> error_code;
  std::optional<std::uint32_t> retry_after_ms;
  std::optional<Timing> server_timing;  // RESPONSE timing (anthro-v1 only)
  std::uint64_t invalid_utf8_frames = 0, token_gaps = 0, token_duplicates = 0, auth_failures = 0;
  std::optional<std::string> probe;  // the checklist item a probe stream feeds (REQUEST metadata anthro_probe)
  std::optional<std::uint64_t> max_tokens;  // as the REQUEST asked
  // Capture: the packets holding its first and last frames, numbered from 1 as Wireshark's
  // frame.number, so `frame.number >= first && frame.number <= last` shows the stream there.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> packets;
  // Live anthro-v1 only: decrypt + verify time per frame, and the fullest the client's receive
  // buffer got (bytes) against what it holds.
  std::vector<float> frame_decode_ms;
  std::uint64_t ring_high_water = 0, ring_capacity = 0;
  // What the formats riding on the request's protocol add to it, each under its profile id.
  RecordExtensions extensions;
  // Live: the carrier the request went over, as its connection negotiated it (an https target
  // offered h2 speaks HTTP/2 only when the server selected it). Unset in a capture's records
  // (their connection says it) and in a record read back: the JSON keeps the session's `alpn`.
  std::optional<ProfileId> carrier;
  // `merge`: the result file (worker) the request came from; unset for a run's own requests.
  std::optional<std::string> worker;
};

// What a request body says that the record keeps.
struct RequestMeta {
  std::optional<std::string> probe;  // metadata.anthro_probe
  std::optional<std::uint64_t> max_tokens;
};
// The meta of a request body's JSON (anthro-v1 REQUEST or HTTP), or of its metadata object alone.
RequestMeta meta_of_request(std::string_view request_json);
// The same of a REQUEST body parse_request read, without parsing its JSON again where it cannot
// hold metadata.
RequestMeta meta_of_request(const RequestBody& request);
std::optional<std::string> probe_of_metadata(std::string_view metadata_json);

// Builds a RequestResult from events in arrival order, stamped in seconds (a monotonic clock
// live, packet times in a capture). The anthro-v1 client, the HTTP client and capture analysis
// all feed it, so the timeline and its figures are built one way.
class RequestRecorder {
 public:
  explicit RequestRecorder(RequestResult& r) : r_(r) {}

  void request_sent(double t, RequestMeta meta = {});
  void first_byte(double t);     // HTTP: the first response byte
  void message_start(double t);  // HTTP: message_start or the role chunk
  // `count` tokens with their text; `index` is the first token's index where the protocol
  // numbers them (anthro-v1), for gaps and repeats. `visible` is false for thinking deltas.
  void tokens(double t, std::uint32_t count, std::string_view text, bool visible,
              std::optional<std::uint32_t> index = std::nullopt, bool invalid_utf8 = false);
  void usage(std::uint64_t output_tokens);
  void cancel_sent(double t);  // the first cancel counts
  // The server's own end of the stream.
  void response(double t, std::optional<StopReason> stop, std::optional<std::uint64_t> output_tokens, std::string_view content,
                std::optional<Timing> timing = std::nullopt);
  void server_error(double t, int code, std::optional<std::uint32_t> retry_after_ms, std::string_view message);
  // The request ended without the server's end: how, and why for a person.
  void ended(RequestEnd end, std::string why, std::optional<double> t = std::nullopt);
  // Computes the figures; `streamed` false (a non-streaming request) has no token frames to
  // hold the server's usage against.
  void finish(bool streamed = true, ItlSamples samples = ItlSamples::Kept);

  std::uint64_t tokens_seen() const { return tokens_; }

 private:
  RequestResult& r_;
  std::uint32_t next_index_ = 0;
  std::uint64_t tokens_ = 0;
};

}  // namespace anthro
