#include "model/replay_model.h"

#include <algorithm>

namespace anthro {
namespace {

constexpr double kReplayMsPerS = 1000;

// A recorded wait as the replay plays it: never negative, never beyond kMaxReplayWaitMs.
double replay_wait(double ms, std::uint32_t& cut) {
  if (!(ms > 0)) return 0;
  if (ms <= kMaxReplayWaitMs) return ms;
  ++cut;
  return kMaxReplayWaitMs;
}

// The server's message without the "CODE: " the record writes before it.
std::string recorded_message(const RequestResult& r) {
  std::string message = r.error.value_or("");
  std::string prefix = std::to_string(r.error_code.value_or(0)) + ": ";
  if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
  return message;
}

// One step per token frame, with the text it carried (a frame of no token passes its text to
// the next) and the gap before it; a non-streamed reply is one step holding its whole text.
void recorded_steps(const RequestResult& r, std::string_view text, RecordedStream& s) {
  std::size_t offset = 0;
  std::string pending;
  std::optional<double> last;
  for (const TokenArrival& a : r.timeline.tokens) {
    std::size_t take = std::min<std::size_t>(a.text_bytes, text.size() - std::min(offset, text.size()));
    pending += text.substr(std::min(offset, text.size()), take);
    offset += a.text_bytes;
    if (a.count == 0) continue;
    double gap = last ? replay_wait((a.t - *last) * kReplayMsPerS, s.waits_cut) : 0;
    s.plan.tokens.push_back({std::move(pending), gap});
    pending.clear();
    last = a.t;
  }
  if (s.plan.tokens.empty() && r.end == RequestEnd::Response && !text.empty())
    s.plan.tokens.push_back({std::string(text), 0});
}

// The wait before the first token (else before the end), split as the server's timing said.
void recorded_ttft(const RequestResult& r, RecordedStream& s) {
  const RequestTimeline& t = r.timeline;
  std::optional<double> first;
  for (const TokenArrival& a : t.tokens)
    if (a.count > 0) {
      first = a.t;
      break;
    }
  if (!first) first = t.end;
  double ttft = replay_wait(first ? (*first - t.request_written) * kReplayMsPerS : 0, s.waits_cut);
  if (const auto& timing = r.server_timing) {
    s.plan.queue_ms = std::min(ttft, timing->queue_us / kReplayMsPerS);
    s.plan.context_wait_ms = std::min(ttft - s.plan.queue_ms, timing->context_wait_us / kReplayMsPerS);
  }
  s.plan.prefill_ms = ttft - s.plan.queue_ms - s.plan.context_wait_ms;
}

void recorded_end(const RequestResult& r, RecordedStream& s) {
  auto sent = static_cast<std::uint32_t>(s.plan.tokens.size());
  switch (r.end) {
    case RequestEnd::Response:
      s.plan.stop_reason = r.stop_reason.value_or(StopReason::EndTurn);
      if (s.plan.stop_reason == StopReason::Cancelled) s.plan.stop_reason = StopReason::EndTurn;
      return;
    case RequestEnd::Error:
    case RequestEnd::ConnectionError: {
      auto code = static_cast<std::uint16_t>(std::clamp(r.error_code.value_or(500), 100, 999));
      s.plan.error = ReplyPlan::Error{code, r.retry_after_ms.value_or(0), recorded_message(r), sent};
      return;
    }
    case RequestEnd::Open:
    case RequestEnd::ConnectionClosed:
    case RequestEnd::ProtocolError: s.plan.reset_after_token = sent; return;
    default: return;  // the client ended it: what the server would have sent after is unknown
  }
}

// Did the server send anything for it: a token, or an end of its own.
bool server_answered(const RequestResult& r) {
  switch (r.end) {
    case RequestEnd::Response:
    case RequestEnd::Error:
    case RequestEnd::ConnectionError:
    case RequestEnd::ConnectionClosed:
    case RequestEnd::ProtocolError: return r.timeline.end.has_value() || r.figures.tokens > 0;
    default: return r.figures.tokens > 0;
  }
}

}  // namespace

std::optional<RecordedStream> recorded_stream(const RequestResult& r, std::string_view text, ProfileId protocol) {
  if (!server_answered(r) || r.timeline.request_written <= 0) return std::nullopt;
  RecordedStream s;
  s.protocol = protocol;
  s.probe = r.probe;
  recorded_steps(r, text, s);
  recorded_ttft(r, s);
  recorded_end(r, s);
  return s;
}

ReplayModel::ReplayModel(std::vector<RecordedStream> streams) : streams_(std::move(streams)) {
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    std::string probe = streams_[i].probe.value_or("");
    queues_[{streams_[i].protocol, probe}].streams.push_back(i);
    queues_[{std::nullopt, probe}].streams.push_back(i);
    all_.streams.push_back(i);
  }
}

ReplayModel::Queue* ReplayModel::find(const Key& key) {
  auto it = queues_.find(key);
  return it == queues_.end() ? nullptr : &it->second;
}

ReplyPlan ReplayModel::plan(ProfileId protocol, const ReplyRequest& request) {
  std::string probe = request.probe.value_or("");
  Queue* queue = nullptr;
  for (const Key& key : {Key{protocol, probe}, Key{protocol, ""}, Key{std::nullopt, probe}, Key{std::nullopt, ""}})
    if ((queue = find(key))) break;
  if (!queue) queue = &all_;
  if (queue->streams.empty()) return {};
  ReplyPlan plan = streams_[queue->streams[queue->next++ % queue->streams.size()]].plan;
  plan.input_tokens = input_tokens_of(request.prompt);
  if (plan.tokens.size() > request.max_tokens) {
    plan.tokens.resize(request.max_tokens);
    plan.stop_reason = StopReason::MaxTokens;
    if (plan.error && plan.error->after_tokens > request.max_tokens) plan.error.reset();
    if (plan.reset_after_token && *plan.reset_after_token > request.max_tokens) plan.reset_after_token.reset();
  }
  return plan;
}

std::map<ProfileId, std::size_t> ReplayModel::counts() const {
  std::map<ProfileId, std::size_t> out;
  for (const auto& s : streams_) ++out[s.protocol];
  return out;
}

}  // namespace anthro
