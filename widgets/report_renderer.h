// Reports written to files the Qt way: the charts drawn by the app's own chart widgets
// (LatencyCharts, EvidenceChart) to SVG or PNG, HTML with the SVG inline, Markdown with PNGs
// beside it, PDF laid out by QTextDocument on a QPdfWriter, JSON as core writes it. Every file
// is written to a temporary name and renamed, so an existing file is only ever replaced whole.
#pragma once

#include <QString>
#include <QStringList>
#include <optional>

#include "report/report.h"

class QTextDocument;

namespace anthro::widgets {

enum class ReportFormat { Html, Pdf, Markdown, Json };
std::optional<ReportFormat> parseReportFormat(const QString& name);  // "html", "pdf", "md", "json"
QString reportFormatSuffix(ReportFormat f);

// ReportOptions in `lang` ("en" or "zh_CN") whatever the interface's language: the app's zh_CN
// translations (context "Report") read by a QTranslator of the report's own, the Qt version in
// the environment. Its translate function may run on a worker thread.
ReportOptions reportOptions(const QString& origin, const QString& lang, bool redact_prompts);
// The labels registered for translation here; a test compares them with report_labels().
QStringList translatableReportLabels();

struct ChartStyle {
  // Dense charts drawn with QCustomPlot's adaptive sampling: a 10^5-point chart stays a few
  // thousand marks. Off draws every point (report_bench's reference).
  bool downsample = true;
};

// One chart of a report, drawn as the app draws it, to `path` (.svg, .png or .pdf).
bool writeReportChart(const ReportChart& chart, const QString& path, QString* error = nullptr, ChartStyle style = {});

// Writes `doc` in `format` to `path`; Markdown's PNGs go to "<stem>_charts/" beside it.
bool writeReport(const ReportDocument& doc, ReportFormat format, const QString& path, QString* error = nullptr,
                 ChartStyle style = {});

// The HTML file's text (charts inline as SVG).
QString reportHtml(const ReportDocument& doc, ChartStyle style = {});

// The report laid out in `text` as the PDF is (its default font, the CJK one for zh_CN), each
// chart a PNG image in the document's resources ("chart:ID") shown `image_width` pixels wide
// (at most as drawn, 900): what a QTextBrowser previews, since it cannot show inline SVG.
// Returns the charts that could not be drawn, as errors.
QStringList layoutReport(QTextDocument* text, const ReportDocument& doc, int image_width = 640, ChartStyle style = {});

}  // namespace anthro::widgets
