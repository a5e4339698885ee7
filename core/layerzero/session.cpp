#include "layerzero/session.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "crypto/key_schedule.h"

namespace anthro::lz {
namespace {

constexpr std::uint64_t kToolDeadlineNsPerBudgetMs = 800'000;  // budget_ms × 0.8, in ns

// The longest prefix of `text` within `limit` bytes that ends between UTF-8 characters; a
// prefix of `limit` bytes when no boundary is near (the text is not UTF-8, not ours to fix).
std::size_t utf8_cut(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return text.size();
  std::size_t n = limit;
  while (n > 0 && limit - n < 3 && (static_cast<std::uint8_t>(text[n]) & 0xC0) == 0x80) --n;
  return n == 0 ? limit : n;
}

Bytes terminate_payload(TerminateReason reason) {
  Bytes p;
  append_u16(p, static_cast<std::uint16_t>(reason));
  return p;
}

// A TERMINATE carries the next id without using it up (see session.h).
void append_terminate(Bytes& out, std::uint32_t sequence_id, TerminateReason reason) {
  append_frame(out, sequence_id, PayloadType::Terminate, terminate_payload(reason));
}

Event refused_event(TerminateReason reason, std::string detail) {
  Event e = make_event(EventKind::Refused);
  e.reason = reason;
  e.detail = std::move(detail);
  return e;
}

Event peer_terminated(const Terminate& t) {
  Event e = make_event(EventKind::PeerTerminated);
  e.reason = t.reason().value_or(TerminateReason::Normal);
  e.detail = t.reason() ? std::string("the peer ended the connection: ") + to_string(*t.reason())
                        : "the peer ended the connection with unknown reason " + std::to_string(t.code);
  return e;
}

std::string wrong_direction(const FrameHeader& h, const char* side) {
  return std::string("a ") + to_string(h.type) + " is not a frame the " + side + " takes";
}

// A codec refusal's reason name as a TERMINATE reason (every name the codec uses maps).
TerminateReason reason_of(const Error& error) {
  return parse_terminate_reason(error.reason).value_or(TerminateReason::Length);
}

// The bytes of a payload whose encoding cannot fail here (ACK, heartbeats, TOOL_RESULT); the
// callers of the fallible ones (TOOL_CALL, SESSION_INIT) check encode_payload themselves.
Bytes payload_bytes(const Payload& payload) {
  auto bytes = encode_payload(payload);
  return bytes ? std::move(*bytes) : Bytes{};
}

// Where a resume's resending starts under the resend_shift fault hook (unshifted at the ends).
std::uint32_t shifted(std::uint32_t claimed, int shift) {
  if (shift < 0) return claimed >= static_cast<std::uint32_t>(-shift) ? claimed + shift : claimed;
  return claimed <= UINT32_MAX - static_cast<std::uint32_t>(shift) ? claimed + shift : claimed;
}

}  // namespace

std::uint64_t system_clock_ns() {
  using namespace std::chrono;
  return static_cast<std::uint64_t>(duration_cast<nanoseconds>(system_clock::now().time_since_epoch()).count());
}

const char* to_string(LinkState state) {
  switch (state) {
    case LinkState::AwaitingInit: return "awaiting-init";
    case LinkState::AwaitingAck: return "awaiting-ack";
    case LinkState::Open: return "open";
    case LinkState::Closed: return "closed";
  }
  return "closed";
}

// ------------------------------------------------------------------------------ ResendBuffer

void ResendBuffer::keep(std::uint32_t sequence_id, Bytes frame) {
  bytes_ += frame.size();
  frames_.push_back({sequence_id, std::move(frame)});
  while (bytes_ > max_bytes_ && frames_.size() > 1) {
    bytes_ -= frames_.front().frame.size();
    frames_.pop_front();
  }
}

bool ResendBuffer::resend_after(std::uint32_t last_received, Bytes& out) {
  while (!frames_.empty() && frames_.front().sequence_id <= last_received) {
    bytes_ -= frames_.front().frame.size();
    frames_.pop_front();
  }
  if (!frames_.empty() && frames_.front().sequence_id != resend_from(last_received)) return false;
  for (const auto& kept : frames_) append(out, kept.frame);
  return true;
}

// ------------------------------------------------------------------------------ SessionStore

std::shared_ptr<ServerSession> SessionStore::find(const SessionId& id) {
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
}

bool SessionStore::make_room(std::uint64_t now_ns) {
  if (sessions_.size() < max_) return true;
  std::erase_if(sessions_, [now_ns](const auto& entry) { return entry.second->token_expiry_ns <= now_ns; });
  return sessions_.size() < max_;
}

void SessionStore::add(std::shared_ptr<ServerSession> session) {
  const SessionId id = session->id;
  sessions_[id] = std::move(session);
}

// -------------------------------------------------------------------------- ServerConnection

ServerConnection::ServerConnection(const ServerConfig& config, SessionStore& store) : config_(config), store_(store) {}

bool ServerConnection::current() const {
  return state_ == LinkState::Open && session_ && session_->generation == generation_;
}

std::size_t ServerConnection::chunk_limit() const {
  if (!session_ || config_.ignore_backpressure) return kMaxOutputChunk;
  return output_chunk_limit(session_->terms.constraints, session_->client_usage);
}

void ServerConnection::receive(ByteView data, Bytes& out, std::vector<Event>& events) {
  if (state_ == LinkState::Closed) return;
  auto refusal = splitter_.feed(data, [&](const FrameView& f) {
    if (state_ != LinkState::Closed) on_frame(f, out, events);
  });
  if (refusal && state_ != LinkState::Closed) refuse(refusal->reason, refusal->detail, out, events);
  if (state_ != LinkState::Closed && splitter_.buffered() > config_.max_frame_bytes)
    refuse(TerminateReason::Length,
           "a frame longer than this server's limit of " + std::to_string(config_.max_frame_bytes) + " bytes", out, events);
}

void ServerConnection::end_of_stream(std::vector<Event>& events) {
  if (state_ == LinkState::Closed) return;
  if (auto refusal = splitter_.finish()) events.push_back(refused_event(refusal->reason, refusal->detail));
  state_ = LinkState::Closed;
}

void ServerConnection::on_frame(const FrameView& frame, Bytes& out, std::vector<Event>& events) {
  const PayloadType type = frame.header.type;
  if (state_ == LinkState::AwaitingInit) {
    if (type == PayloadType::SessionInit) return on_init(frame, out, events);
    if (type == PayloadType::Terminate) {
      if (auto t = decode_terminate(frame.payload)) events.push_back(peer_terminated(*t));
      state_ = LinkState::Closed;
      return;
    }
    if (type == PayloadType::SessionAck) return refuse(TerminateReason::Type, wrong_direction(frame.header, "server"), out, events);
    return refuse(TerminateReason::Sequence, std::string("a ") + to_string(type) + " before SESSION_INIT", out, events);
  }
  if (!current()) return;  // a later connection resumed the session: this one only drains
  on_data(frame, out, events);
}

void ServerConnection::on_init(const FrameView& frame, Bytes& out, std::vector<Event>& events) {
  auto init = decode_session_init(frame.payload);
  if (!init) return refuse(reason_of(init.error()), init.error().detail, out, events);
  if (auto why = unauthorized(*init)) return refuse(TerminateReason::Unauthorized, *why, out, events);
  if (!init->resume) return open_fresh(*init, out, events);
  auto fields = verify_resume(config_.token_keys, *init, config_.clock());
  if (!fields) return refuse(reason_of(fields.error()), fields.error().detail, out, events);
  open_resumed(*init, *fields, out, events);
}

// Checked before any session is looked up or made: an unauthenticated INIT leaves nothing behind.
std::optional<std::string> ServerConnection::unauthorized(const SessionInit& init) const {
  if (credential_accepted(init.api_key, config_.required_api_key)) return std::nullopt;
  if (!init.api_key) return "this server requires an API key (SESSION_INIT constraint 0x40)";
  return "the SESSION_INIT's API key is wrong";
}

void ServerConnection::open_fresh(const SessionInit& init, Bytes& out, std::vector<Event>& events) {
  if (!store_.make_room(config_.clock())) {
    // Layer Zero has no "busy" reason: the client sees the connection close.
    Event busy = make_event(EventKind::Busy);
    busy.detail = "every one of the " + std::to_string(store_.size()) + " sessions held has a valid token";
    events.push_back(std::move(busy));
    state_ = LinkState::Closed;
    return;
  }
  auto session = std::make_shared<ServerSession>(config_.resend_bytes);
  session->id = config_.new_session_id();
  session->terms = init.terms;
  session_ = session;
  generation_ = ++session->generation;
  if (!send_ack(out)) return refuse(TerminateReason::Length, "the session's terms cannot be put in a token", out, events);
  store_.add(std::move(session));
  state_ = LinkState::Open;
  session_->last_heartbeat_ns = config_.clock();
  events.push_back(make_event(EventKind::Opened));
}

void ServerConnection::open_resumed(const SessionInit& init, const TokenFields& fields, Bytes& out,
                                    std::vector<Event>& events) {
  auto session = store_.find(fields.session_id);
  // The token is genuine but the state behind it is gone (forgotten, or another server's).
  if (!session) return refuse(TerminateReason::Expired, "this server no longer holds the session's frames", out, events);
  const std::uint32_t claimed = init.resume->last_server_sequence_id;
  if (claimed > session->last_server_seq)
    return refuse(TerminateReason::Sequence,
                  "the client says it received server frame " + std::to_string(claimed) + ", the server sent up to " +
                      std::to_string(session->last_server_seq),
                  out, events);
  session_ = session;
  generation_ = ++session->generation;
  Bytes resent;
  if (!session->sent.resend_after(shifted(claimed, config_.resend_shift), resent))
    return refuse(TerminateReason::Sequence, "the server frames after " + std::to_string(claimed) + " are no longer held", out, events);
  if (!send_ack(out)) return refuse(TerminateReason::Length, "the session's terms cannot be put in a token", out, events);
  append(out, resent);
  state_ = LinkState::Open;
  session->last_heartbeat_ns = config_.clock();  // the cadence restarts with the connection
  events.push_back(make_event(EventKind::Resumed));
}

bool ServerConnection::send_ack(Bytes& out) {
  const std::uint64_t now = config_.clock();
  if (config_.token_keys.empty()) return false;
  auto token = reissue_token(config_.token_keys.front(), session_->id, session_->terms, now, config_.session_timeout_ns);
  if (!token) return false;
  session_->token_expiry_ns = now + config_.session_timeout_ns;
  SessionAck ack{*token, session_->last_client_seq, now};
  return append_frame(out, 0, PayloadType::SessionAck, payload_bytes(ack));
}

void ServerConnection::on_data(const FrameView& frame, Bytes& out, std::vector<Event>& events) {
  const FrameHeader& h = frame.header;
  switch (h.type) {
    case PayloadType::UserInput:
    case PayloadType::ToolResult:
    case PayloadType::Heartbeat:
    case PayloadType::Terminate: break;
    case PayloadType::SessionInit:
      return refuse(TerminateReason::Type, "a second SESSION_INIT on an open connection", out, events);
    default: return refuse(TerminateReason::Type, wrong_direction(h, "server"), out, events);
  }
  if (!sequence_allowed(h, session_->last_client_seq))
    return refuse(TerminateReason::Sequence, sequence_detail(h, session_->last_client_seq), out, events);
  auto payload = decode_payload(h.type, frame.payload, Direction::ClientToServer);
  if (!payload) return refuse(reason_of(payload.error()), payload.error().detail, out, events);
  session_->last_client_seq = h.sequence_id;  // a TERMINATE's id too: the client's next frame follows it
  if (auto* t = std::get_if<Terminate>(&*payload)) {
    events.push_back(peer_terminated(*t));
    state_ = LinkState::Closed;
    return;
  }
  if (auto* text = std::get_if<TextPayload>(&*payload)) {
    Event e = make_event(EventKind::Input, h.sequence_id);
    e.text = std::move(text->text);
    events.push_back(std::move(e));
  } else if (auto* hb = std::get_if<ClientHeartbeat>(&*payload)) {
    session_->client_usage = hb->buffer_usage;
    Event e = make_event(EventKind::Usage, h.sequence_id);
    e.usage = hb->buffer_usage;
    events.push_back(e);
  } else if (auto* result = std::get_if<ToolResult>(&*payload)) {
    on_tool_result(*result, events);
  }
}

void ServerConnection::on_tool_result(const ToolResult& result, std::vector<Event>& events) {
  expire_tool_calls(events);  // a result after its deadline finds its call gone
  auto& calls = session_->tool_calls;
  auto it = std::find_if(calls.begin(), calls.end(), [&](const PendingToolCall& c) { return c.call_id == result.call_sequence_id; });
  if (it == calls.end()) {
    ++session_->late_tool_results;  // late, or answering nothing: ignored
    return;
  }
  Event e = make_event(EventKind::ToolResult);
  e.call_id = result.call_sequence_id;
  e.name = it->name;
  e.text = result.result_json;
  calls.erase(it);
  events.push_back(std::move(e));
}

void ServerConnection::expire_tool_calls(std::vector<Event>& events) {
  if (!session_) return;
  const std::uint64_t now = config_.clock();
  auto& calls = session_->tool_calls;
  for (auto it = calls.begin(); it != calls.end();) {
    if (now <= it->deadline_ns) {
      ++it;
      continue;
    }
    session_->unavailable_note += "[tool " + it->name + " (call " + std::to_string(it->call_id) +
                                  ") unavailable: no TOOL_RESULT within " +
                                  std::to_string(std::uint64_t{session_->terms.budget_ms} * 4 / 5) + " ms] ";
    Event e = make_event(EventKind::ToolExpired);
    e.call_id = it->call_id;
    e.name = it->name;
    events.push_back(std::move(e));
    it = calls.erase(it);
  }
}

void ServerConnection::send_data(PayloadType type, ByteView payload, Bytes& out) {
  Bytes frame;
  append_frame(frame, ++session_->last_server_seq, type, payload);
  append(out, frame);
  session_->sent.keep(session_->last_server_seq, std::move(frame));
}

bool ServerConnection::send_output(std::string_view model_text, Bytes& out) {
  if (!current()) return false;
  const std::string noted = std::exchange(session_->unavailable_note, {}) + std::string(model_text);
  std::string_view text = noted;
  do {
    const std::size_t n = utf8_cut(text, chunk_limit());
    send_data(PayloadType::ModelOutput, as_bytes(text.substr(0, n)), out);
    ++session_->output_frames;
    text.remove_prefix(n);
  } while (!text.empty());
  return true;
}

bool ServerConnection::send_queued_output(std::uint64_t since_ns, Bytes& out) {
  if (!current() || session_->outbox.empty()) return false;
  const QueuedOutput& next = session_->outbox.front();
  if (config_.clock() < since_ns + next.delay_ns) return false;
  const std::string text = next.text;
  session_->outbox.pop_front();
  return send_output(text, out);
}

std::optional<std::uint32_t> ServerConnection::send_tool_call(const ToolCall& call, Bytes& out) {
  if (!current()) return std::nullopt;
  auto payload = encode_payload(call);
  if (!payload) return std::nullopt;
  send_data(PayloadType::ToolCall, *payload, out);
  const std::uint64_t deadline = config_.clock() + std::uint64_t{session_->terms.budget_ms} * kToolDeadlineNsPerBudgetMs;
  session_->tool_calls.push_back({session_->last_server_seq, call.name, deadline});
  return session_->last_server_seq;
}

void ServerConnection::tick(Bytes& out, std::vector<Event>& events) {
  if (!current()) return;
  expire_tool_calls(events);
  const std::uint64_t now = config_.clock();
  if (now - std::min(now, session_->last_heartbeat_ns) < kServerHeartbeatNs) return;
  session_->last_heartbeat_ns = now;
  send_data(PayloadType::Heartbeat, payload_bytes(ServerHeartbeat{now}), out);
}

void ServerConnection::terminate(TerminateReason reason, Bytes& out) {
  if (state_ == LinkState::Closed) return;
  append_terminate(out, next_terminate_id(), reason);
  state_ = LinkState::Closed;
}

std::uint32_t ServerConnection::next_terminate_id() {
  return state_ == LinkState::Open && session_ ? ++session_->last_server_seq : 0;
}

void ServerConnection::refuse(TerminateReason reason, std::string detail, Bytes& out, std::vector<Event>& events) {
  if (reason != TerminateReason::Incomplete) append_terminate(out, next_terminate_id(), reason);
  events.push_back(refused_event(reason, std::move(detail)));
  state_ = LinkState::Closed;
}

// ----------------------------------------------------------------------------- ClientSession

ClientSession::ClientSession(ClientConfig config) : config_(std::move(config)), sent_(config_.resend_bytes) {}

bool ClientSession::connect(Bytes& out) {
  SessionInit init{config_.terms, std::nullopt, config_.api_key};
  if (token_) init.resume = ResumeFields{*token_, last_server_seq_, config_.clock()};
  auto payload = encode_payload(init);
  if (!payload) return false;
  splitter_ = FrameSplitter(Direction::ServerToClient);
  append_frame(out, 0, PayloadType::SessionInit, *payload);
  state_ = LinkState::AwaitingAck;
  ++connections_;
  return true;
}

void ClientSession::connection_lost() { state_ = LinkState::Closed; }

void ClientSession::receive(ByteView data, Bytes& out, std::vector<Event>& events) {
  if (state_ == LinkState::Closed) return;
  auto refusal = splitter_.feed(data, [&](const FrameView& f) {
    if (state_ != LinkState::Closed) on_frame(f, out, events);
  });
  if (refusal && state_ != LinkState::Closed) refuse(refusal->reason, refusal->detail, out, events);
}

void ClientSession::end_of_stream(std::vector<Event>& events) {
  if (state_ == LinkState::Closed) return;
  if (auto refusal = splitter_.finish()) events.push_back(refused_event(refusal->reason, refusal->detail));
  state_ = LinkState::Closed;
}

void ClientSession::on_frame(const FrameView& frame, Bytes& out, std::vector<Event>& events) {
  const PayloadType type = frame.header.type;
  if (type == PayloadType::Terminate) {  // before the ACK too, whatever its sequence id
    // A resume reports it as the last frame received, so the next data frame follows it.
    if (state_ == LinkState::Open && sequence_allowed(frame.header, last_server_seq_)) last_server_seq_ = frame.header.sequence_id;
    if (auto t = decode_terminate(frame.payload)) events.push_back(peer_terminated(*t));
    state_ = LinkState::Closed;
    return;
  }
  if (state_ == LinkState::AwaitingAck) {
    if (type == PayloadType::SessionAck) return on_ack(frame, out, events);
    if (type == PayloadType::SessionInit) return refuse(TerminateReason::Type, wrong_direction(frame.header, "client"), out, events);
    return refuse(TerminateReason::Sequence, std::string("a ") + to_string(type) + " before SESSION_ACK", out, events);
  }
  on_data(frame, out, events);
}

void ClientSession::on_ack(const FrameView& frame, Bytes& out, std::vector<Event>& events) {
  auto ack = decode_session_ack(frame.payload);
  if (!ack) return refuse(reason_of(ack.error()), ack.error().detail, out, events);
  if (ack->last_client_sequence_id > last_client_seq_)
    return refuse(TerminateReason::Sequence,
                  "the server says it received client frame " + std::to_string(ack->last_client_sequence_id) +
                      ", the client sent up to " + std::to_string(last_client_seq_),
                  out, events);
  Bytes resent;
  if (!sent_.resend_after(ack->last_client_sequence_id, resent))
    return refuse(TerminateReason::Sequence,
                  "the client frames after " + std::to_string(ack->last_client_sequence_id) + " are no longer held", out, events);
  const bool resumed = token_.has_value();
  token_ = ack->token;
  state_ = LinkState::Open;
  last_heartbeat_ns_ = config_.clock();
  events.push_back(make_event(resumed ? EventKind::Resumed : EventKind::Opened));
  append(out, resent);
}

void ClientSession::on_data(const FrameView& frame, Bytes& out, std::vector<Event>& events) {
  const FrameHeader& h = frame.header;
  switch (h.type) {
    case PayloadType::ModelOutput:
    case PayloadType::ToolCall:
    case PayloadType::Heartbeat: break;
    case PayloadType::SessionAck: return refuse(TerminateReason::Type, "a second SESSION_ACK on an open connection", out, events);
    default: return refuse(TerminateReason::Type, wrong_direction(h, "client"), out, events);
  }
  if (h.sequence_id != 0 && h.sequence_id <= last_server_seq_) {  // resent after a resume, already delivered
    ++repeats_;
    events.push_back(make_event(EventKind::Repeat, h.sequence_id));
    return;
  }
  if (!sequence_allowed(h, last_server_seq_))
    return refuse(TerminateReason::Sequence, sequence_detail(h, last_server_seq_), out, events);
  auto payload = decode_payload(h.type, frame.payload, Direction::ServerToClient);
  if (!payload) return refuse(reason_of(payload.error()), payload.error().detail, out, events);
  last_server_seq_ = h.sequence_id;
  ++delivered_;
  Event e = make_event(EventKind::Output, h.sequence_id);
  if (auto* text = std::get_if<TextPayload>(&*payload)) {
    e.text = std::move(text->text);
  } else if (auto* call = std::get_if<ToolCall>(&*payload)) {
    e.kind = EventKind::ToolCall;
    e.name = std::move(call->name);
    e.text = std::move(call->parameters_json);
  } else if (auto* hb = std::get_if<ServerHeartbeat>(&*payload)) {
    e.kind = EventKind::ServerTime;
    e.server_time_ns = hb->server_time_ns;
  }
  events.push_back(std::move(e));
}

std::uint32_t ClientSession::send_data(PayloadType type, ByteView payload, Bytes& out) {
  Bytes frame;
  append_frame(frame, ++last_client_seq_, type, payload);
  if (state_ == LinkState::Open) append(out, frame);
  sent_.keep(last_client_seq_, std::move(frame));
  return last_client_seq_;
}

std::uint32_t ClientSession::send_input(std::string_view text, Bytes& out) {
  return send_data(PayloadType::UserInput, as_bytes(text), out);
}

std::uint32_t ClientSession::send_tool_result(const ToolResult& result, Bytes& out) {
  return send_data(PayloadType::ToolResult, payload_bytes(result), out);
}

void ClientSession::tick(Bytes& out) {
  if (state_ != LinkState::Open) return;
  const std::uint64_t now = config_.clock();
  if (now - std::min(now, last_heartbeat_ns_) < config_.heartbeat_ns) return;
  last_heartbeat_ns_ = now;
  send_data(PayloadType::Heartbeat, payload_bytes(ClientHeartbeat{usage_}), out);
}

void ClientSession::terminate(TerminateReason reason, Bytes& out) {
  if (state_ == LinkState::Closed) return;
  append_terminate(out, next_terminate_id(), reason);
  state_ = LinkState::Closed;
}

std::uint32_t ClientSession::next_terminate_id() { return state_ == LinkState::Open ? ++last_client_seq_ : 0; }

void ClientSession::refuse(TerminateReason reason, std::string detail, Bytes& out, std::vector<Event>& events) {
  if (reason != TerminateReason::Incomplete) append_terminate(out, next_terminate_id(), reason);
  events.push_back(refused_event(reason, std::move(detail)));
  state_ = LinkState::Closed;
}

}  // namespace anthro::lz
