#include "layerzero/trace.h"

#include <algorithm>
#include <map>

namespace anthro::lz {

namespace {

std::size_t index_of(Direction dir) { return dir == Direction::ClientToServer ? 0 : 1; }

// The field of a frame the checklist reads, from its payload (0 when the payload cannot hold it).
void read_fields(TracedFrame& f, ByteView payload) {
  switch (f.type) {
    case PayloadType::Heartbeat:
      if (f.dir == Direction::ClientToServer)
        if (auto hb = decode_client_heartbeat(payload)) f.value = hb->buffer_usage;
      break;
    case PayloadType::ToolResult:
      if (auto r = decode_tool_result(payload)) f.value = r->call_sequence_id;
      break;
    case PayloadType::Terminate:
      if (auto t = decode_terminate(payload)) f.value = t->code;
      break;
    case PayloadType::ToolCall:
      if (auto c = decode_tool_call(payload)) f.name = std::move(c->name);
      break;
    default: break;
  }
}

bool is_data(PayloadType type) { return !is_session_frame(type) && type != PayloadType::Terminate; }

void add_ids(std::vector<std::uint32_t>& ids, std::uint64_t from, std::uint64_t to) {
  for (std::uint64_t id = from; id <= to && ids.size() < SequenceFaults::kMaxListed; ++id)
    ids.push_back(static_cast<std::uint32_t>(id));
}

// One direction's data frames of a session against the receiver's count: the last id it had.
class SequenceCursor {
 public:
  explicit SequenceCursor(SequenceFaults& faults) : faults_(faults) {}
  void restart(std::uint32_t last_received) { last_ = last_received; }
  void frame(std::uint32_t id) {
    if (!last_) {  // the session's start was not seen: count from here
      last_ = id;
      return;
    }
    if (id <= *last_) {
      ++faults_.repeated;
      add_ids(faults_.repeated_ids, id, id);
      return;
    }
    if (id > *last_ + 1) {
      faults_.lost += id - *last_ - 1;
      add_ids(faults_.lost_ids, std::uint64_t{*last_} + 1, id - 1);
    }
    last_ = id;
  }

 private:
  SequenceFaults& faults_;
  std::optional<std::uint32_t> last_;
};

void judge_sequences(const Trace& trace, SessionTrace& s) {
  SequenceCursor from_client(s.from_client), from_server(s.from_server);
  for (std::size_t i : s.connections) {
    const ConnectionTrace& c = trace.connections[i];
    if (c.init && !c.resuming()) {
      from_client.restart(0);
      from_server.restart(0);
    } else if (c.resuming() && c.ack) {
      from_server.restart(c.init->resume->last_server_sequence_id);
      from_client.restart(c.ack->last_client_sequence_id);
    }
    for (const TracedFrame& f : c.frames)
      if (is_data(f.type)) (f.dir == Direction::ClientToServer ? from_client : from_server).frame(f.sequence_id);
  }
}

bool refused_by_server(const ConnectionTrace& c) {
  return std::any_of(c.frames.begin(), c.frames.end(), [](const TracedFrame& f) {
    return f.dir == Direction::ServerToClient && f.type == PayloadType::Terminate;
  });
}

}  // namespace

ConnectionTracer::ConnectionTracer(std::string name, OnWire on_wire) : on_wire_(std::move(on_wire)) {
  trace_.name = std::move(name);
}

// The splitter's refusal with the bytes it judged, passed on as a wire frame.
FrameSplitter::OnRefused ConnectionTracer::refused_bytes(Direction dir, double ts) const {
  if (!on_wire_) return {};
  return [this, dir, ts](const FrameRefusal& r, ByteView bytes) { on_wire_(WireFrame{dir, ts, r.offset, bytes, &r}); };
}

void ConnectionTracer::feed(Direction dir, ByteView data, double ts) {
  if (!trace_.opened) trace_.opened = ts;
  last_fed_ = ts;
  FrameSplitter& splitter = dir == Direction::ClientToServer ? from_client_ : from_server_;
  auto refusal = splitter.feed(data, [&](const FrameView& f) { on_frame(dir, f, ts); }, refused_bytes(dir, ts));
  note_refusal(dir, refusal, ts);
}

void ConnectionTracer::finish(std::optional<double> ts) {
  if (ts) trace_.closed = ts;
  const double at = ts.value_or(trace_.opened.value_or(0));
  // A row list orders by time: a frame cut off without a close seen is stamped with the last
  // bytes that came, not the connection's opening.
  const double row_at = ts.value_or(last_fed_.value_or(at));
  note_refusal(Direction::ClientToServer, from_client_.finish(refused_bytes(Direction::ClientToServer, row_at)), at);
  note_refusal(Direction::ServerToClient, from_server_.finish(refused_bytes(Direction::ServerToClient, row_at)), at);
}

void ConnectionTracer::note_refusal(Direction dir, const std::optional<FrameRefusal>& refusal, double ts) {
  if (!refusal || refused_[index_of(dir)]) return;
  refused_[index_of(dir)] = true;
  trace_.refusals.push_back({dir, ts, *refusal});
}

void ConnectionTracer::on_frame(Direction dir, const FrameView& frame, double ts) {
  if (on_wire_) on_wire_(WireFrame{dir, ts, frame.offset, frame.wire, nullptr});
  TracedFrame f;
  f.ts = ts;
  f.dir = dir;
  f.sequence_id = frame.header.sequence_id;
  f.type = frame.header.type;
  f.payload_length = frame.header.payload_length;
  read_fields(f, frame.payload);
  if (f.type == PayloadType::SessionInit && dir == Direction::ClientToServer && !trace_.init) {
    if (auto init = decode_session_init(frame.payload)) {
      trace_.init = std::move(*init);
      trace_.init_ts = ts;
    }
  } else if (f.type == PayloadType::SessionAck && dir == Direction::ServerToClient && !trace_.ack) {
    if (auto ack = decode_session_ack(frame.payload)) {
      trace_.ack = *ack;
      trace_.ack_ts = ts;
    }
  }
  trace_.frames.push_back(std::move(f));
}

Trace link_sessions(std::vector<ConnectionTrace> connections) {
  std::stable_sort(connections.begin(), connections.end(), [](const ConnectionTrace& a, const ConnectionTrace& b) {
    return a.opened.value_or(0) < b.opened.value_or(0);
  });
  Trace trace;
  trace.connections = std::move(connections);
  std::map<SessionToken, std::size_t> by_token;  // every token an ACK issued → its session
  for (std::size_t i = 0; i < trace.connections.size(); ++i) {
    const ConnectionTrace& c = trace.connections[i];
    std::optional<std::size_t> session;
    if (c.resuming())
      if (auto it = by_token.find(c.init->resume->token); it != by_token.end()) session = it->second;
    if (!session) {
      session = trace.sessions.size();
      SessionTrace fresh;
      fresh.opened_unseen = !c.init || c.resuming();
      if (c.init) fresh.terms = c.init->terms;
      trace.sessions.push_back(std::move(fresh));
    }
    SessionTrace& s = trace.sessions[*session];
    s.connections.push_back(i);
    if (c.resuming() && c.ack) ++s.resumes;
    if (c.resuming() && !c.ack && refused_by_server(c)) ++s.resumes_refused;
    if (c.ack) by_token[c.ack->token] = *session;
  }
  for (auto& s : trace.sessions) judge_sequences(trace, s);
  return trace;
}

void append_trace(Trace& into, Trace more) {
  const std::size_t shift = into.connections.size();
  for (auto& c : more.connections) into.connections.push_back(std::move(c));
  for (auto& s : more.sessions) {
    for (auto& i : s.connections) i += shift;
    into.sessions.push_back(std::move(s));
  }
}

}  // namespace anthro::lz
