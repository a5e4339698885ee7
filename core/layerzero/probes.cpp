// The probes of the layer-zero checklist (profiles/layer-zero.md): each reads the Layer Zero
// sessions among the observations' records (lz::trace_of), which the live client and a capture's
// dissector fill in the same shape (layerzero/trace.h), so every item is computed one way.
#include <cmath>
#include <map>

#include "diagnosis/probe_kit.h"
#include "layerzero/format.h"
#include "layerzero/resume.h"
#include "layerzero/workload.h"
#include "layerzero/schema_lint.h"
#include "metrics/stats.h"

namespace anthro::probe_kit {
namespace {

using lz::ConnectionTrace;
using lz::PayloadType;
using lz::SessionTrace;
using lz::TracedFrame;

// A client heartbeat this recent has not reached the server yet, as far as judging it goes: the
// server answers usage on its next send, and the wire and its scheduling take a little time.
constexpr double kUsageGraceS = 0.05;

bool from_server(const TracedFrame& f) { return f.dir == Direction::ServerToClient; }

// Calls `fn(connection, frame)` for every frame of a session, its connections in order.
template <class Fn>
void each_frame(const Observations& o, const SessionTrace& s, Fn fn) {
  for (std::size_t i : s.connections) {
    const ConnectionTrace& c = lz::trace_of(o.records).connections[i];
    for (const TracedFrame& f : c.frames) fn(c, f);
  }
}

EvidenceRef ref_to(const ConnectionTrace& c, double value) {
  EvidenceRef ref;
  ref.conn = c.name;
  ref.value = value;
  return ref;
}

std::string id_list(const std::vector<std::uint32_t>& ids, std::uint64_t count) {
  std::string out;
  for (auto id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  if (count > ids.size()) out += ",…";
  return out;
}

// Resumes refused with TERMINATE 7 (the client's clock more than 0.5 s from the server's), and
// this machine's own offset from chronyc when it was read.
void clock_skew(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::size_t resumes = 0, refused = 0;
  std::vector<EvidenceRef> refs;
  for (const auto& c : lz::trace_of(o.records).connections) {
    resumes += c.resuming();
    for (const auto& f : c.frames)
      if (f.type == PayloadType::Terminate && from_server(f) && f.value == static_cast<std::uint32_t>(lz::TerminateReason::ClockSkew)) {
        ++refused;
        refs.push_back(ref_to(c, 1));
      }
  }
  const auto& offset = o.system.clock_offset_ms;
  if (!j.enough(resumes + (offset ? 1 : 0))) return;
  j.show("resumes refused for clock skew", static_cast<double>(refused), "refusals");
  j.check("refusals", static_cast<double>(refused),
          Message("lz.clock_skew.crossed", {{"resumes", count(resumes)}}));
  if (offset) j.check("offset_ms", std::fabs(*offset), Message("lz.clock_skew.offset"));
  keep_refs(r, refs);
  MessageText pass = {Message("lz.clock_skew.pass", {{"resumes", count(resumes)}})};
  if (offset) pass.push_back(Message("lz.clock_skew.chronyc", {{"offset", number(*offset)}}));
  j.finish(pass);
}

// Frames a resume lost or delivered twice, by their original sequence ids (trace.h judges them
// against the last id each receiver said it had).
void resume_loss(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::size_t resumes = 0;
  std::uint64_t bad = 0;
  std::optional<Message> example;
  std::vector<EvidenceRef> refs;
  for (const auto& s : lz::trace_of(o.records).sessions) {
    resumes += s.resumes;
    std::uint64_t here = s.from_server.lost + s.from_server.repeated + s.from_client.lost + s.from_client.repeated;
    if (here == 0) continue;
    bad += here;
    const ConnectionTrace& first = lz::trace_of(o.records).connections[s.connections.front()];
    refs.push_back(ref_to(first, static_cast<double>(here)));
    if (!example)
      example = Message("lz.resume_loss.example", {{"conn", first.name},
                                                   {"server_lost", id_list(s.from_server.lost_ids, s.from_server.lost)},
                                                   {"server_repeated", id_list(s.from_server.repeated_ids, s.from_server.repeated)},
                                                   {"client_lost", id_list(s.from_client.lost_ids, s.from_client.lost)},
                                                   {"client_repeated", id_list(s.from_client.repeated_ids, s.from_client.repeated)}});
  }
  if (!j.enough(resumes)) return;
  j.show("frames lost or repeated across resumes", static_cast<double>(bad), "frames");
  j.check("frames", static_cast<double>(bad),
          Message("lz.resume_loss.crossed", {{"resumes", count(resumes)}, {"example", example ? MessageText{*example} : MessageText{}}}));
  keep_refs(r, refs);
  j.finish(Message("lz.resume_loss.pass", {{"resumes", count(resumes)}}));
}

// The gaps between a client's heartbeats on each connection (Layer Zero spec §3.2: every 200 ms).
void heartbeat_cadence(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::vector<double> gaps_ms;
  std::vector<EvidenceRef> refs;
  for (const auto& c : lz::trace_of(o.records).connections) {
    std::optional<double> last, widest;
    for (const auto& f : c.frames) {
      if (f.type != PayloadType::Heartbeat || from_server(f)) continue;
      if (last) {
        gaps_ms.push_back((f.ts - *last) * 1000);
        widest = std::max(widest.value_or(0), gaps_ms.back());
      }
      last = f.ts;
    }
    if (widest) refs.push_back(ref_to(c, *widest));
  }
  if (!j.enough(gaps_ms.size())) return;
  const double median = percentile(gaps_ms, 50);
  j.show("median gap between client heartbeats", median, "ms");
  j.check("median_ms", median, Message("lz.heartbeat_cadence.crossed", {{"heartbeats", count(gaps_ms.size() + 1)}}));
  keep_refs(r, refs);
  j.finish(Message("lz.heartbeat_cadence.pass", {{"median", number(median)}, {"gaps", count(gaps_ms.size())}}));
}

// MODEL_OUTPUT chunks beyond 512 B after the client reported usage ≥ 0xB3 on a session with
// constraint 0x10. A client reporting less (the Layer Zero spec's 0xAA, 66.7 %) is owed no relief,
// so its large chunks are not the server's doing.
void backpressure_ignored(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::size_t judged = 0, ignored = 0, below = 0;
  std::vector<EvidenceRef> refs;
  for (const auto& s : lz::trace_of(o.records).sessions) {
    if (!s.terms || !(s.terms->constraints & lz::kConstraintDynamicFrameSize)) continue;
    std::optional<double> pressed_since;  // when the usage reported last reached 0xB3
    each_frame(o, s, [&](const ConnectionTrace& c, const TracedFrame& f) {
      if (f.type == PayloadType::Heartbeat && !from_server(f)) {
        bool pressed = f.value >= lz::kBackpressureUsage;
        below += !pressed && f.value >= 0xAA;
        if (!pressed) pressed_since.reset();
        else if (!pressed_since) pressed_since = f.ts;
      } else if (f.type == PayloadType::ModelOutput && pressed_since && f.ts - *pressed_since > kUsageGraceS) {
        ++judged;
        if (f.payload_length <= lz::kBackpressureChunk) return;
        ++ignored;
        refs.push_back(ref_to(c, f.payload_length));
      }
    });
  }
  if (!j.enough(judged)) {
    if (below) add_reason(r, Message("lz.backpressure_ignored.below", {{"below", count(below)}}));
    return;
  }
  j.show("chunks over 512 B under backpressure", static_cast<double>(ignored), "chunks");
  j.check("chunks", static_cast<double>(ignored),
          Message("lz.backpressure_ignored.crossed", {{"judged", count(judged)}}));
  keep_refs(r, refs);
  j.finish(Message("lz.backpressure_ignored.pass", {{"judged", count(judged)}}));
}

// A TOOL_RESULT later than budget_ms × 0.8 after its TOOL_CALL, or none while the session went
// on past that deadline.
void tool_deadline(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::size_t judged = 0, late = 0;
  std::vector<EvidenceRef> refs;
  for (const auto& s : lz::trace_of(o.records).sessions) {
    if (!s.terms) continue;
    const double deadline_s = s.terms->budget_ms * 0.8 / 1000;
    std::map<std::uint32_t, std::pair<double, const ConnectionTrace*>> calls;  // call id → sent, where
    std::map<std::uint32_t, double> answered;  // call id → the first result
    double last_seen = 0;
    each_frame(o, s, [&](const ConnectionTrace& c, const TracedFrame& f) {
      last_seen = std::max(last_seen, f.ts);
      if (f.type == PayloadType::ToolCall && from_server(f)) calls.emplace(f.sequence_id, std::pair{f.ts, &c});
      if (f.type == PayloadType::ToolResult && !from_server(f)) answered.emplace(f.value, f.ts);
    });
    for (const auto& [id, call] : calls) {
      auto result = answered.find(id);
      const double waited = result != answered.end() ? result->second - call.first : last_seen - call.first;
      if (result == answered.end() && waited <= deadline_s) continue;  // not answered, and not yet due
      ++judged;
      if (waited <= deadline_s) continue;
      ++late;
      refs.push_back(ref_to(*call.second, waited * 1000));
    }
  }
  if (!j.enough(judged)) return;
  j.show("tool calls answered after budget × 0.8", static_cast<double>(late), "calls");
  j.check("late", static_cast<double>(late),
          Message("lz.tool_deadline.crossed", {{"judged", count(judged)}}));
  keep_refs(r, refs);
  j.finish(Message("lz.tool_deadline.pass", {{"judged", count(judged)}}));
}

// The tool's input_schema against its handler's, constraint by constraint (schema_lint.h).
void tool_schema(const ChecklistItem& item, const Observations& o, ItemResult& r) {
  Judge j(item, r);
  std::size_t differences = 0;
  std::string listed;
  for (const auto& p : o.tool_schemas) {
    auto diffs = lint_schemas(p.tool, p.tool_file, p.handler, p.handler_file);
    if (!diffs) {
      j.flag(Verdict::Warn, Message("plain", {{"text", diffs.error().detail}}));
      continue;
    }
    differences += diffs->size();
    for (std::size_t k = 0; k < diffs->size() && k < 3; ++k)
      listed += (listed.empty() ? "" : ", ") + ((*diffs)[k].path.empty() ? "/" : (*diffs)[k].path) + " " +
                (*diffs)[k].keyword + " (" + to_string((*diffs)[k].kind) + ")";
  }
  if (!j.enough(o.tool_schemas.size())) return;
  j.show("constraints on which the schemas disagree", static_cast<double>(differences), "constraints");
  j.check("differences", static_cast<double>(differences),
          Message("lz.tool_schema.crossed", {{"listed", listed}}));
  j.finish(Message("lz.tool_schema.pass", {{"n", count(o.tool_schemas.size())}}));
}

}  // namespace

}  // namespace anthro::probe_kit

namespace anthro::lz {

namespace {

const MessageTemplate kLayerZeroMessages[] = {
    {"lz.warning.session", "session {session}: {error}", "会话 {session}：{error}"},
    {"lz.progress.sessions", "{done}/{total} Layer Zero sessions", "{done}/{total} 个 Layer Zero 会话"},
    // Statistic names (ItemResult::statistic_name), shown through name_in.
    {"statistic.chunks over 512 B under backpressure", "chunks over 512 B under backpressure", "背压下超过 512 B 的块"},
    {"statistic.constraints on which the schemas disagree", "constraints on which the schemas disagree", "模式不一致的约束"},
    {"statistic.frames lost or repeated across resumes", "frames lost or repeated across resumes", "恢复中丢失或重复的帧"},
    {"statistic.median gap between client heartbeats", "median gap between client heartbeats", "客户端心跳间隔中位数"},
    {"statistic.resumes refused for clock skew", "resumes refused for clock skew", "因时钟偏差被拒绝的恢复"},
    {"statistic.tool calls answered after budget × 0.8", "tool calls answered after budget × 0.8", "超过 budget × 0.8 才应答的工具调用"},
    {"lz.clock_skew.crossed",
     "resumes refused with TERMINATE 7 clock-skew (client and server clocks more than 0.5 s apart), of {resumes}:",
     "{resumes} 次恢复中因 TERMINATE 7 clock-skew（客户端与服务器时钟相差超过 0.5 s）被拒绝的："},
    {"lz.clock_skew.offset", "this machine's clock offset (chronyc tracking)", "本机时钟偏移（chronyc tracking）"},
    {"lz.clock_skew.pass", "{resumes} resumes, none refused for clock skew", "{resumes} 次恢复，无一因时钟偏差被拒绝"},
    {"lz.clock_skew.chronyc", "chronyc offset {offset} ms", "chronyc 偏移 {offset} ms"},
    {"lz.resume_loss.example",
     "e.g. session of {conn}: server frames lost [{server_lost}] repeated [{server_repeated}], client frames lost "
     "[{client_lost}] repeated [{client_repeated}]",
     "例如 {conn} 的会话：服务器帧丢失 [{server_lost}] 重复 [{server_repeated}]，客户端帧丢失 [{client_lost}] 重复 "
     "[{client_repeated}]"},
    {"lz.resume_loss.crossed", "frames lost or delivered twice across {resumes} resumes ({example}):",
     "{resumes} 次恢复中丢失或重复投递的帧（{example}）："},
    {"lz.resume_loss.pass", "{resumes} resumes, every frame delivered once", "{resumes} 次恢复，每帧恰好投递一次"},
    {"lz.heartbeat_cadence.crossed", "client heartbeats {heartbeats} apart at a median of", "{heartbeats} 个客户端心跳的间隔中位数为"},
    {"lz.heartbeat_cadence.pass", "client heartbeats every {median} ms (median of {gaps} gaps)",
     "客户端心跳每 {median} ms 一次（{gaps} 个间隔的中位数）"},
    {"lz.backpressure_ignored.below",
     "{below} client heartbeats reported usage between 0xAA and 0xB2, below the 0xB3 (70 %) that asks for 512-byte "
     "chunks: no relief was due (the Layer Zero spec's 0xAA is 66.7 %)",
     "{below} 个客户端心跳报告的用量在 0xAA 与 0xB2 之间，低于要求 512 字节块的 0xB3（70 %）：无需缓解（Layer Zero 规范的 0xAA 为 66.7 %）"},
    {"lz.backpressure_ignored.crossed", "MODEL_OUTPUT chunks over 512 B after usage ≥ 0xB3 with constraint 0x10, of {judged}:",
     "{judged} 个中，在约束 0x10 下用量 ≥ 0xB3 后超过 512 B 的 MODEL_OUTPUT 块："},
    {"lz.backpressure_ignored.pass", "every one of {judged} MODEL_OUTPUT chunks under backpressure was ≤ 512 B",
     "背压下的 {judged} 个 MODEL_OUTPUT 块都 ≤ 512 B"},
    {"lz.tool_deadline.crossed", "TOOL_RESULTs later than budget_ms × 0.8 (or never sent), of {judged} TOOL_CALLs:",
     "{judged} 个 TOOL_CALL 中晚于 budget_ms × 0.8（或从未发送）的 TOOL_RESULT："},
    {"lz.tool_deadline.pass", "every one of {judged} TOOL_CALLs answered within budget_ms × 0.8",
     "{judged} 个 TOOL_CALL 都在 budget_ms × 0.8 内得到应答"},
    {"lz.tool_schema.crossed", "constraints on which a tool's input_schema and its handler's schema disagree ({listed}):",
     "工具的 input_schema 与其处理程序的模式不一致的约束（{listed}）："},
    {"lz.tool_schema.pass", "{n} tool and handler schemas agree on every constraint", "{n} 个工具与处理程序模式在每个约束上一致"},
};

}  // namespace

void register_layer_zero_probes() {
  using namespace probe_kit;
  register_messages(kLayerZeroMessages);
  const std::pair<const char*, Probe> kProbes[] = {
      {"lz-clock-skew", clock_skew},
      {"lz-resume-loss", resume_loss},
      {"lz-heartbeat-cadence", heartbeat_cadence},
      {"lz-backpressure-ignored", backpressure_ignored},
      {"lz-tool-deadline", tool_deadline},
      {"lz-tool-schema", tool_schema},
  };
  for (const auto& [name, probe] : kProbes) register_probe(name, probe, lz::profile_id());
}

}  // namespace anthro::lz
