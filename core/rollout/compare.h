// `compare BASE CANDIDATE` (cli.md): two results or captures judged against each other, figure by
// figure, as the rollout gates judge a stage (gates.h), with the family of figures corrected for
// multiple comparisons (Holm). The CLI and the GUI both load two inputs, call compare_results and
// show or write what it returns.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "capture/analysis.h"
#include "metrics/request_result.h"
#include "metrics/stats.h"
#include "rollout/gates.h"
#include "util/result.h"

namespace anthro {

enum class CompareVerdict { NoWorse, Worse, Inconclusive };
const char* to_string(CompareVerdict v);  // "no_worse", "worse", "inconclusive"

struct RateCount {
  std::uint64_t events = 0, n = 0;
};

// A checklist item's distribution as a diagnosis measured it, and which way is better (from the
// item's thresholds: one crossed from above means lower is better).
struct ChecklistFigure {
  std::vector<double> samples;
  Better better = Better::Lower;
  std::string unit, statistic_name;
};

// One side of a comparison: the samples of each figure, probe streams left out (checklists.md).
struct CompareInput {
  std::string file;             // as the user named it (with a rollout arm's #stage=N,arm=...)
  std::string kind;             // "session", "bench", "analysis", "diagnosis", "rollout arm", "capture"
  std::size_t requests = 0;     // ordinary requests
  std::size_t probes = 0;       // probe streams, left out of every figure
  std::map<std::string, std::vector<double>> samples;  // ttft_ms, itl_ms, e2e_ms, tokens_per_s
  std::map<std::string, RateCount> rates;              // error_rate, cancel_rate
  std::map<std::string, ChecklistFigure> checklist;    // by item id
  std::vector<std::string> notes;                      // what this side could not give, and why

  // One request record: its figures, or its outcome for the rates.
  void add(const RequestResult& r);
};

// BASE or CANDIDATE as named on the command line: a result file (session, bench, analyze,
// diagnose), a rollout arm `RESULT.json#stage=N,arm=baseline|candidate`, or a capture file read
// with `keys` through the same analysis `analyze` runs. Errors (class input) name the file and
// what is wrong. `threads` reads a capture as AnalyzeOptions::threads.
Result<CompareInput> load_compare_input(const std::string& spec, const CaptureKeySources& keys, unsigned threads = 0);
// A capture already analysed (the GUI's open capture).
CompareInput compare_input_from_capture(const CaptureAnalysis& analysis, const std::string& file);

struct CompareOptions {
  double margin = 0.05;       // latency-like figures: the candidate may be this much (relative) worse
  double rate_margin = 0.05;  // error and cancel rates: this much (absolute, 0.05 = 5 points) higher
  double alpha = 0.05;        // the family-wise error rate of "worse"
  std::uint64_t seed = 1;     // the bootstrap's
};

enum class FigureKind { Distribution, Rate };

struct FigureComparison {
  std::string id;              // ttft_ms, ..., or a checklist item id
  std::string source;          // "requests" or "checklist"
  FigureKind kind = FigureKind::Distribution;
  Better better = Better::Lower;
  std::string unit;
  std::vector<double> base_samples, candidate_samples;  // distributions
  Summary base, candidate;
  RateCount base_rate, candidate_rate;                  // rates
  double ratio_p50 = Summary::kNone;                    // candidate / base
  GateResult judged;                                    // the rollout judge's own result
  double worse_p_holm = 1;                              // its worse_p, Holm-adjusted over the family
  std::optional<KolmogorovSmirnov> ks;                  // distributions
  double ks_p_holm = 1;
  bool shape_changed = false;                           // KS, Holm-adjusted p < alpha
  CompareVerdict verdict = CompareVerdict::Inconclusive;
  std::optional<std::uint64_t> need_more;               // per side, in need_unit; nullopt: no estimate
  std::string need_unit;                                // "requests" or "samples"
  std::string reason;                                   // one line for a person, in English
  MessageText reason_text;                              // the same, to render in any language
};

struct Comparison {
  std::string base_file, candidate_file, base_kind, candidate_kind;
  std::size_t base_requests = 0, candidate_requests = 0, base_probes = 0, candidate_probes = 0;
  CompareOptions options;
  std::vector<FigureComparison> figures;
  std::vector<std::string> not_compared;  // "figure: why", for figures one side lacks
  CompareVerdict verdict = CompareVerdict::Inconclusive;
  std::string need;                       // inconclusive: what more is needed, for a person
  std::string corrected;                  // what the multiple-comparison correction covered
  MessageText need_text, corrected_text;  // the same two, to render in any language
};

// Every figure both sides have, judged and corrected; the verdict: worse if any figure is worse,
// else inconclusive if any is, else no_worse.
Comparison compare_results(const CompareInput& base, const CompareInput& candidate, const CompareOptions& options = {});

// cli.md's JSON document (kind "comparison"), and the same for a person.
std::string comparison_json(const Comparison& c);
std::string comparison_text(const Comparison& c);
// cli.md's exit code: 0 no_worse, 1 worse, 4 inconclusive.
int comparison_exit_code(const Comparison& c);

}  // namespace anthro
