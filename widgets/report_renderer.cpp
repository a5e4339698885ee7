#include "report_renderer.h"

#include <QAbstractTextDocumentLayout>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QSaveFile>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTranslator>
#include <QUrl>
#include <algorithm>
#include <cmath>

#include "evidence_chart.h"
#include "latency_charts.h"

namespace anthro::widgets {
namespace {

// Every label core's report builders use (report_labels()), registered here so lupdate puts
// them in the translation files; test_report checks the two lists are the same.
const char* const kLabels[] = {
    QT_TRANSLATE_NOOP("Report", "pass"), QT_TRANSLATE_NOOP("Report", "warn"), QT_TRANSLATE_NOOP("Report", "fail"),
    QT_TRANSLATE_NOOP("Report", "inconclusive"), QT_TRANSLATE_NOOP("Report", "manual"),
    QT_TRANSLATE_NOOP("Report", "Summary"), QT_TRANSLATE_NOOP("Report", "Environment"),
    QT_TRANSLATE_NOOP("Report", "Redacted"), QT_TRANSLATE_NOOP("Report", "Workbench"),
    QT_TRANSLATE_NOOP("Report", "Result file"), QT_TRANSLATE_NOOP("Report", "Target"),
    QT_TRANSLATE_NOOP("Report", "Baseline"), QT_TRANSLATE_NOOP("Report", "Candidate"),
    QT_TRANSLATE_NOOP("Report", "Capture file"), QT_TRANSLATE_NOOP("Report", "Capture SHA-256"),
    QT_TRANSLATE_NOOP("Report", "not readable here"), QT_TRANSLATE_NOOP("Report", "Report written"),
    QT_TRANSLATE_NOOP("Report", "Machine"), QT_TRANSLATE_NOOP("Report", "OpenSSL"), QT_TRANSLATE_NOOP("Report", "Qt"),
    QT_TRANSLATE_NOOP("Report", "Verdict"), QT_TRANSLATE_NOOP("Report", "Charts"),
    QT_TRANSLATE_NOOP("Report", "%1 more rows in the JSON"), QT_TRANSLATE_NOOP("Report", "nothing was redacted"),
    QT_TRANSLATE_NOOP("Report", "TTFT over time"), QT_TRANSLATE_NOOP("Report", "Token rate"),
    QT_TRANSLATE_NOOP("Report", "ITL histogram"), QT_TRANSLATE_NOOP("Report", "TTFT CDF"),
    QT_TRANSLATE_NOOP("Report", "Gates against their thresholds"), QT_TRANSLATE_NOOP("Report", "TTFT of both arms"),
    QT_TRANSLATE_NOOP("Report", "requests"), QT_TRANSLATE_NOOP("Report", "baseline"),
    QT_TRANSLATE_NOOP("Report", "candidate"), QT_TRANSLATE_NOOP("Report", "anthro-v1"), QT_TRANSLATE_NOOP("Report", "HTTP"),
    QT_TRANSLATE_NOOP("Report", "Connections"), QT_TRANSLATE_NOOP("Report", "Connection"),
    QT_TRANSLATE_NOOP("Report", "Transport"), QT_TRANSLATE_NOOP("Report", "ALPN"), QT_TRANSLATE_NOOP("Report", "Suite"),
    QT_TRANSLATE_NOOP("Report", "TLS suite"), QT_TRANSLATE_NOOP("Report", "Decryption"),
    QT_TRANSLATE_NOOP("Report", "Connect"), QT_TRANSLATE_NOOP("Report", "Handshake"),
    QT_TRANSLATE_NOOP("Report", "TCP health"), QT_TRANSLATE_NOOP("Report", "Retransmissions"),
    QT_TRANSLATE_NOOP("Report", "Out of order"), QT_TRANSLATE_NOOP("Report", "Zero windows"),
    QT_TRANSLATE_NOOP("Report", "Zero window time"), QT_TRANSLATE_NOOP("Report", "Gaps"),
    QT_TRANSLATE_NOOP("Report", "Bad checksums"), QT_TRANSLATE_NOOP("Report", "Duplicate ACKs"),
    QT_TRANSLATE_NOOP("Report", "Frames"), QT_TRANSLATE_NOOP("Report", "Frames opened"),
    QT_TRANSLATE_NOOP("Report", "Stream"), QT_TRANSLATE_NOOP("Report", "TTFT"), QT_TRANSLATE_NOOP("Report", "E2E"),
    QT_TRANSLATE_NOOP("Report", "Tokens"), QT_TRANSLATE_NOOP("Report", "Tokens/s"),
    QT_TRANSLATE_NOOP("Report", "Mean ITL"), QT_TRANSLATE_NOOP("Report", "Stop reason"),
    QT_TRANSLATE_NOOP("Report", "End"), QT_TRANSLATE_NOOP("Report", "Error"), QT_TRANSLATE_NOOP("Report", "Requests"),
    QT_TRANSLATE_NOOP("Report", "Warnings"), QT_TRANSLATE_NOOP("Report", "Latency diagnosis"),
    QT_TRANSLATE_NOOP("Report", "Checklist"), QT_TRANSLATE_NOOP("Report", "Sources"),
    QT_TRANSLATE_NOOP("Report", "Statistic"), QT_TRANSLATE_NOOP("Report", "Samples"),
    QT_TRANSLATE_NOOP("Report", "Need more"), QT_TRANSLATE_NOOP("Report", "Threshold"),
    QT_TRANSLATE_NOOP("Report", "Evidence"), QT_TRANSLATE_NOOP("Report", "Remedy"), QT_TRANSLATE_NOOP("Report", "Note"),
    QT_TRANSLATE_NOOP("Report", "Findings"), QT_TRANSLATE_NOOP("Report", "%1 items: %2"), QT_TRANSLATE_NOOP("Report", ", "),
    QT_TRANSLATE_NOOP("Report", "Caused by"), QT_TRANSLATE_NOOP("Report", "caused by %1"),
    QT_TRANSLATE_NOOP("Report", "System"), QT_TRANSLATE_NOOP("Report", "Grayscale rollout"),
    QT_TRANSLATE_NOOP("Report", "Plan"), QT_TRANSLATE_NOOP("Report", "State"), QT_TRANSLATE_NOOP("Report", "Stage"),
    QT_TRANSLATE_NOOP("Report", "Mode"), QT_TRANSLATE_NOOP("Report", "Split"), QT_TRANSLATE_NOOP("Report", "Gate"),
    QT_TRANSLATE_NOOP("Report", "Interval"), QT_TRANSLATE_NOOP("Report", "Reason"),
    QT_TRANSLATE_NOOP("Report", "Promoted by a person while inconclusive"),
    QT_TRANSLATE_NOOP("Report", "Still needed"), QT_TRANSLATE_NOOP("Report", "Rollback"),
    QT_TRANSLATE_NOOP("Report", "Rollback time"), QT_TRANSLATE_NOOP("Report", "Candidate sockets left"),
    QT_TRANSLATE_NOOP("Report", "Descriptors before and after"),
    QT_TRANSLATE_NOOP("Report", "Served by the baseline after the switch"), QT_TRANSLATE_NOOP("Report", "passed"),
    QT_TRANSLATE_NOOP("Report", "failed"), QT_TRANSLATE_NOOP("Report", "paused"),
    QT_TRANSLATE_NOOP("Report", "rolled_back"),
    QT_TRANSLATE_NOOP("Report", "Live session"), QT_TRANSLATE_NOOP("Report", "Load benchmark"),
    QT_TRANSLATE_NOOP("Report", "Capture analysis"), QT_TRANSLATE_NOOP("Report", "Duration"),
    QT_TRANSLATE_NOOP("Report", "Tokens per second"), QT_TRANSLATE_NOOP("Report", "Goodput per second"),
    QT_TRANSLATE_NOOP("Report", "Errors"), QT_TRANSLATE_NOOP("Report", "Latency summary"),
    QT_TRANSLATE_NOOP("Report", "Metric"), QT_TRANSLATE_NOOP("Report", "Packets"),
    QT_TRANSLATE_NOOP("Report", "TCP segments"), QT_TRANSLATE_NOOP("Report", "Negotiation"),
    QT_TRANSLATE_NOOP("Report", "Comparison"), QT_TRANSLATE_NOOP("Report", "Figures"),
    QT_TRANSLATE_NOOP("Report", "Figure"), QT_TRANSLATE_NOOP("Report", "Ratio of medians"),
    QT_TRANSLATE_NOOP("Report", "Tail ratio or difference"), QT_TRANSLATE_NOOP("Report", "Shift p"),
    QT_TRANSLATE_NOOP("Report", "Shape (KS p)"), QT_TRANSLATE_NOOP("Report", "changed"),
    QT_TRANSLATE_NOOP("Report", "Margin"), QT_TRANSLATE_NOOP("Report", "rates"),
    QT_TRANSLATE_NOOP("Report", "Corrected"), QT_TRANSLATE_NOOP("Report", "Not compared"),
    QT_TRANSLATE_NOOP("Report", "no_worse"), QT_TRANSLATE_NOOP("Report", "worse"),
    QT_TRANSLATE_NOOP("Report", "samples"),
    QT_TRANSLATE_NOOP("Report", "Worker")};

QString q(const std::string& s) { return QString::fromStdString(s); }

QColor verdictColour(Verdict v) {
  switch (v) {
    case Verdict::Pass: return QColor(0x2e, 0x7d, 0x32);
    case Verdict::Warn: return QColor(0xef, 0x6c, 0x00);
    case Verdict::Fail: return QColor(0xc6, 0x28, 0x28);
    case Verdict::Inconclusive: return QColor(0xf9, 0xa8, 0x25);
    case Verdict::Manual: return QColor(0x54, 0x6e, 0x7a);
  }
  return Qt::gray;
}

constexpr QSize kChartSize(900, 480);

bool writeLatencyChart(const ReportChart& c, const QString& path, QString* error, ChartStyle style) {
  LatencyCharts charts;
  charts.setAdaptiveSampling(style.downsample);
  charts.setMaxPoints(LatencyCharts::kMaxPoints);
  for (std::size_t s = 0; s < c.series.size() && s < LatencyCharts::kSeriesCount; ++s) {
    const int series = static_cast<int>(s);
    charts.setSeriesName(series, q(c.series[s].name));
    std::vector<RequestPoint> points;
    points.reserve(c.series[s].requests.size());
    int id = 0;
    for (const auto& r : c.series[s].requests) points.push_back({r.t_s, r.ttft_ms, r.tokens_per_s, r.itl_ms, id++});
    charts.addPoints(series, points);
  }
  charts.flush();
  LatencyCharts::Chart which = c.kind == ChartKind::TtftOverTime ? LatencyCharts::TtftOverTime
                               : c.kind == ChartKind::TokenRate  ? LatencyCharts::TokenRate
                               : c.kind == ChartKind::ItlHistogram ? LatencyCharts::ItlHistogram
                                                                   : LatencyCharts::TtftCdf;
  return charts.exportChart(which, path, error);
}

bool writeEvidenceChart(const ReportChart& c, const QString& path, QString* error) {
  EvidenceChart chart;
  chart.resize(kChartSize);
  if (c.kind == ChartKind::GateForest) {
    std::vector<EvidenceChart::ForestRow> rows;
    for (const auto& r : c.forest)
      rows.push_back({q(r.label), r.statistic, r.low.value_or(NAN), r.high.value_or(NAN), r.threshold.value_or(1),
                      verdictColour(r.verdict)});
    chart.showForest(q(c.title), rows);
  } else {
    std::vector<EvidenceChart::Line> lines;
    for (const auto& l : c.lines) lines.push_back({l.value, q(l.label), QColor(0xc6, 0x28, 0x28)});
    chart.showDistribution(q(c.title), c.samples, q(c.x_label), lines);
  }
  return chart.exportChart(path, QSize(kChartSize.width(), 120 + 48 * static_cast<int>(c.forest.size()) + (c.forest.empty() ? 300 : 0)), error);
}

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool saveAtomically(const QString& path, const QByteArray& bytes, QString* error) {
  QSaveFile f(path);  // a temporary file renamed over path on commit
  if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit()) {
    if (error) *error = QCoreApplication::translate("Report", "Cannot write %1: %2").arg(QDir::toNativeSeparators(path), f.errorString());
    return false;
  }
  return true;
}

// Charts drawn into a private temporary directory, handed to the renderers by callback.
class ChartFiles {
 public:
  explicit ChartFiles(ChartStyle style) : style_(style) {}
  QString draw(const ReportChart& c, const char* suffix) {
    QString path = dir_.filePath(q(c.id) + "." + suffix);
    QString error;
    if (!writeReportChart(c, path, &error, style_)) {
      errors_ << error;
      return {};
    }
    return path;
  }
  const QStringList& errors() const { return errors_; }

 private:
  ChartStyle style_;
  QTemporaryDir dir_;
  QStringList errors_;
};

// Code spans (<code>, which Qt's HTML reader makes fixed-pitch) in a monospace font every
// install has (fonts-noto-cjk, installer/deps.sh: its Latin is monospaced too), drawn without
// shaping: Qt 6.4 has no switch for font features, and unshaped Latin has no ligatures, so the
// PDF's text says "buffer", not "buﬀer", and an id or a command copied out of it is found again.
void setCodeFont(QTextDocument& text) {
  std::vector<std::pair<int, int>> spans;  // gathered first: merging a format re-cuts the fragments
  for (QTextBlock block = text.begin(); block.isValid(); block = block.next())
    for (auto it = block.begin(); !it.atEnd(); ++it)
      if (it.fragment().charFormat().fontFixedPitch()) spans.emplace_back(it.fragment().position(), it.fragment().length());
  QTextCharFormat code;
  code.setFontFamilies({QStringLiteral("Noto Sans Mono CJK SC")});
  code.setFontFixedPitch(true);
  code.setFontStyleStrategy(QFont::PreferNoShaping);
  QTextCursor cursor(&text);
  for (const auto& [position, length] : spans) {
    cursor.setPosition(position);
    cursor.setPosition(position + length, QTextCursor::KeepAnchor);
    cursor.mergeCharFormat(code);
  }
}

// The report as the PDF lays it out, in `text`: each chart a PNG image held in the document's
// resources under "chart:ID", `image_width` pixels wide, its caption below it.
QStringList layoutInto(QTextDocument& text, const ReportDocument& doc, ChartStyle style, int image_width) {
  ChartFiles charts(style);
  std::string html = report_html(doc, [&](const ReportChart& c) {
    QString png = charts.draw(c, "png");
    if (png.isEmpty()) return std::string();
    QImage image(png);
    QUrl url(QStringLiteral("chart:%1").arg(q(c.id)));
    text.addResource(QTextDocument::ImageResource, url, image);
    const int width = image_width, height = image.width() ? width * image.height() / image.width() : 0;
    // QTextDocument knows no <figure>: a block of its own keeps the image off its caption's line,
    // and its own line height keeps the body's 140 % from adding 40 % of the image below it.
    return "<div style=\"line-height:100%; margin-top:12px\"><img src=\"" + url.toString().toStdString() + "\" width=\"" + std::to_string(width) + "\" height=\"" +
           std::to_string(height) + "\"></div>";
  });
  QFont font(doc.lang == "zh_CN" ? QStringLiteral("Noto Sans CJK SC") : QStringLiteral("Noto Sans"), 9);
  font.setStyleStrategy(QFont::PreferNoShaping);  // prose copies out as typed too: "file", not "ﬁle"
  text.setDefaultFont(font);
  text.setHtml(q(html));
  setCodeFont(text);
  return charts.errors();
}

// A heading never ends a page: one whose next block starts on a later page starts that page
// (QTextDocument has page breaks but no keep-with-next). Each move moves everything after it,
// and Qt's incremental relayout after a format change misplaces (and print() then loses) later
// blocks: the whole document is laid out anew after each.
void keepHeadingsWithNext(QTextDocument& text) {
  const qreal page = text.pageSize().height();
  QAbstractTextDocumentLayout* layout = text.documentLayout();
  // The page of a block's first line: a line that did not fit was pushed down inside its block,
  // whose own top stays on the page before.
  auto page_of = [&](const QTextBlock& b) {
    qreal top = layout->blockBoundingRect(b).top();
    if (b.layout() && b.layout()->lineCount() > 0) top += b.layout()->lineAt(0).y();  // from the block's top
    return static_cast<int>(top / page);
  };
  for (QTextBlock b = text.begin(); b.isValid() && b.next().isValid(); b = b.next()) {
    if (b.blockFormat().headingLevel() == 0 || page_of(b.next()) <= page_of(b)) continue;
    QTextBlockFormat breaks;
    breaks.setPageBreakPolicy(QTextFormat::PageBreak_AlwaysBefore);
    QTextCursor(b).mergeBlockFormat(breaks);
    text.markContentsDirty(0, text.characterCount());
  }
}

bool writePdf(const ReportDocument& doc, const QString& path, QString* error, ChartStyle style) {
  QTextDocument text;
  layoutInto(text, doc, style, 640);  // A4 less its margins at 96 dpi is 680
  QString tmp = path + QStringLiteral(".tmp");
  {
    QPdfWriter pdf(tmp);
    pdf.setResolution(96);  // the document's pixels are screen pixels: fonts and images keep their sizes
    pdf.setTitle(q(doc.title));
    pdf.setCreator(QStringLiteral("anthro-v1 Workbench"));
    pdf.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter));
    // Paginated here, so print() draws this document (its chart images included), not a copy.
    text.setPageSize(pdf.pageLayout().paintRectPixels(pdf.resolution()).size());
    keepHeadingsWithNext(text);
    text.print(&pdf);
  }
  if (!QFileInfo(tmp).size() || std::rename(QFile::encodeName(tmp).constData(), QFile::encodeName(path).constData()) != 0) {
    QFile::remove(tmp);
    if (error) *error = QCoreApplication::translate("Report", "Cannot write %1").arg(QDir::toNativeSeparators(path));
    return false;
  }
  return true;
}

bool writeMarkdown(const ReportDocument& doc, const QString& path, QString* error, ChartStyle style) {
  QFileInfo info(path);
  const QString dirName = info.completeBaseName() + QStringLiteral("_charts");
  QDir dir = info.dir();
  if (!dir.exists(dirName) && !dir.mkpath(dirName)) {
    if (error) *error = QCoreApplication::translate("Report", "Cannot create %1").arg(dir.filePath(dirName));
    return false;
  }
  QStringList failures;
  std::string md = report_markdown(doc, [&](const ReportChart& c) {
    const QString file = dirName + "/" + q(c.id) + ".png";
    QString why;
    if (!writeReportChart(c, dir.filePath(file), &why, style)) {
      failures << why;
      return std::string();
    }
    return QString::fromLatin1(QUrl::toPercentEncoding(file, "/")).toStdString();
  });
  if (!failures.isEmpty()) {
    if (error) *error = failures.join('\n');
    return false;
  }
  return saveAtomically(path, QByteArray::fromStdString(md), error);
}

}  // namespace

std::optional<ReportFormat> parseReportFormat(const QString& name) {
  if (name == QLatin1String("html")) return ReportFormat::Html;
  if (name == QLatin1String("pdf")) return ReportFormat::Pdf;
  if (name == QLatin1String("md")) return ReportFormat::Markdown;
  if (name == QLatin1String("json")) return ReportFormat::Json;
  return std::nullopt;
}

QString reportFormatSuffix(ReportFormat f) {
  switch (f) {
    case ReportFormat::Html: return QStringLiteral("html");
    case ReportFormat::Pdf: return QStringLiteral("pdf");
    case ReportFormat::Markdown: return QStringLiteral("md");
    case ReportFormat::Json: return QStringLiteral("json");
  }
  return {};
}

QStringList translatableReportLabels() {
  QStringList out;
  for (const char* l : kLabels) out << QString::fromUtf8(l);
  return out;
}

// The zh_CN translations compiled into the app, read by a translator of the report's own: a
// report's language never depends on the translator the interface has installed.
const QTranslator* reportTranslator(const QString& lang) {
  if (lang != QLatin1String("zh_CN")) return nullptr;  // English is the source language
  static QTranslator zh;
  static const bool loaded = zh.load(QStringLiteral(":/i18n/anthro_workbench_zh_CN.qm"));
  return loaded ? &zh : nullptr;
}

ReportOptions reportOptions(const QString& origin, const QString& lang, bool redact_prompts) {
  ReportOptions o;
  o.origin = origin.toStdString();
  o.lang = lang.toStdString();
  o.redact_prompts = redact_prompts;
  // QTranslator::translate is const and only reads: a worker thread may build the report.
  o.translate = [translator = reportTranslator(lang)](const std::string& english) {
    const QString text = translator ? translator->translate("Report", english.c_str()) : QString();
    return text.isEmpty() ? english : text.toStdString();
  };
  o.environment.emplace_back(o.translate("Qt"), qVersion());
  return o;
}

bool writeReportChart(const ReportChart& c, const QString& path, QString* error, ChartStyle style) {
  switch (c.kind) {
    case ChartKind::GateForest:
    case ChartKind::Distribution: return writeEvidenceChart(c, path, error);
    default: return writeLatencyChart(c, path, error, style);
  }
}

QStringList layoutReport(QTextDocument* text, const ReportDocument& doc, int image_width, ChartStyle style) {
  return layoutInto(*text, doc, style, std::clamp(image_width, 200, kChartSize.width()));
}

QString reportHtml(const ReportDocument& doc, ChartStyle style) {
  ChartFiles charts(style);
  return q(report_html(doc, [&](const ReportChart& c) {
    QString svg = charts.draw(c, "svg");
    return svg.isEmpty() ? std::string() : readAll(svg).toStdString();
  }));
}

bool writeReport(const ReportDocument& doc, ReportFormat format, const QString& path, QString* error, ChartStyle style) {
  switch (format) {
    case ReportFormat::Html: return saveAtomically(path, reportHtml(doc, style).toUtf8(), error);
    case ReportFormat::Json: return saveAtomically(path, QByteArray::fromStdString(report_json(doc)), error);
    case ReportFormat::Markdown: return writeMarkdown(doc, path, error, style);
    case ReportFormat::Pdf: return writePdf(doc, path, error, style);
  }
  return false;
}

}  // namespace anthro::widgets
