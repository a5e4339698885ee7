// compare_results: each figure both sides have judged by the rollout judge (gates.h), the family
// corrected by Holm, the requests still needed estimated; and the result as JSON and as text.
#include "rollout/compare.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "rollout/statistics.h"
#include "util/json.h"

namespace anthro {

using nlohmann::json;

namespace compare_detail {

const char* const kVerdicts[] = {"no_worse", "worse", "inconclusive"};
// The request figures, in the order shown; tokens per second is the one where higher is better.
const char* const kDistributions[] = {"ttft_ms", "itl_ms", "e2e_ms", "tokens_per_s"};
const char* const kRates[] = {"error_rate", "cancel_rate"};
constexpr double kPowerZ = 1.2815515655446004;  // z of 90 % power
constexpr std::uint64_t kNeedLimit = 100'000'000;
constexpr double kTailFrom = 100;  // samples per side before a P99 interval is extrapolated

// How many samples per side the figure needs, in all, for its verdict to come out as the observed
// effect says it will, with 90 % power — the effect and spread observed taken as the truth. (The
// observed effect of a thin run is itself uncertain; 90 % rather than the usual 80 % leaves room
// for a draw that made it look larger than it is.)
//  - A shift worse than the margin (the shrunk rank test leaning "worse", z > 0): its z grows
//    with √n, so n·((z_α + z_β)/z)², z_α at the strictest Holm step (α / figures).
//  - The P99 ratio: its interval's half-width shrinks with √n. Worse through it needs the lower
//    end over the limit (one-sided α / 2 per figure, as worse_p counts it), no worse needs the
//    upper end under it (the gate's 95 % interval), each with the same 90 % power.
// The smallest n that can reach a verdict the observation points to; nullopt when none can
// (the effect sits on the limit). Before 100 samples a side only the shift is extrapolated.
std::optional<double> distribution_need(const GateResult& g, double margin, std::size_t figures, double alpha) {
  if (!g.p_value || !std::isfinite(g.statistic) || !std::isfinite(g.interval.low) || !std::isfinite(g.interval.high))
    return std::nullopt;
  const double n = static_cast<double>(g.n), limit = 1 + margin, z_gate = 1.959963984540054;
  const double z_shift = normal_upper_quantile(std::clamp(*g.p_value, 1e-300, 1 - 1e-16));
  const double z_alpha = normal_upper_quantile(alpha / static_cast<double>(figures));
  const double z_tail = normal_upper_quantile(alpha / 2 / static_cast<double>(figures));
  const double r = g.statistic;
  std::optional<double> best;
  auto consider = [&](double needed) {
    if (std::isfinite(needed) && (!best || needed < *best)) best = needed;
  };
  if (z_shift > 0) consider(n * std::pow((z_alpha + kPowerZ) / z_shift, 2));
  if (n < kTailFrom) {
    // Below 100 samples the P99 is the sample's maximum, whose spread says nothing of how the
    // interval narrows: ask for enough to have a P99 first, then ask again.
    if (!best) consider(kTailFrom);
    return best;
  }
  if (r > limit) consider(n * std::pow((r - g.interval.low) / z_gate * (z_tail + kPowerZ) / (r - limit), 2));
  if (r < limit && z_shift <= 0) consider(n * std::pow((g.interval.high - r) / z_gate * (z_gate + kPowerZ) / (limit - r), 2));
  return best;
}

// Rates: the trials per side at which the observed rates, held, would put Newcombe's bound past
// the margin with the same 90 % power (the bound taken at z + z_β), found by doubling and halving.
std::optional<double> rate_need(const FigureComparison& f, double margin, std::size_t figures, double alpha) {
  const RateCount& b = f.base_rate;
  const RateCount& c = f.candidate_rate;
  if (b.n == 0 || c.n == 0) return std::nullopt;
  const double d = f.judged.statistic;
  const bool towards_worse = d > margin;
  const double z = (towards_worse ? normal_upper_quantile(alpha / static_cast<double>(figures)) : kZ95) + kPowerZ;
  auto reached = [&](double scale) {
    auto k = [&](const RateCount& r) { return static_cast<std::uint64_t>(std::llround(static_cast<double>(r.events) * scale)); };
    auto n = [&](const RateCount& r) { return static_cast<std::uint64_t>(std::llround(static_cast<double>(r.n) * scale)); };
    Interval i = proportion_difference(k(c), n(c), k(b), n(b), z);
    return towards_worse ? i.low > margin : i.high <= margin;
  };
  if (d == margin) return std::nullopt;
  double low = 1, high = 2;
  while (!reached(high)) {
    if (high * static_cast<double>(std::min(b.n, c.n)) > kNeedLimit) return std::nullopt;
    low = high;
    high *= 2;
  }
  while (high - low > 1e-3 * low) (reached((low + high) / 2) ? high : low) = (low + high) / 2;
  return high * static_cast<double>(std::min(b.n, c.n));
}

std::vector<double> finite_sorted(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  std::sort(v.begin(), v.end());
  return v;
}

FigureComparison distribution_figure(const std::string& id, const std::vector<double>& base,
                                     const std::vector<double>& candidate, Better better, const CompareOptions& o) {
  FigureComparison f;
  f.id = id;
  f.better = better;
  f.base_samples = finite_sorted(base);
  f.candidate_samples = finite_sorted(candidate);
  f.base = summarize(f.base_samples);
  f.candidate = summarize(f.candidate_samples);
  f.ratio_p50 = f.base.p50 > 0 ? f.candidate.p50 / f.base.p50 : Summary::kNone;
  f.judged = judge_latency(f.candidate_samples, f.base_samples, o.margin, o.seed, 20, better);
  if (!f.base_samples.empty() && !f.candidate_samples.empty()) f.ks = kolmogorov_smirnov(f.candidate_samples, f.base_samples);
  return f;
}

FigureComparison rate_figure(const std::string& id, const RateCount& base, const RateCount& candidate, const CompareOptions& o) {
  FigureComparison f;
  f.id = id;
  f.kind = FigureKind::Rate;
  f.source = "requests";
  f.base_rate = base;
  f.candidate_rate = candidate;
  f.judged = judge_rate_difference(candidate.events, candidate.n, base.events, base.n, o.rate_margin);
  return f;
}

// Holm over the family of "worse" p-values, and apart over the KS p-values (a shape change is
// reported, never a verdict by itself).
void correct(std::vector<FigureComparison>& figures, double alpha) {
  std::vector<double> worse, shape;
  std::vector<std::size_t> with_ks;
  for (std::size_t i = 0; i < figures.size(); ++i) {
    worse.push_back(figures[i].judged.worse_p.value_or(1));
    if (figures[i].ks) {
      shape.push_back(figures[i].ks->p);
      with_ks.push_back(i);
    }
  }
  std::vector<double> adjusted = holm_adjusted(worse), shape_adjusted = holm_adjusted(shape);
  for (std::size_t i = 0; i < figures.size(); ++i) figures[i].worse_p_holm = adjusted[i];
  for (std::size_t k = 0; k < with_ks.size(); ++k) {
    figures[with_ks[k]].ks_p_holm = shape_adjusted[k];
    figures[with_ks[k]].shape_changed = shape_adjusted[k] < alpha;
  }
}

std::string format(const char* pattern, double a, double b = 0, double c = 0) {
  char buf[200];
  std::snprintf(buf, sizeof buf, pattern, a, b, c);
  return buf;
}

// The verdict after correction, and the requests still needed when it is inconclusive.
void decide(FigureComparison& f, const CompareOptions& o, std::size_t figures, double per_request) {
  if (f.worse_p_holm < o.alpha) f.verdict = CompareVerdict::Worse;
  else if (f.judged.verdict == Verdict::Pass) f.verdict = CompareVerdict::NoWorse;
  else f.verdict = CompareVerdict::Inconclusive;
  f.reason_text = f.judged.reason_text;
  const bool alone = f.judged.verdict == Verdict::Fail && f.verdict != CompareVerdict::Worse;
  f.reason_text.push_back(Message(alone ? "compare.worse_p_alone" : "compare.worse_p",
                                  {{"p", format("%.3g", f.judged.worse_p.value_or(1))}, {"holm", format("%.3g", f.worse_p_holm)}}));
  if (f.shape_changed)
    f.reason_text.push_back(Message("compare.shape_changed", {{"d", format("%.3g", f.ks->d)}, {"holm", format("%.3g", f.ks_p_holm)}}));
  f.reason = render(f.reason_text);
  f.need_unit = f.source == "checklist" ? "samples" : "requests";
  if (f.verdict != CompareVerdict::Inconclusive) {
    f.need_more = 0;
    return;
  }
  std::optional<double> total;
  if (f.judged.n < 20) total = 20;  // the judge's own minimum
  else if (f.kind == FigureKind::Rate) total = rate_need(f, o.rate_margin, figures, o.alpha);
  else total = distribution_need(f.judged, o.margin, figures, o.alpha);
  if (!total || *total > kNeedLimit) {
    f.need_more.reset();
    return;
  }
  // ITL has several samples per request: what is needed is requests.
  double have = static_cast<double>(f.judged.n), more = std::max(1.0, std::ceil((*total - have) / per_request));
  f.need_more = static_cast<std::uint64_t>(more);
}

double samples_per_request(const FigureComparison& f, std::size_t requests) {
  if (f.source != "requests" || f.kind == FigureKind::Rate || requests == 0) return 1;
  double n = static_cast<double>(std::min(f.base_samples.size(), f.candidate_samples.size()));
  return std::max(1.0, n / static_cast<double>(requests));
}

MessageText overall_need(const std::vector<FigureComparison>& figures) {
  std::uint64_t requests = 0;
  std::vector<std::string> unknown;
  std::string which;
  for (const auto& f : figures) {
    if (f.verdict != CompareVerdict::Inconclusive) continue;
    if (!f.need_more) unknown.push_back(f.id);
    else if (f.need_unit == "requests" && *f.need_more > requests) requests = *f.need_more, which = f.id;
  }
  MessageText out;
  if (requests) out.push_back(Message("compare.need_requests", {{"n", std::to_string(requests)}, {"figure", which}}));
  for (const auto& f : figures)
    if (f.verdict == CompareVerdict::Inconclusive && f.need_more && f.need_unit == "samples")
      out.push_back(Message("compare.need_samples", {{"n", std::to_string(*f.need_more)}, {"figure", f.id}}));
  for (const auto& id : unknown) out.push_back(Message("compare.need_unknown", {{"figure", id}}));
  return out;
}

}  // namespace compare_detail

const char* to_string(CompareVerdict v) { return compare_detail::kVerdicts[static_cast<int>(v)]; }

namespace compare_detail {

// Every figure both sides have, in the order shown; what only one side has goes to not_compared.
void collect_figures(Comparison& c, const CompareInput& base, const CompareInput& candidate, const CompareOptions& options) {
  auto both = [&](const auto& a, const auto& b, const std::string& id) {
    bool in_a = a.count(id) != 0, in_b = b.count(id) != 0;
    if (in_a != in_b) c.not_compared.push_back(id + ": only the " + (in_a ? "base" : "candidate") + " has it");
    return in_a && in_b;
  };
  for (const char* id : kDistributions)
    if (both(base.samples, candidate.samples, id)) {
      const bool rate = std::string(id) == "tokens_per_s";
      c.figures.push_back(distribution_figure(id, base.samples.at(id), candidate.samples.at(id),
                                              rate ? Better::Higher : Better::Lower, options));
      c.figures.back().source = "requests";
      c.figures.back().unit = rate ? "tokens/s" : "ms";
    }
  for (const char* id : kRates)
    if (both(base.rates, candidate.rates, id)) c.figures.push_back(rate_figure(id, base.rates.at(id), candidate.rates.at(id), options));
  for (const auto& [id, item] : base.checklist)
    if (both(base.checklist, candidate.checklist, id)) {
      c.figures.push_back(distribution_figure(id, item.samples, candidate.checklist.at(id).samples, item.better, options));
      c.figures.back().source = "checklist";
      c.figures.back().unit = item.unit;
    }
  for (const auto& [id, item] : candidate.checklist)
    if (!base.checklist.count(id)) c.not_compared.push_back(id + ": only the candidate has it");
  for (const auto& n : base.notes)
    c.not_compared.push_back(std::count(candidate.notes.begin(), candidate.notes.end(), n) ? n + " (both)" : "base: " + n);
  for (const auto& n : candidate.notes)
    if (!std::count(base.notes.begin(), base.notes.end(), n)) c.not_compared.push_back("candidate: " + n);
}

}  // namespace compare_detail

Comparison compare_results(const CompareInput& base, const CompareInput& candidate, const CompareOptions& options) {
  using namespace compare_detail;
  Comparison c;
  c.base_file = base.file, c.candidate_file = candidate.file, c.base_kind = base.kind, c.candidate_kind = candidate.kind;
  c.base_requests = base.requests, c.candidate_requests = candidate.requests;
  c.base_probes = base.probes, c.candidate_probes = candidate.probes;
  c.options = options;
  collect_figures(c, base, candidate, options);
  correct(c.figures, options.alpha);
  std::size_t requests = std::min(base.requests, candidate.requests);
  for (auto& f : c.figures) decide(f, options, c.figures.size(), samples_per_request(f, requests));
  c.corrected_text = {Message("compare.corrected", {{"n", std::to_string(c.figures.size())}, {"alpha", format("%g", options.alpha)}})};
  c.corrected = render(c.corrected_text);
  bool any_worse = false, any_open = c.figures.empty();
  for (const auto& f : c.figures) {
    any_worse |= f.verdict == CompareVerdict::Worse;
    any_open |= f.verdict == CompareVerdict::Inconclusive;
  }
  c.verdict = any_worse ? CompareVerdict::Worse : any_open ? CompareVerdict::Inconclusive : CompareVerdict::NoWorse;
  if (c.verdict == CompareVerdict::Inconclusive)
    c.need_text = c.figures.empty() ? MessageText{Message("compare.need_shared")} : overall_need(c.figures);
  c.need = render(c.need_text);
  return c;
}

int comparison_exit_code(const Comparison& c) {
  switch (c.verdict) {
    case CompareVerdict::NoWorse: return 0;
    case CompareVerdict::Worse: return 1;
    case CompareVerdict::Inconclusive: return 4;
  }
  return 4;
}

}  // namespace anthro
