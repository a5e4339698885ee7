// A report: one document built from any saved result (session, bench, analysis, diagnosis,
// rollout, comparison) — title, environment, a summary worst verdict first, sections with facts, tables and
// charts — that the renderers write as HTML, Markdown or JSON here and as PDF on the Qt side
// (widgets/report_renderer). Charts are specifications: the Qt side draws them with the app's
// own chart code and hands the images back through the callbacks below.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "diagnosis/checklist.h"
#include "util/result.h"

namespace anthro {

enum class ResultKind { Session, Bench, Analysis, Diagnosis, Rollout, Comparison };
// the result's "kind": "session", "bench", "analysis", "diagnosis", "rollout", "comparison"
const char* to_string(ResultKind k);

// A comparison's verdict word ("no_worse", "worse", "inconclusive") as the verdict its chip and
// section show: no worse passes, worse fails.
Verdict comparison_verdict(const std::string& verdict);

enum class ChartKind { TtftOverTime, TokenRate, ItlHistogram, TtftCdf, GateForest, Distribution };
const char* to_string(ChartKind k);  // "ttft-over-time", "token-rate", "itl-histogram", "ttft-cdf", "gate-forest", "distribution"

// One request as the latency charts plot it.
struct ChartRequest {
  double t_s = 0;  // when it was sent, seconds from the first request
  std::optional<double> ttft_ms, tokens_per_s;
  std::vector<double> itl_ms;
};

struct ChartSeries {
  std::string name;
  std::vector<ChartRequest> requests;
};

// A gate of a rollout stage: its statistic and interval against its threshold.
struct ForestRow {
  std::string label;
  double statistic = 0;
  std::optional<double> low, high, threshold;
  Verdict verdict = Verdict::Inconclusive;
  std::string unit;
};

struct ChartLine {
  double value = 0;
  std::string label;
};

struct ReportChart {
  std::string id;  // unique in the document: the file name stem of a Markdown PNG
  ChartKind kind = ChartKind::TtftOverTime;
  std::string title;
  std::vector<ChartSeries> series;  // the latency charts: up to two (baseline, candidate)
  std::vector<ForestRow> forest;    // GateForest
  std::vector<double> samples;      // Distribution
  std::vector<ChartLine> lines;     // Distribution: thresholds
  std::string x_label;
  std::size_t points = 0;           // requests or samples behind the chart
  std::size_t drawn = 0;            // after downsampling (= points when none)
};

struct ReportTable {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  std::size_t more = 0;  // rows left out (they are in the JSON)
};

struct ReportSection {
  std::string heading;
  std::optional<Verdict> verdict;
  std::vector<std::string> paragraphs;
  std::vector<std::pair<std::string, std::string>> facts;  // label, value
  std::vector<ReportTable> tables;
  std::vector<std::size_t> charts;  // indexes into ReportDocument::charts
  std::vector<ReportSection> children;
};

struct ReportDocument {
  ResultKind kind = ResultKind::Diagnosis;
  std::string title, lang = "en";
  std::vector<std::pair<std::string, std::string>> environment;
  std::optional<Verdict> verdict;    // the worst
  std::vector<std::string> summary;  // worst first
  std::vector<ReportSection> sections;
  std::vector<ReportChart> charts;
  std::vector<std::string> redactions;  // what was redacted, and where
  std::map<std::string, std::string> labels;  // report_labels() in the document's language, for the renderers
  std::string result_json;              // the result as given, redacted
};

struct ReportOptions {
  std::string origin;      // the result file, for errors and the environment
  std::string lang = "en";  // "en" or "zh_CN"
  bool redact_prompts = false;  // prompts and answers replaced by their length and SHA-256
  // The interface's translations (Qt's, on the Qt side) of the labels report_labels() lists;
  // without it the labels stay English.
  std::function<std::string(const std::string& english)> translate;
  // Facts the caller knows and core does not (the Qt version, ...), added to the environment.
  std::vector<std::pair<std::string, std::string>> environment;
  std::size_t max_table_rows = 200;    // beyond: "N more in the JSON"
  std::size_t max_chart_points = 3000;  // requests per series drawn, beyond: every k-th (0: all)
};

// Text in a ReportDocument is plain but for code spans written as in Markdown: ids, commands,
// paths and URLs between backticks (`ring-buffer-stall`), as the checklists' remedies write
// their commands. The renderers set them in a monospace font without ligatures, so what a reader
// copies out of a report is what was typed. report_code writes one span, fenced with more
// backticks when the text holds some (``a`b``); "" stays "".
std::string report_code(const std::string& text);

// Errors (class input) name the file and the problem: not JSON, no "kind", a kind or
// schema_version this workbench does not read.
Result<ReportDocument> build_report(std::string_view result_json, const ReportOptions& options);

// Every English label the builders use, for the translations and their test.
const std::vector<std::string>& report_labels();

// One self-contained HTML file: inline CSS and, for each chart, the markup its callback gives
// (an SVG document, its prolog dropped; or an <img> for a renderer with its own resources).
std::string report_html(const ReportDocument& doc, const std::function<std::string(const ReportChart&)>& chart_markup);
// Markdown with each chart as the PNG file the callback wrote (its path, relative to the report).
std::string report_markdown(const ReportDocument& doc, const std::function<std::string(const ReportChart&)>& chart_png);
// The (redacted) result plus the report's sections.
std::string report_json(const ReportDocument& doc);

}  // namespace anthro
