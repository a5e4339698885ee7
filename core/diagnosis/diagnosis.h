// A diagnosis: every checklist item with its verdict and the evidence behind it, from any mix
// of a live run, a capture and this machine (cli.md `diagnose`). The result JSON is what the
// report issue renders; the GUI's Diagnosis page shows the same structure.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "capture/analysis.h"
#include "diagnosis/checklist.h"
#include "diagnosis/observations.h"
#include "util/message.h"
#include "util/result.h"

namespace anthro {

// One request, stream or connection behind a verdict: where a user can jump to.
struct EvidenceRef {
  std::string conn;                        // connection name, as in the capture or live run
  std::optional<std::uint32_t> stream_id;  // the request's stream or exchange (RequestResult::stream_id)
  std::optional<std::uint64_t> request;    // index into Observations::requests
  std::optional<double> value;             // the figure this reference contributes
  std::optional<std::pair<std::uint64_t, std::uint64_t>> packets;  // capture: its first and last packet (1-based)
};

// A finding that another finding explains: the cause's item id, and why for a person
// ("context wait is 93 % of TTFT in the 2 slowest requests").
struct CauseLink {
  std::string id;
  std::string why;       // English, as the JSON's `evidence` keeps it
  MessageText why_text;  // the same, to render in any language
};

struct ItemResult {
  std::string id;
  Verdict verdict = Verdict::Inconclusive;
  std::string reason;                 // one line for a person, in English (the JSON's `evidence`)
  MessageText reason_text;            // the same, to render in any language (util/message.h)
  std::string statistic_name;         // "p99 TTFT", "reuse", ...
  std::optional<double> statistic;
  std::string unit;
  std::size_t n = 0;                  // samples behind the statistic
  std::size_t need_more = 0;          // inconclusive: samples still needed
  std::string threshold;              // as text: "p99 > 800 ms → fail; stddev/median > 0.5 → warn"
  MessageText threshold_text;         // the same, to render in any language
  std::vector<ProbeSource> sources;   // the sources that measured it
  std::vector<EvidenceRef> refs;      // at most kMaxRefs, worst first
  std::vector<double> samples;        // the distribution shown in the evidence chart
  std::string note;                   // manual items: the person's note
  std::optional<CauseLink> caused_by;  // flagged because another flagged item is
  static constexpr std::size_t kMaxRefs = 50;
};

struct Diagnosis {
  static constexpr int kSchemaVersion = 1;
  std::string checklist_id, checklist_origin;
  std::vector<ProbeSource> sources;
  std::vector<ItemResult> items;  // in checklist order
  Observations observations;
  std::vector<MessageText> warnings;  // the JSON's `warnings` in English, `warning_messages` beside

  Verdict worst() const;
  const ItemResult* item(std::string_view id) const;
};

// Every item of `checklist` against what was observed. An item no given source can measure is
// inconclusive, naming the source that would.
// (By value: a caller done with its observations moves them in.)
Diagnosis evaluate(const Checklist& checklist, Observations observations);
// A capture of the very run `d` judged live (the GUI's "Capture this run's traffic"): the same
// traffic seen twice, so no request counts twice. The items no source of the run measured and a
// capture does (http-fallback: the ALPN of every TLS connection) are judged on the capture; the
// others keep their live verdicts. The capture's observations follow the run's in `d`.
void add_capture_of_run(Diagnosis& d, const Checklist& checklist, Observations captured);
// Links each flagged item that another flagged item explains to it (causes.cpp); evaluate
// calls it.
void link_causes(Diagnosis& d, const Checklist& checklist, const Observations& o);
// The diagnosis's texts in the message catalogue (diagnosis/messages.cpp).
void register_diagnosis_messages();
// One item on its own (the GUI's re-run, and manual ticks keep their notes).
ItemResult evaluate_item(const ChecklistItem& item, const Observations& observations);

// Frames refused (authentication), skipped or repeated (token index) out of all frames seen:
// the frame-drops item and the rollout's frame-drop gate count them the same way.
struct FrameDrops {
  std::uint64_t dropped = 0, frames = 0;
};
FrameDrops count_frame_drops(const Observations& o);

// A capture's analysis as observations (its connections, streams and TCP health). Without
// `texts`, each stream's record is borrowed from `analysis`, which must outlive the observations,
// and its text stays where the analysis keeps it (no checklist item of a capture reads texts;
// only live UTF-8 pairs compare them).
Observations observe_capture(const CaptureAnalysis& analysis, bool texts = true);
// Adds `more` to `into` (a live run and a capture diagnosed together).
void merge_observations(Observations& into, Observations more);

// cli.md `diagnose --format json`: connections, summary, findings and checklist, plus
// schema_version, kind "diagnosis" and each item's evidence.
std::string diagnosis_json(const Diagnosis& d, std::string_view lang = "en", const Checklist* checklist = nullptr);
// The verdicts in Prometheus text format (anthro_wb_diagnose_*), each sample with `labels`
// (the CLI's target) and the checklist's id.
std::string diagnosis_prometheus(const Diagnosis& d, const PrometheusLabels& labels);
// An item's reason and a cause's why in `lang` (English: the very text the JSON keeps).
std::string item_reason(const ItemResult& r, std::string_view lang);
std::string cause_why(const CauseLink& c, std::string_view lang);
// One line per item, verdict first.
std::string diagnosis_text(const Diagnosis& d, const Checklist& checklist, std::string_view lang = "en");

// cli.md `analyze`: the checklist walked over a capture's own analysis, as `diagnose CAPTURE`
// walks it but without reading the file again; then the analysis document with its `findings`
// (items that warn or fail) and `checklist` (every item), or its text with a findings section.
// diagnose_analysis's Diagnosis has no observations: they would repeat the analysis.
// write_analyze_json diagnoses as it writes (on a thread of its own when the analysis ran on more
// than one).
Diagnosis diagnose_analysis(const CaptureAnalysis& analysis, const Checklist& checklist);
void write_analyze_json(const CaptureAnalysis& analysis, const Checklist& checklist, std::ostream& out);
std::string analyze_text(const CaptureAnalysis& analysis, const Diagnosis& d, const Checklist& checklist);

}  // namespace anthro
