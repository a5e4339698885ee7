#include "layerzero/format.h"

#include <algorithm>
#include <array>

#include "layerzero/endpoint.h"
#include "layerzero/live.h"
#include "layerzero/trace.h"
#include "layerzero/workload.h"
#include "layerzero/view.h"
#include "util/bytes.h"
#include "util/json.h"

namespace anthro::lz {
namespace {

// The Type column's words: the table's payload types as the spec spells them, then the word for
// a type outside it (or bytes cut off before their type), which no anthro-v1 or HTTP row uses.
constexpr PayloadType kTypes[] = {PayloadType::SessionInit, PayloadType::SessionAck, PayloadType::UserInput,
                                  PayloadType::ModelOutput, PayloadType::ToolCall,   PayloadType::ToolResult,
                                  PayloadType::Heartbeat,   PayloadType::Terminate};
constexpr std::string_view kTypeWords[] = {"SESSION_INIT", "SESSION_ACK", "USER_INPUT", "MODEL_OUTPUT", "TOOL_CALL",
                                           "TOOL_RESULT",  "HEARTBEAT",   "TERMINATE",  "LZ_UNKNOWN"};
static_assert(std::size(kTypeWords) == std::size(kTypes) + 1);

constexpr std::string_view kAlpn[] = {"layer-zero"};
constexpr ProfileScheme kSchemes[] = {{"lz", true}, {"lz+lab", false}};
RegisteredId layer_zero_id;

std::uint8_t type_index(ByteView frame) {
  auto known = lz_known_type(frame);
  auto at = known ? std::ranges::find(kTypes, *known) : std::end(kTypes);
  return static_cast<std::uint8_t>(at - std::begin(kTypes));
}

// What is computed before the SessionToken is masked: the CRC-32C the bytes give and the
// token's fingerprint, each behind a presence byte.
std::string facts_of(ByteView frame) {
  std::string facts(1 + 4 + 1 + 8, '\0');
  if (auto crc = lz_computed_crc(frame)) {
    facts[0] = 1;
    for (int i = 0; i < 4; ++i) facts[1 + i] = static_cast<char>(*crc >> (8 * i));
  }
  if (auto token = lz_token_range(frame)) {
    const std::uint64_t fp = lz_token_fingerprint(frame.subspan(token->first, token->second - token->first));
    facts[5] = 1;
    for (int i = 0; i < 8; ++i) facts[6 + i] = static_cast<char>(fp >> (8 * i));
  }
  return facts;
}

LzFrameFacts read_facts(const KeptFrame& k) {
  LzFrameFacts f{k.bytes, k.dir, std::nullopt, std::nullopt};
  if (k.facts.size() != 14) return f;
  auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(k.facts[i]); };
  if (byte(0)) {
    std::uint32_t crc = 0;
    for (int i = 3; i >= 0; --i) crc = crc << 8 | byte(1 + static_cast<std::size_t>(i));
    f.computed_crc = crc;
  }
  if (byte(5)) {
    std::uint64_t fp = 0;
    for (int i = 7; i >= 0; --i) fp = fp << 8 | byte(6 + static_cast<std::size_t>(i));
    f.token_fingerprint = fp;
  }
  return f;
}

// The codec's own cut (ConnectionTracer), so the rows and the trace diagnosis reads agree.
class Dissector : public ConnectionDissector {
 public:
  Dissector() : tracer_({}, [this](const WireFrame& f) { cut(f); }) {}

  void feed(Direction dir, ByteView data, double ts, const DissectedSink& emit) override {
    sink_ = &emit;
    tracer_.feed(dir, data, ts);
    sink_ = nullptr;
  }
  void finish(std::optional<double> closed_ts, const DissectedSink& emit) override {
    sink_ = &emit;
    tracer_.finish(closed_ts);
    sink_ = nullptr;
  }
  std::any take_record() override { return tracer_.take(); }

 private:
  void cut(const WireFrame& w) {
    if (!sink_) return;
    DissectedFrame f;
    f.dir = w.dir, f.ts = w.ts, f.offset = w.offset, f.bytes = w.bytes;
    f.type = type_index(w.bytes);
    if (w.bytes.size() >= kHeaderSize) f.stream = parse_header(w.bytes.data()).sequence_id;
    if (auto token = lz_token_range(w.bytes)) f.secrets.push_back(*token);
    if (auto key = lz_api_key_range(w.bytes)) f.secrets.push_back(*key);
    f.facts = facts_of(w.bytes);
    if (w.refusal) f.refusal = std::string(to_string(w.refusal->reason)) + ": " + w.refusal->detail;
    f.decode_line = [&w](std::string_view conn) { return dump_json(lz_frame_json(std::string(conn), w)); };
    (*sink_)(f);
  }

  ConnectionTracer tracer_;
  const DissectedSink* sink_ = nullptr;  // the caller's, during feed and finish
};

KeptFrameView describe(const KeptFrame& k) {
  const LzFrameFacts facts = read_facts(k);
  KeptFrameView v;
  v.fields = lz_frame_fields(facts);
  v.summary = lz_summary(facts);
  v.pretty_json = lz_pretty_json(facts);
  if (facts.token_fingerprint)
    if (auto token = lz_token_range(k.bytes)) v.masked.push_back(*token);
  if (auto key = lz_api_key_range(k.bytes)) v.masked.push_back(*key);
  return v;
}

// Layer Zero opens with a SESSION_INIT: sequence id 0, type 0x10, and a length the codec's
// table allows for the model id the payload's first byte announces.
bool recognise(ByteView first) {
  if (first.size() < kHeaderSize + 1) return false;
  const FrameHeader h = parse_header(first.data());
  if (h.sequence_id != 0 || h.type != PayloadType::SessionInit) return false;
  // The length rule reads the payload's size and its first byte (the id's length); a longer
  // INIT than any model id allows fails it anyway, so nothing beyond kLongest is copied.
  constexpr std::size_t kLongest = 512;
  if (h.payload_length > kLongest) return false;
  std::array<std::uint8_t, kLongest> payload{};
  std::copy_n(first.begin() + kHeaderSize, std::min<std::size_t>(first.size() - kHeaderSize, h.payload_length),
              payload.begin());
  const ByteView sized(payload.data(), h.payload_length);
  return length_allowed(h.type, sized, Direction::ClientToServer);
}

// A capture's connections, in capture order, linked into sessions.
std::any join(std::vector<std::any>&& connections) {
  std::vector<ConnectionTrace> traces;
  traces.reserve(connections.size());
  for (auto& c : connections)
    if (auto* t = std::any_cast<ConnectionTrace>(&c)) traces.push_back(std::move(*t));
  return link_sessions(std::move(traces));
}

void merge(std::any& into, std::any&& more) {
  auto* a = std::any_cast<Trace>(&into);
  auto* b = std::any_cast<Trace>(&more);
  if (a && b) append_trace(*a, std::move(*b));
}

}  // namespace

const Trace& trace_of(const FormatRecords& records) {
  static const Trace kNone;
  auto it = records.find(layer_zero_id());
  const Trace* t = it == records.end() ? nullptr : std::any_cast<Trace>(&it->second);
  return t ? *t : kNone;
}

void set_trace(FormatRecords& records, Trace trace) { records[layer_zero_id()] = std::move(trace); }

ProfileId profile_id() { return layer_zero_id(); }

// No rollout plan of its own yet.
void register_layer_zero() {
  layer_zero_id.set(register_builtin_profile(Profile{.id = {}, .name = "layer-zero", .display_name = "Layer Zero", .alpn = kAlpn,
                 .recognise = recognise, .schemes = kSchemes, .checklist_id = "layer-zero", .rollout_plan_id = "",
                 .rides_on = {},
                 .dissect = [] { return std::unique_ptr<ConnectionDissector>(new Dissector); }, .describe = describe,
                 .frame_types = kTypeWords, .columns = {}, .join_records = join, .merge_records = merge}).id);
  register_session_runner(layer_zero_id(), run_layer_zero_session);
  register_emulation(layer_zero_id(), {layer_zero_endpoint_state, serve_layer_zero, true, [](EndpointConfig& c) {
                       emulation_options(c).tool_calls = true;  // only sessions that allow tools get a TOOL_CALL
                     }});
  register_layer_zero_faults();
  register_layer_zero_probes();
  register_live_workload(layer_zero_id(), run_layer_zero_workload);
}

}  // namespace anthro::lz
