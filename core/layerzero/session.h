// Layer Zero sessions without sockets (../shared/spec/profiles/layer-zero.md, "Behaviour"): a
// server side and a client side that take the bytes a connection received and append the bytes
// it must send. Time comes from an injected clock, so a test can run a session and move a
// clock. The frame, payload, token and resume rules are the codec's (frame.h, payload.h,
// session_token.h, resume.h); this file only keeps the state between frames.
//
// Sequence ids: every frame other than SESSION_INIT/ACK is a data frame of its direction,
// numbered from 1 and continuing across resumes, heartbeats included (the vectors number them).
// A TERMINATE takes the next id like any data frame but is never resent: it ends only its
// connection, and the session stays resumable. One sent before any SESSION_ACK carries 0.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "layerzero/payload.h"
#include "layerzero/resume.h"
#include "layerzero/splitter.h"

namespace anthro::lz {

// Unix time in ns; the default reads the system clock.
using Clock = std::function<std::uint64_t()>;
std::uint64_t system_clock_ns();

inline constexpr std::uint64_t kClientHeartbeatNs = 200'000'000;  // Layer Zero spec §3.2
inline constexpr std::uint64_t kServerHeartbeatNs = 1'000'000'000;
// Sent data frames kept for resending after a resume, per side and session: with the store's
// session cap, what a server can hold for resumes is bounded (1024 × 256 KiB).
inline constexpr std::size_t kDefaultResendBytes = 256u << 10;
inline constexpr std::size_t kDefaultMaxSessions = 1024;

// Where one connection of a session stands.
enum class LinkState {
  AwaitingInit,  // server: nothing received yet
  AwaitingAck,   // client: SESSION_INIT sent
  Open,
  Closed,        // a TERMINATE went either way, or the stream ended or broke
};
const char* to_string(LinkState state);

// What a connection's engine tells its driver, in the order it happened.
enum class EventKind {
  Opened,        // a fresh session's ACK (sent or received)
  Resumed,       // a resume's ACK (sent or received)
  Input,         // server: USER_INPUT `text`
  Output,        // client: MODEL_OUTPUT `text`
  ToolCall,      // client: TOOL_CALL `name`, `text` (JSON parameters), `sequence_id`
  ToolResult,    // server: a TOOL_RESULT in time: `call_id`, `text` (JSON)
  ToolExpired,   // server: no TOOL_RESULT for `call_id` (`name`) within budget × 0.8; the next
                 // MODEL_OUTPUT says so
  Usage,         // server: a client heartbeat's buffer usage
  ServerTime,    // client: a server heartbeat's `server_time_ns`
  Repeat,        // client: a frame already received (`sequence_id`), counted, not delivered
  PeerTerminated,  // the peer sent TERMINATE `reason`
  Refused,       // this side refused a frame: TERMINATE `reason` sent (none for `incomplete`)
  Busy,          // server: no room for a fresh session (SessionStore); closed without a TERMINATE
};

struct Event {
  EventKind kind = EventKind::Opened;
  std::uint32_t sequence_id = 0;
  std::string text;
  std::string name;
  std::uint32_t call_id = 0;
  std::uint8_t usage = 0;
  std::uint64_t server_time_ns = 0;
  TerminateReason reason = TerminateReason::Normal;
  std::string detail;  // for Refused and PeerTerminated: what was wrong
};
inline Event make_event(EventKind kind, std::uint32_t sequence_id = 0) {
  Event e;
  e.kind = kind;
  e.sequence_id = sequence_id;
  return e;
}

// Sent data frames by sequence id, the oldest dropped beyond a byte bound, so a resume can
// resend what the peer missed. Shared by both sides.
class ResendBuffer {
 public:
  explicit ResendBuffer(std::size_t max_bytes = kDefaultResendBytes) : max_bytes_(max_bytes) {}
  void keep(std::uint32_t sequence_id, Bytes frame);
  // Drops every frame up to `last_received` and appends the rest to `out`; false when the
  // frame after `last_received` is no longer held (the resume cannot be seamless).
  bool resend_after(std::uint32_t last_received, Bytes& out);
  std::size_t frames() const { return frames_.size(); }
  std::size_t bytes() const { return bytes_; }

 private:
  struct Kept {
    std::uint32_t sequence_id;
    Bytes frame;
  };
  std::size_t max_bytes_;
  std::deque<Kept> frames_;
  std::size_t bytes_ = 0;
};

// ---------------------------------------------------------------------------------- server

struct PendingToolCall {
  std::uint32_t call_id = 0;  // the TOOL_CALL's sequence id
  std::string name;
  std::uint64_t deadline_ns = 0;  // sent + budget_ms × 0.8
};

// A piece of model text waiting to go out as MODEL_OUTPUT, `delay_ns` after the previous one.
struct QueuedOutput {
  std::string text;
  std::uint64_t delay_ns = 0;
};

// What the server holds of a session between connections.
struct ServerSession {
  SessionId id{};
  SessionTerms terms;
  std::uint32_t last_client_seq = 0;  // the last client data frame received
  std::uint32_t last_server_seq = 0;  // the last server data frame sent
  std::uint8_t client_usage = 0;
  std::uint64_t last_heartbeat_ns = 0;
  std::uint64_t generation = 0;  // bumped by each connection that takes the session over
  std::uint64_t token_expiry_ns = 0;  // of the latest token issued: until then a resume must find it
  ResendBuffer sent;
  std::vector<PendingToolCall> tool_calls;
  std::deque<QueuedOutput> outbox;  // the answer not yet sent, kept across a cut
  std::uint64_t late_tool_results = 0;
  // What the next MODEL_OUTPUT starts with: the tools that went unanswered, as the spec has the
  // server say so.
  std::string unavailable_note;
  std::uint64_t output_frames = 0;  // MODEL_OUTPUT frames sent, resends not counted
  // For the driver: it ends the session (TERMINATE normal) once the outbox is empty, and its
  // fault that cuts a connection does so once per session.
  bool end_when_sent = false;
  std::uint32_t cuts = 0;
  explicit ServerSession(std::size_t resend_bytes) : sent(resend_bytes) {}
};

struct ServerConfig {
  std::vector<Key32> token_keys;  // the first issues; every one verifies (rotation)
  Clock clock = system_clock_ns;
  std::function<SessionId()> new_session_id = random_session_id;
  std::uint64_t session_timeout_ns = kSessionTimeoutNs;
  std::size_t resend_bytes = kDefaultResendBytes;
  // Beyond it a fresh session is refused (see SessionStore), never one whose token is valid forgotten.
  std::size_t max_sessions = kDefaultMaxSessions;
  // A frame still arriving beyond this many bytes is refused (TERMINATE length): the table lets
  // USER_INPUT be any length up to 16 MiB − 1, a server may take less.
  std::size_t max_frame_bytes = (1u << 20) + kFrameOverhead;
  // When set, every SESSION_INIT must carry this key (constraint 0x40), or gets TERMINATE
  // unauthorized before any session state is kept.
  std::string required_api_key;
  // Fault hooks for the endpoint's fault catalogue (model/faults.h), off by default. A resume
  // resends from this many frames after (+1: one lost) or before (−1: one repeated) the one the
  // client asked for; and MODEL_OUTPUT keeps its 4096-byte chunks whatever the client's usage.
  int resend_shift = 0;
  bool ignore_backpressure = false;
};

// Sessions by id, at most `max_sessions`; outlives every connection. A session is kept while its
// token is valid, so a flood of fresh sessions cannot push out one a client will resume: when
// every place holds a valid token, fresh sessions are refused instead. Not thread-safe: one event
// loop owns it.
class SessionStore {
 public:
  explicit SessionStore(std::size_t max_sessions = kDefaultMaxSessions) : max_(max_sessions) {}
  std::shared_ptr<ServerSession> find(const SessionId& id);
  // Forgets the sessions whose tokens expired by `now_ns`; false when none did and the store is full.
  bool make_room(std::uint64_t now_ns);
  void add(std::shared_ptr<ServerSession> session);
  std::size_t size() const { return sessions_.size(); }

 private:
  std::size_t max_;
  std::map<SessionId, std::shared_ptr<ServerSession>> sessions_;
};

// One server connection. Feed it what arrived; it appends what to send to `out` and reports
// events. After a refusal it is Closed and the driver closes the socket once `out` is sent.
// Beyond the codec's refusals: a data frame before SESSION_INIT is `sequence`, a frame only the
// server sends (or a second INIT) is `type`, a genuine token whose session this server no
// longer holds is `expired`, a resume claiming frames never sent or no longer held `sequence`.
class ServerConnection {
 public:
  ServerConnection(const ServerConfig& config, SessionStore& store);

  void receive(ByteView data, Bytes& out, std::vector<Event>& events);
  // The peer closed its side: `incomplete` when that was inside a frame.
  void end_of_stream(std::vector<Event>& events);

  // The driver's sends; false (nothing appended) unless Open and still the session's
  // connection. A text longer than the current chunk limit goes as several frames, cut
  // between UTF-8 characters.
  bool send_output(std::string_view text, Bytes& out);
  // Sends the outbox's next piece when its delay since `since_ns` has passed; true if sent.
  bool send_queued_output(std::uint64_t since_ns, Bytes& out);
  std::optional<std::uint32_t> send_tool_call(const ToolCall& call, Bytes& out);
  // The timers: the server heartbeat every second, tool calls past their deadline.
  void tick(Bytes& out, std::vector<Event>& events);
  void terminate(TerminateReason reason, Bytes& out);

  LinkState state() const { return state_; }
  bool current() const;  // Open and no later connection took the session over
  const std::shared_ptr<ServerSession>& session() const { return session_; }
  // The MODEL_OUTPUT payload limit now (4096, or 512 under backpressure with 0x10).
  std::size_t chunk_limit() const;
  std::uint64_t now() const { return config_.clock(); }

 private:
  void on_frame(const FrameView& frame, Bytes& out, std::vector<Event>& events);
  void on_init(const FrameView& frame, Bytes& out, std::vector<Event>& events);
  void on_data(const FrameView& frame, Bytes& out, std::vector<Event>& events);
  void on_tool_result(const ToolResult& result, std::vector<Event>& events);
  void open_fresh(const SessionInit& init, Bytes& out, std::vector<Event>& events);
  void open_resumed(const SessionInit& init, const TokenFields& fields, Bytes& out, std::vector<Event>& events);
  bool send_ack(Bytes& out);
  void send_data(PayloadType type, ByteView payload, Bytes& out);
  std::optional<std::string> unauthorized(const SessionInit& init) const;
  void refuse(TerminateReason reason, std::string detail, Bytes& out, std::vector<Event>& events);
  std::uint32_t next_terminate_id();
  void expire_tool_calls(std::vector<Event>& events);

  const ServerConfig& config_;
  SessionStore& store_;
  FrameSplitter splitter_{Direction::ClientToServer};
  LinkState state_ = LinkState::AwaitingInit;
  std::shared_ptr<ServerSession> session_;
  std::uint64_t generation_ = 0;
};

// ---------------------------------------------------------------------------------- client

struct ClientConfig {
  SessionTerms terms;
  Clock clock = system_clock_ns;
  std::size_t resend_bytes = kDefaultResendBytes;
  std::uint64_t heartbeat_ns = kClientHeartbeatNs;  // another cadence is a client fault
  std::optional<std::string> api_key;               // sent on every SESSION_INIT (constraint 0x40)
};

// A client's session across its connections: connect() starts each one (a fresh SESSION_INIT,
// or a resume once it holds a token), receive() reads it, connection_lost() ends it.
class ClientSession {
 public:
  explicit ClientSession(ClientConfig config);

  // False, with nothing appended, when the terms cannot be sent (a model id beyond 255 bytes).
  bool connect(Bytes& out);
  void receive(ByteView data, Bytes& out, std::vector<Event>& events);
  void end_of_stream(std::vector<Event>& events);
  void connection_lost();  // the transport broke without a TERMINATE

  // Data frames; while not Open they are numbered and kept, and go out after the next ACK.
  std::uint32_t send_input(std::string_view text, Bytes& out);
  std::uint32_t send_tool_result(const ToolResult& result, Bytes& out);
  void set_buffer_usage(std::uint8_t usage) { usage_ = usage; }
  // The client heartbeat every 200 ms while Open.
  void tick(Bytes& out);
  void terminate(TerminateReason reason, Bytes& out);

  LinkState state() const { return state_; }
  bool has_token() const { return token_.has_value(); }
  const std::optional<SessionToken>& token() const { return token_; }
  std::uint32_t last_server_seq() const { return last_server_seq_; }
  std::uint32_t last_client_seq() const { return last_client_seq_; }
  std::uint64_t repeats() const { return repeats_; }
  std::uint64_t delivered() const { return delivered_; }
  std::uint32_t connections() const { return connections_; }
  std::uint64_t now() const { return config_.clock(); }

 private:
  void on_frame(const FrameView& frame, Bytes& out, std::vector<Event>& events);
  void on_ack(const FrameView& frame, Bytes& out, std::vector<Event>& events);
  void on_data(const FrameView& frame, Bytes& out, std::vector<Event>& events);
  std::uint32_t send_data(PayloadType type, ByteView payload, Bytes& out);
  void refuse(TerminateReason reason, std::string detail, Bytes& out, std::vector<Event>& events);
  std::uint32_t next_terminate_id();

  ClientConfig config_;
  FrameSplitter splitter_{Direction::ServerToClient};
  LinkState state_ = LinkState::Closed;
  std::optional<SessionToken> token_;
  std::uint32_t last_server_seq_ = 0, last_client_seq_ = 0;
  ResendBuffer sent_;
  std::uint8_t usage_ = 0;
  std::uint64_t last_heartbeat_ns_ = 0;
  std::uint64_t repeats_ = 0, delivered_ = 0;
  std::uint32_t connections_ = 0;
};

}  // namespace anthro::lz
