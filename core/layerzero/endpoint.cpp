// The server side of one Layer Zero connection (../shared/spec/profiles/layer-zero.md):
// the socket-free engine of layerzero/session.h driven over a ByteStream. A USER_INPUT gets the
// simulated model's reply, queued in the session (so it survives a cut) and played as
// MODEL_OUTPUT chunks at the model's pace; once it is all sent the session ends with TERMINATE
// normal. The lz-cut fault closes a connection as its Nth MODEL_OUTPUT goes out, that frame lost.
#include "layerzero/endpoint.h"

#include <charconv>

#include "layerzero/format.h"
#include "layerzero/session.h"
#include "model/faults.h"
#include "net/deadline.h"

namespace anthro {

using namespace net;

namespace {

constexpr double kLongestNapS = 0.05;  // how often the pump looks at heartbeats and tool deadlines
// Replies queued and not yet sent, per session: a client sending input after input faster than
// the model answers is told its budget is exceeded instead of growing the queue without end.
constexpr std::size_t kMaxQueuedPieces = 1 << 16;
// The tool the simulated model calls (--lz-tool-calls): the Layer Zero spec's weather lookup.
constexpr const char* kToolName = "get_weather";
constexpr const char* kToolParameters = "{\"city\":\"北京\",\"unit\":\"celsius\"}";

std::uint64_t ms_to_ns(double ms) { return ms > 0 ? static_cast<std::uint64_t>(ms * 1e6) : 0; }

// What every Layer Zero connection of one endpoint shares (ServerState::formats).
struct LzEndpointState {
  lz::ServerConfig config;     // the token key, the real clock
  lz::SessionStore sessions;   // sessions across connections; loop thread only
  std::optional<std::uint32_t> cut_after;  // the lz-cut fault: the MODEL_OUTPUT that closes the connection
  bool tool_calls = false;                 // --lz-tool-calls
};

// lz-cut's N: a count of frames.
std::optional<std::string> check_frame_count(std::string_view text) {
  std::uint32_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty() || n == 0)
    return "N \"" + std::string(text) + "\" is not a count of frames (1..4294967295)";
  return std::nullopt;
}

std::optional<std::string> no_argument(std::string_view) { return std::nullopt; }

LzEndpointState& lz_state(ServerState& state) {
  return *std::any_cast<std::shared_ptr<LzEndpointState>&>(state.formats.at(lz::profile_id()));
}

class LzConnection : public std::enable_shared_from_this<LzConnection> {
 public:
  LzConnection(std::unique_ptr<ByteStream> stream, ServerState& state, Admission admission)
      : stream_(std::move(stream)), state_(state), admission_(admission), writer_(*stream_, state.config.send_timeout_s),
        engine_(lz_state(state).config, lz_state(state).sessions), deadline_(*stream_), nap_(stream_->socket().get_executor()) {}

  awaitable<void> run() {
    auto self = shared_from_this();
    if (admission_ == Admission::Refuse) {  // Layer Zero has no "busy" reason: the peer just sees a close
      co_await close_gracefully(*stream_, refusal_timeout_s(state_.config));
      co_return;
    }
    deadline_.arm(state_.config.handshake_timeout_s);
    co_spawn(stream_->socket().get_executor(), pump(self), report_failure([self](const std::string& what) {
               self->state_.log("layer-zero connection: internal error: " + what);
               self->stop();
             }));
    auto failure = co_await failure_of(read_loop());
    if (failure) state_.log("layer-zero connection: internal error: " + *failure);
    if (deadline_.expired()) ++state_.counters.timeouts;
    stop();
    co_await writer_.flush();
    if (!closed_) co_await close_gracefully(*stream_, refusal_timeout_s(state_.config));
    writer_.stop();
    deadline_.disarm();
    stream_->close();
  }

 private:
  awaitable<void> read_loop() {
    std::vector<std::uint8_t> buf(64 * 1024);
    std::vector<lz::Event> events;
    while (!stopped_ && engine_.state() != lz::LinkState::Closed) {
      std::size_t n = co_await stream_->read_some(buf.data(), buf.size());
      Bytes out;
      if (n == 0) engine_.end_of_stream(events);
      else engine_.receive(ByteView(buf.data(), n), out, events);
      if (!out.empty()) writer_.send(std::move(out));
      for (const auto& e : events) handle(e);
      events.clear();
      if (n == 0) closed_ = true;
    }
  }

  void handle(const lz::Event& e) {
    switch (e.kind) {
      case lz::EventKind::Opened:
      case lz::EventKind::Resumed: arm_idle(); break;
      case lz::EventKind::Input: start_reply(e.text); break;
      case lz::EventKind::ToolResult:
      case lz::EventKind::ToolExpired: last_output_ns_ = engine_.now(); break;  // the reply starts now
      case lz::EventKind::Refused: ++state_.counters.protocol_errors; break;
      case lz::EventKind::Busy:
        ++state_.counters.refused_connections;
        state_.log("layer-zero: a fresh session refused: " + e.detail);
        break;
      default: break;
    }
    nap_.cancel();  // the pump looks again
  }

  // Idle while nothing is queued to send; a reply in flight keeps the connection.
  void arm_idle() {
    auto& s = engine_.session();
    if (s && !s->outbox.empty()) deadline_.disarm();
    else deadline_.arm(state_.config.idle_timeout_s);
  }

  void start_reply(const std::string& prompt) {
    ++state_.counters.requests;
    state_.metrics.request();
    auto& session = *engine_.session();
    ReplyRequest request{session.terms.model_id, prompt, state_.config.default_max_tokens, state_.request_number++, {}};
    const ReplyPlan plan = state_.model.plan(request);
    if (session.outbox.size() + plan.tokens.size() > kMaxQueuedPieces) {
      Bytes out;
      engine_.terminate(lz::TerminateReason::BudgetExceeded, out);
      writer_.send(std::move(out));
      return;
    }
    for (std::size_t i = 0; i < plan.tokens.size(); ++i) {
      double delay = i == 0 ? plan.queue_ms + plan.context_wait_ms + plan.prefill_ms : plan.tokens[i].delay_ms;
      if (plan.stall_before_token && *plan.stall_before_token == i) delay += plan.stall_ms;
      session.outbox.push_back({plan.tokens[i].text, ms_to_ns(delay)});
    }
    session.end_when_sent = true;
    last_output_ns_ = engine_.now();
    deadline_.disarm();
    if (lz_state(state_).tool_calls && (session.terms.constraints & lz::kConstraintTools)) call_tool();
  }

  // The simulated model asks for a tool before it answers; the reply waits for the result or
  // the deadline (the engine's tick expires it).
  void call_tool() {
    Bytes out;
    engine_.send_tool_call(lz::ToolCall{kToolName, kToolParameters}, out);
    writer_.send(std::move(out));
  }

  static awaitable<void> pump(std::shared_ptr<LzConnection> self) { co_await self->pump_loop(); }

  awaitable<void> pump_loop() {
    while (!stopped_) {
      Bytes out;
      std::vector<lz::Event> events;
      engine_.tick(out, events);
      for (const auto& e : events) handle(e);
      const bool cut = play_due_output(out);
      if (!cut) end_if_answered(out);
      if (!out.empty()) co_await writer_.write(std::move(out));
      if (cut || engine_.state() == lz::LinkState::Closed) co_return co_await close_after_flush(cut);
      co_await writer_.wait_below(state_.config.max_queued_bytes);
      if (writer_.failed()) co_return stop();
      co_await sleep_for(nap_, next_nap_s());
    }
  }

  // Sends the pieces whose time has come. True when lz-cut fires: the frame of the piece that
  // reached the count is dropped from `out` (it stays in the session's resend buffer).
  bool play_due_output(Bytes& out) {
    const auto& cut_after = lz_state(state_).cut_after;
    for (;;) {
      const std::size_t before = out.size();
      auto text = take_due_text();
      if (!text || !engine_.send_output(*text, out)) return false;
      last_output_ns_ = engine_.now();
      auto& s = *engine_.session();
      if (cut_after && s.cuts == 0 && s.output_frames >= *cut_after) {
        ++s.cuts;
        out.resize(before);
        return true;
      }
    }
  }

  // The pieces due now as one text: the first whose delay since the previous send has passed,
  // and those after it with no delay of their own, so a burst goes out in large chunks (the
  // engine cuts them to the chunk limit). Nothing while a tool call waits for its result.
  std::optional<std::string> take_due_text() {
    const auto& s = engine_.session();
    if (!engine_.current() || !s->tool_calls.empty() || s->outbox.empty()) return std::nullopt;
    if (engine_.now() < last_output_ns_ + s->outbox.front().delay_ns) return std::nullopt;
    std::string text = std::move(s->outbox.front().text);
    s->outbox.pop_front();
    while (!s->outbox.empty() && s->outbox.front().delay_ns == 0) {
      text += s->outbox.front().text;
      s->outbox.pop_front();
    }
    return text;
  }

  void end_if_answered(Bytes& out) {
    auto& s = engine_.session();
    if (engine_.current() && s->end_when_sent && s->outbox.empty()) engine_.terminate(lz::TerminateReason::Normal, out);
  }

  awaitable<void> close_after_flush(bool cut) {
    co_await writer_.flush();
    stop();
    if (cut) stream_->close();  // the cut: no TERMINATE, the peer sees the stream end
    else deadline_.arm(refusal_timeout_s(state_.config));  // a peer that does not close after TERMINATE
  }

  double next_nap_s() const {
    const auto& s = engine_.session();
    if (!s || !engine_.current() || s->outbox.empty() || !s->tool_calls.empty()) return kLongestNapS;
    const std::uint64_t due = last_output_ns_ + s->outbox.front().delay_ns, now = engine_.now();
    return due <= now ? 0.0 : std::min(kLongestNapS, static_cast<double>(due - now) / 1e9);
  }

  void stop() {
    stopped_ = true;
    nap_.cancel();
  }

  std::unique_ptr<ByteStream> stream_;
  ServerState& state_;
  Admission admission_;
  WriteQueue writer_;
  lz::ServerConnection engine_;
  Deadline deadline_;
  asio::steady_timer nap_;
  std::uint64_t last_output_ns_ = 0;  // when the previous piece went out (or the input came)
  bool stopped_ = false, closed_ = false;
};

}  // namespace

awaitable<void> serve_layer_zero(ServedConnection c, ServerState& state) {
  auto connection = std::make_shared<LzConnection>(std::move(c.stream), state, c.admission);
  co_await connection->run();
}

std::any layer_zero_endpoint_state(const EndpointConfig& c) {
  auto s = std::make_shared<LzEndpointState>();
  Key32 token_key{};
  random_bytes(token_key.data(), token_key.size());  // per start: tokens of an earlier run are refused
  s->config.token_keys = {token_key};
  s->config.max_frame_bytes = c.max_prompt_bytes + lz::kFrameOverhead;  // a prompt is one USER_INPUT
  const auto& f = c.model.faults.own;  // checked when parsed
  if (auto cut = f.find("lz-cut"); cut != f.end()) std::from_chars(cut->second.data(), cut->second.data() + cut->second.size(), s->cut_after.emplace());
  s->config.resend_shift = f.contains("lz-resume-skip") ? 1 : f.contains("lz-resume-repeat") ? -1 : 0;
  s->config.ignore_backpressure = f.contains("lz-ignore-backpressure");
  s->tool_calls = lz::emulation_options(c).tool_calls;
  s->config.required_api_key = c.required_api_key;
  return s;
}

void register_layer_zero_faults() {
  register_fault("lz-cut", "N", check_frame_count);
  register_fault("lz-resume-repeat", "", no_argument);
  register_fault("lz-resume-skip", "", no_argument);
  register_fault("lz-ignore-backpressure", "", no_argument);
}

lz::EmulationOptions& lz::emulation_options(EndpointConfig& config) {
  std::any& options = config.own_options[lz::profile_id()];
  if (!std::any_cast<EmulationOptions>(&options)) options = EmulationOptions{};
  return *std::any_cast<EmulationOptions>(&options);
}

lz::EmulationOptions lz::emulation_options(const EndpointConfig& config) {
  auto it = config.own_options.find(lz::profile_id());
  const auto* set = it == config.own_options.end() ? nullptr : std::any_cast<EmulationOptions>(&it->second);
  return set ? *set : EmulationOptions{};
}

}  // namespace anthro
