#include "rollout/gates.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "metrics/stats.h"

namespace anthro {
namespace {

std::string pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g %%", v * 100);
  return buf;
}

// "; need N more trials" or what can never be proven.
Message more_trials(const std::optional<std::uint64_t>& need, const char* never_id) {
  return need ? Message("gate.need_trials", {{"need", std::to_string(*need)}}) : Message(never_id);
}

}  // namespace

void set_reason(GateResult& g, MessageText text) {
  g.reason = render(text);
  g.reason_text = std::move(text);
}

void add_reason(GateResult& g, Message m) {
  g.reason_text.push_back(std::move(m));
  g.reason = render(g.reason_text);
}

GateResult judge_rate(std::uint64_t successes, std::uint64_t n, double target) {
  GateResult g;
  g.n = n;
  g.statistic = n ? static_cast<double>(successes) / static_cast<double>(n) : 0;
  g.interval = wilson(successes, n);
  Message seen("gate.rate", {{"count", std::to_string(successes)}, {"n", std::to_string(n)}, {"low", pct(g.interval.low)},
                             {"high", pct(g.interval.high)}, {"target", pct(target)}});
  set_reason(g, {seen});
  if (n > 0 && g.interval.low >= target) {
    g.verdict = Verdict::Pass;
  } else if (n > 0 && g.interval.high < target) {
    g.verdict = Verdict::Fail;
  } else {
    g.need_more = trials_needed(successes, n, target);
    add_reason(g, more_trials(g.need_more, "gate.no_trials_prove"));
  }
  return g;
}

GateResult judge_bad_rate(std::uint64_t bad, std::uint64_t n, double limit) {
  GateResult g = judge_rate(n - std::min(bad, n), n, 1 - limit);
  g.statistic = n ? static_cast<double>(bad) / static_cast<double>(n) : 0;
  g.interval = {1 - g.interval.high, 1 - g.interval.low};
  set_reason(g, {Message("gate.rate", {{"count", std::to_string(bad)}, {"n", std::to_string(n)}, {"low", pct(g.interval.low)},
                                       {"high", pct(g.interval.high)}, {"target", pct(limit)}})});
  if (g.verdict == Verdict::Inconclusive) add_reason(g, more_trials(g.need_more, "gate.cannot_prove"));
  return g;
}

namespace {

std::vector<double> judged_values(std::span<const double> samples, Better better) {
  std::vector<double> out;
  out.reserve(samples.size());
  for (double v : samples)
    if (better == Better::Lower) out.push_back(v);
    else if (v > 0) out.push_back(1 / v);  // a rate of 0 has no time per token
  return out;
}

}  // namespace

GateResult judge_latency(std::span<const double> candidate_in, std::span<const double> baseline_in, double margin,
                         std::uint64_t seed, std::size_t min_n, Better better) {
  GateResult g;
  const std::vector<double> candidate = judged_values(candidate_in, better), baseline = judged_values(baseline_in, better);
  g.n = std::min(candidate.size(), baseline.size());
  if (g.n < min_n) {
    g.need_more = min_n - g.n;
    set_reason(g, {Message("gate.need_each_side", {{"need", std::to_string(*g.need_more)}})});
    return g;
  }
  std::vector<double> shrunk(candidate.begin(), candidate.end());
  for (double& v : shrunk) v /= 1 + margin;
  MannWhitney shift = mann_whitney(shrunk, baseline, Alternative::Greater);
  g.p_value = shift.p;
  std::vector<double> ratios = bootstrap_p99_ratios(candidate, baseline, seed, 2000);
  g.interval = {percentile(ratios, 2.5), percentile(ratios, 97.5)};  // bootstrap_p99_ratio at level 0.95
  g.statistic = percentile(candidate, 99) / percentile(baseline, 99);
  double limit = 1 + margin;
  double at_or_under = static_cast<double>(std::count_if(ratios.begin(), ratios.end(), [&](double r) { return !(r > limit); }));
  g.worse_p = std::min({1.0, shift.p, 2 * at_or_under / static_cast<double>(ratios.size())});
  Message line("gate.latency", {{"ratio", message_printf("%.3f", g.statistic)}, {"low", message_printf("%.3f", g.interval.low)},
                                {"high", message_printf("%.3f", g.interval.high)}, {"limit", message_printf("%.3f", limit)}});
  Message shift_p("gate.shift_p", {{"p", message_printf("%.3g", shift.p)}});
  if (better == Better::Higher) shift_p = Message("gate.per_unit", {{"what", {shift_p}}});
  set_reason(g, {line, shift_p});
  if (shift.p < 0.05 || g.interval.low > limit) g.verdict = Verdict::Fail;
  else if (g.interval.high <= limit) g.verdict = Verdict::Pass;
  else g.verdict = Verdict::Inconclusive;
  return g;
}

GateResult judge_rate_difference(std::uint64_t bad_candidate, std::uint64_t n_candidate, std::uint64_t bad_baseline,
                                 std::uint64_t n_baseline, double margin) {
  GateResult g;
  g.n = std::min(n_candidate, n_baseline);
  auto rate = [](std::uint64_t bad, std::uint64_t n) { return n ? static_cast<double>(bad) / static_cast<double>(n) : 0.0; };
  g.statistic = rate(bad_candidate, n_candidate) - rate(bad_baseline, n_baseline);
  g.interval = proportion_difference(bad_candidate, n_candidate, bad_baseline, n_baseline);
  // The one-sided p of "difference > margin": the z at which the lower bound meets the margin.
  auto lower_at = [&](double z) { return proportion_difference(bad_candidate, n_candidate, bad_baseline, n_baseline, z).low; };
  double low = 0, high = 40;
  if (lower_at(0) <= margin) high = 0;
  for (int i = 0; i < 100 && high - low > 1e-9; ++i) (lower_at((low + high) / 2) > margin ? low : high) = (low + high) / 2;
  g.worse_p = 0.5 * std::erfc(low / std::sqrt(2.0));
  set_reason(g, {Message("gate.rate_difference", {{"bad_candidate", std::to_string(bad_candidate)}, {"n_candidate", std::to_string(n_candidate)},
                                                 {"bad_baseline", std::to_string(bad_baseline)}, {"n_baseline", std::to_string(n_baseline)},
                                                 {"difference", message_printf("%+.4g", g.statistic)}, {"low", message_printf("%+.4g", g.interval.low)},
                                                 {"high", message_printf("%+.4g", g.interval.high)}, {"margin", message_printf("%.4g", margin)}})});
  if (n_candidate == 0 || n_baseline == 0) g.verdict = Verdict::Inconclusive;
  else if (g.interval.low > margin) g.verdict = Verdict::Fail;
  else if (g.interval.high <= margin) g.verdict = Verdict::Pass;
  else g.verdict = Verdict::Inconclusive;
  return g;
}

namespace {

// Whether the upper bound of the P99 is under `bound` once `extra` samples below it are added.
bool proven_below(const std::vector<double>& sorted, double bound, std::size_t extra) {
  std::vector<double> more(extra, -std::numeric_limits<double>::infinity());
  more.insert(more.end(), sorted.begin(), sorted.end());
  return quantile_bounds(more, 0.99).high < bound;
}

std::optional<std::uint64_t> samples_needed(const std::vector<double>& sorted, double bound) {
  const std::size_t limit = 1'000'000;
  std::size_t high = 1;
  while (high < limit && !proven_below(sorted, bound, high)) high *= 2;
  if (!proven_below(sorted, bound, high)) return std::nullopt;
  std::size_t low = high / 2;  // not enough (or 0)
  while (high - low > 1) {
    std::size_t mid = (low + high) / 2;
    (proven_below(sorted, bound, mid) ? high : low) = mid;
  }
  return high;
}

}  // namespace

GateResult judge_p99_below(std::span<const double> samples, double bound, std::size_t min_n) {
  GateResult g;
  g.n = samples.size();
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  if (g.n < std::max<std::size_t>(min_n, 1)) {
    g.need_more = std::max<std::size_t>(min_n, 1) - g.n;
    set_reason(g, {Message("gate.need_samples", {{"need", std::to_string(*g.need_more)}})});
    return g;
  }
  g.statistic = percentile(sorted, 99);
  g.interval = quantile_bounds(sorted, 0.99);
  set_reason(g, {Message("gate.p99_below", {{"p99", message_printf("%.1f", g.statistic)}, {"low", message_printf("%.1f", g.interval.low)},
                                           {"high", message_printf("%.1f", g.interval.high)}, {"bound", message_printf("%.1f", bound)}, {"n", std::to_string(g.n)}})});
  if (g.interval.high < bound) {
    g.verdict = Verdict::Pass;
  } else if (g.interval.low >= bound) {
    g.verdict = Verdict::Fail;
  } else {
    g.need_more = samples_needed(sorted, bound);
    add_reason(g, g.need_more ? Message("gate.need_samples", {{"need", std::to_string(*g.need_more)}}) : Message("gate.cannot_prove"));
  }
  return g;
}

namespace {

const MessageTemplate kRolloutMessages[] = {
    {"gate.rate", "{count}/{n}, 95 % bounds {low}–{high} against {target}", "{count}/{n}，95 % 区间 {low}–{high}，目标 {target}"},
    {"gate.need_trials", "need {need} more trials", "还需 {need} 次试验"},
    {"gate.no_trials_prove", "no number of further trials can prove it", "再多的试验也无法证明"},
    {"gate.cannot_prove", "cannot be proven", "无法证明"},
    {"gate.need_each_side", "need {need} more samples on each side", "每侧还需 {need} 个样本"},
    {"gate.need_samples", "need {need} more samples", "还需 {need} 个样本"},
    {"gate.latency", "P99 ratio {ratio} (95 % interval {low}–{high}, limit {limit})", "P99 比值 {ratio}（95 % 区间 {low}–{high}，上限 {limit}）"},
    {"gate.shift_p", "shift p = {p}", "偏移 p = {p}"},
    {"gate.per_unit", "{what} (on the time per unit)", "{what}（按单位时间计）"},
    {"gate.rate_difference",
     "{bad_candidate}/{n_candidate} against {bad_baseline}/{n_baseline}: difference {difference} (95 % bounds {low} to "
     "{high}, margin {margin})",
     "{bad_candidate}/{n_candidate} 对 {bad_baseline}/{n_baseline}：差值 {difference}（95 % 区间 {low} 至 {high}，容差 {margin}）"},
    {"gate.no_item", "no checklist item {id}", "没有检查项 {id}"},
    {"gate.item", "{id}: {verdict} — {reason}", "{id}：{verdict} — {reason}"},
    {"gate.improvement", "P99 TTFT {baseline} ms → {candidate} ms: {change} % (90 % interval {low} % to {high} %)",
     "P99 TTFT {baseline} ms → {candidate} ms：{change} %（90 % 区间 {low} % 至 {high} %）"},
    {"gate.no_metrics", "no metrics source for the candidate: its /metrics is read to judge {what}",
     "候选没有指标来源：需读取其 /metrics 以判定{what}"},
    {"gate.rollback",
     "{sessions} candidate sessions switched back in {seconds} s; {left} left open; fds {fds_before} → {fds_after}; "
     "baseline served {requests} requests after the switch, {failed} failed",
     "{sessions} 个候选会话在 {seconds} s 内切回；{left} 个仍打开；文件描述符 {fds_before} → {fds_after}；切换后基线处理了 "
     "{requests} 个请求，{failed} 个失败"},
    {"stage.more_trials", "{need} more trials", "还需 {need} 次试验"},
    {"stage.more_samples", "{need} more samples", "还需 {need} 个样本"},
    {"stage.gate_needs", "{id}: {what}", "{id}：{what}"},
    {"stage.name", "stage {stage} ({name})", "阶段 {stage}（{name}）"},
    // The rollout's event lines (stderr, the Rollout page's status and log), and their words.
    {"rollout.stage_started", "{stage}: {title}", "{stage}：{title}"},
    {"rollout.stage_finished", "{stage}: {verdict}", "{stage}：{verdict}"},
    {"rollout.measuring_again", "{stage}: {verdict}, measuring again (Argo limits)", "{stage}：{verdict}，重新测量（Argo 限制）"},
    {"rollout.rolling_back", "{stage}: rolling back ({rollback})", "{stage}：正在回滚（{rollback}）"},
    {"rollout.request", "{arm} request {n}: {end}", "{arm}请求 {n}：{end}"},
    {"arm.baseline", "baseline", "基线"},
    {"arm.candidate", "candidate", "候选"},
    // compare (rollout/compare.cpp)
    {"compare.worse_p", "worse p {p}, {holm} after Holm", "更差的 p {p}，Holm 校正后 {holm}"},
    {"compare.worse_p_alone", "worse p {p}, {holm} after Holm (worse alone, not once the family is corrected)",
     "更差的 p {p}，Holm 校正后 {holm}（单独看更差，整族校正后不再更差）"},
    {"compare.shape_changed", "the shape changed (KS D = {d}, p {holm} after Holm)", "分布形状变了（KS D = {d}，Holm 校正后 p {holm}）"},
    {"compare.need_requests", "about {n} more requests on each side (for {figure})", "每侧约再需 {n} 个请求（为 {figure}）"},
    {"compare.need_samples", "{n} more {figure} samples on each side", "每侧再需 {n} 个 {figure} 样本"},
    {"compare.need_unknown", "{figure}: its effect sits on the margin, no number of requests settles it",
     "{figure}：其效应恰在余量上，多少请求都无法定论"},
    {"compare.need_shared", "a figure both sides have: they share none", "双方共有的指标：它们一个也没有"},
    {"compare.corrected",
     "Holm over the {n} figures' worse p-values (family-wise α {alpha}), and apart over their KS p-values; no worse needs every "
     "figure's own bound inside the margin, which needs no correction",
     "对 {n} 个指标的“更差” p 值做 Holm 校正（族错误率 α {alpha}），KS p 值另行校正；“不更差”要求每个指标自己的界都在余量之内，这无需校正"},
    {"verdict.pass", "pass", "通过"},
    {"verdict.warn", "warn", "警告"},
    {"verdict.fail", "fail", "失败"},
    {"verdict.inconclusive", "inconclusive", "证据不足"},
    {"verdict.manual", "manual", "人工"},
    {"end.open", "open", "未结束"},
    {"end.response", "response", "已应答"},
    {"end.error", "error", "错误"},
    {"end.connection_error", "connection_error", "连接错误"},
    {"end.protocol_error", "protocol_error", "协议错误"},
    {"end.connection_closed", "connection_closed", "连接已关闭"},
    {"end.timeout", "timeout", "超时"},
    {"end.send_failed", "send_failed", "发送失败"},
    {"end.client_closed", "client_closed", "客户端关闭"},
    {"end.cancel_closed", "cancel_closed", "取消并关闭"},
    // A plan's own text in both languages (its stage's rollback): each language shows its own.
    {"translated", "{en}", "{zh_CN}"},
    {"rollout.passed", "stages {stages} passed", "阶段 {stages} 已通过"},
    {"rollout.passed_promoted", "stages {stages} passed ({promoted} let through by a person while inconclusive)",
     "阶段 {stages} 已通过（{promoted} 在无定论时由人工放行）"},
    {"rollout.rolled_back_paused", "paused rollout rolled back by a person before stage {stage}", "暂停的发布在阶段 {stage} 之前由人工回滚"},
    {"rollout.rolled_back_by_person", "{stage}: rolled back by a person", "{stage}：由人工回滚"},
    {"rollout.failed", "{stage} failed: {gates}; rolled back ({rollback})", "{stage} 失败：{gates}；已回滚（{rollback}）"},
    {"rollout.paused_need", "paused at {stage}, need {need}", "暂停于{stage}，需要 {need}"},
    {"rollout.paused_by_person", "paused by a person before stage {stage}", "在阶段 {stage} 之前由人工暂停"},
    // rollout_text's lines.
    {"text.rollout_arms", "  baseline  {baseline}\n  candidate {candidate}", "  基线  {baseline}\n  候选 {candidate}"},
    {"text.rollout_stage", "stage {stage} {name} ({mode}, split {split} %, {requests} requests, candidate {candidate}): {verdict}",
     "阶段 {stage} {name}（{mode}，分流 {split} %，{requests} 个请求，候选 {candidate}）：{verdict}"},
    {"text.promoted", " (promoted by a person)", "（由人工放行）"},
    {"text.threshold", ", threshold {threshold}", "，阈值 {threshold}"},
    {"text.warning", "warning: {warning}", "警告：{warning}"},
    {"text.rollback", "rollback: {seconds} s, {left} candidate sockets left, fds {fds_before} → {fds_after}",
     "回滚：{seconds} s，剩余 {left} 个候选套接字，文件描述符 {fds_before} → {fds_after}"},
    {"gate.p99_below", "P99 {p99} (95 % bounds {low}–{high}) against < {bound}, n = {n}",
     "P99 {p99}（95 % 区间 {low}–{high}），要求 < {bound}，n = {n}"},
};

}  // namespace

void register_rollout_messages() { register_messages(kRolloutMessages); }

}  // namespace anthro
