#include "compare_page.h"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

#include "file_dialog.h"
#include "gui_thread.h"
#include "latency_charts.h"
#include "report/report.h"
#include "retranslator.h"
#include "verdict_chip.h"
#include "job_service.h"

namespace anthro::widgets {
namespace {

QString compare_verdict_text(CompareVerdict v) {
  switch (v) {
    case CompareVerdict::NoWorse: return ComparePage::tr("no worse");
    case CompareVerdict::Worse: return ComparePage::tr("worse");
    case CompareVerdict::Inconclusive: return ComparePage::tr("inconclusive");
  }
  return {};
}

QString figure_number(double v) { return std::isfinite(v) ? QString::number(v, 'g', 4) : QStringLiteral("–"); }

// One side of a figure: "n 300 · p50 40.1 · p99 55" for a distribution, "3 / 300" for a rate.
QString side_text(const FigureComparison& f, const Summary& s, const RateCount& rate) {
  if (f.kind == FigureKind::Rate) return QString("%1 / %2").arg(rate.events).arg(rate.n);
  return QString("n %1 · p50 %2 · p99 %3").arg(s.n).arg(figure_number(s.p50), figure_number(s.p99));
}

QTableWidgetItem* cell(const QString& text) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(item->flags() & ~Qt::ItemIsEditable);
  item->setToolTip(text);
  return item;
}

// A figure's samples as chart points: TTFT per request, ITL samples on the first.
std::vector<RequestPoint> chart_points(const Comparison& c, bool base) {
  std::vector<RequestPoint> points;
  for (const auto& f : c.figures) {
    const auto& samples = base ? f.base_samples : f.candidate_samples;
    if (f.id == "ttft_ms")
      for (std::size_t i = 0; i < samples.size(); ++i) points.push_back({double(i), samples[i], std::nullopt, {}, int(i)});
    if (f.id == "itl_ms" && !samples.empty()) {
      if (points.empty()) points.push_back({});
      points.front().itl_ms = samples;
    }
  }
  return points;
}

}  // namespace

ComparePage::ComparePage(QWidget* parent)
    : QWidget(parent),
      base_(new QLineEdit(this)),
      candidate_(new QLineEdit(this)),
      margin_(new QDoubleSpinBox(this)),
      run_button_(new QPushButton(this)),
      verdict_(new QLabel(this)),
      need_(new QLabel(this)),
      table_(new QTableWidget(0, ColumnCount, this)),
      charts_(new LatencyCharts(this)),
      jobs_(new JobService(this)) {
  margin_->setRange(0, 100);
  margin_->setDecimals(1);
  margin_->setSuffix(" %");
  margin_->setValue(5);
  need_->setWordWrap(true);
  table_->verticalHeader()->hide();
  table_->setItemDelegateForColumn(VerdictColumn, new VerdictChipDelegate(table_));
  table_->horizontalHeader()->setStretchLastSection(true);
  // The six request figures and a checklist item or two without scrolling.
  table_->setMinimumHeight(table_->horizontalHeader()->sizeHint().height() +
                           8 * table_->verticalHeader()->defaultSectionSize() + 2 * table_->frameWidth());
  charts_->setChartVisible(LatencyCharts::TtftOverTime, false);
  charts_->setChartVisible(LatencyCharts::TokenRate, false);

  auto* form = new QFormLayout;
  auto* base_label = new QLabel(this);
  auto* candidate_label = new QLabel(this);
  auto* margin_label = new QLabel(this);
  auto side_row = [this](QLineEdit* edit, QPushButton* browse) {
    auto* row = new QHBoxLayout;
    row->addWidget(edit, 1);
    row->addWidget(browse);
    connect(browse, &QPushButton::clicked, this, [this, edit] { browseInto(edit); });
    return row;
  };
  auto* base_browse = new QPushButton(this);
  auto* candidate_browse = new QPushButton(this);
  form->addRow(base_label, side_row(base_, base_browse));
  form->addRow(candidate_label, side_row(candidate_, candidate_browse));
  auto* run_row = new QHBoxLayout;
  run_row->addWidget(margin_);
  run_row->addWidget(run_button_);
  run_row->addWidget(verdict_, 1);
  form->addRow(margin_label, run_row);

  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(table_);
  split->addWidget(charts_);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addLayout(form);
  layout->addWidget(need_);
  layout->addWidget(split, 1);

  connect(run_button_, &QPushButton::clicked, this, &ComparePage::run);
  (new Retranslator(this))->add([=, this] {
    base_label->setText(tr("Base"));
    candidate_label->setText(tr("Candidate"));
    margin_label->setText(tr("Margin"));
    for (QPushButton* b : {base_browse, candidate_browse}) b->setText(tr("Browse…"));
    const QString placeholder = tr("A saved result (session, bench, analyze, diagnose, a rollout arm) or a capture");
    base_->setPlaceholderText(placeholder);
    candidate_->setPlaceholderText(placeholder);
    margin_->setToolTip(tr("How much worse the candidate may be before a figure counts as worse"));
    retranslate();
  });
}

ComparePage::~ComparePage() = default;  // the job ends with the JobService, joined off this thread

void ComparePage::setBase(const QString& spec) { base_->setText(spec); }
void ComparePage::setCandidate(const QString& spec) { candidate_->setText(spec); }
void ComparePage::setMargin(double fraction) { margin_->setValue(fraction * 100); }

void ComparePage::browseInto(QLineEdit* into) {
  QString path = open_file_name(this, tr("Open a result or a capture"),
                                tr("Results and captures (*.json *.pcap *.pcapng);;All files (*)"));
  if (!path.isEmpty()) into->setText(path);
}

bool ComparePage::run() {
  if (running()) return false;
  const std::string base = base_->text().trimmed().toStdString(), candidate = candidate_->text().trimmed().toStdString();
  if (base.empty() || candidate.empty()) {
    emit message(tr("Compare: name a base and a candidate"));
    return false;
  }
  CompareOptions options;
  options.margin = margin_->value() / 100;
  run_button_->setEnabled(false);
  verdict_->setText(tr("Comparing…"));
  running_ = true;
  jobs_->start([base, candidate, keys = keys_, options, this](JobContext& job) {
    auto b = load_compare_input(base, keys);
    auto c = b ? load_compare_input(candidate, keys) : Result<CompareInput>(b.error());
    if (!b || !c) {
      QString why = QString::fromStdString((b ? c : b).error().detail);
      return job.post([this, why] { failed(why); });
    }
    Comparison result = compare_results(*b, *c, options);
    job.post([this, result = std::move(result)] { showComparison(result); });
  });
  return true;
}

void ComparePage::failed(const QString& why) {
  running_ = false;
  run_button_->setEnabled(true);
  verdict_->setText(why);
  emit message(tr("Compare: %1").arg(why));
  emit finished(false);
}

void ComparePage::showComparison(Comparison c) {
  running_ = false;
  run_button_->setEnabled(true);
  comparison_ = std::move(c);
  saved_ = false;
  table_->setRowCount(int(comparison_->figures.size()));
  retranslate();
  table_->resizeColumnsToContents();
  showCharts(*comparison_);
  emit message(tr("Compare: %1").arg(verdictText()));
  emit finished(true);
}

void ComparePage::showFigure(int row, const FigureComparison& f) {
  table_->setItem(row, FigureColumn, cell(QString::fromStdString(f.id)));
  table_->setItem(row, BaseColumn, cell(side_text(f, f.base, f.base_rate)));
  table_->setItem(row, CandidateColumn, cell(side_text(f, f.candidate, f.candidate_rate)));
  table_->setItem(row, RatioP50Column, cell(figure_number(f.ratio_p50)));
  // Distributions: the P99 ratio; rates: the difference in points, each with its interval.
  const double scale = f.kind == FigureKind::Rate ? 100 : 1;
  const QString unit = f.kind == FigureKind::Rate ? tr(" points") : QString();
  table_->setItem(row, RatioP99Column,
                  cell(QString("%1%2 [%3, %4]")
                           .arg(figure_number(f.judged.statistic * scale), unit, figure_number(f.judged.interval.low * scale),
                                figure_number(f.judged.interval.high * scale))));
  table_->setItem(row, ShapeColumn, cell(f.ks ? QString("KS p %1%2").arg(figure_number(f.ks_p_holm),
                                                                           f.shape_changed ? tr(" (changed)") : QString())
                                              : QStringLiteral("–")));
  auto* verdict = cell(compare_verdict_text(f.verdict));
  verdict->setData(kChipColourRole, verdict_colour(comparison_verdict(to_string(f.verdict))));
  table_->setItem(row, VerdictColumn, verdict);
  const bool need = f.need_more && *f.need_more > 0;
  const QString need_unit = QString::fromStdString(name_in("unit.", f.need_unit, message_language()));
  table_->setItem(row, NeedColumn, cell(need ? QString("%1 %2").arg(*f.need_more).arg(need_unit) : QString()));
  table_->setItem(row, ReasonColumn, cell(rendered(f.reason_text)));
}

void ComparePage::showCharts(const Comparison& c) {
  charts_->clear();
  charts_->setSeriesName(0, tr("base"));
  charts_->setSeriesName(1, tr("candidate"));
  charts_->addPoints(0, chart_points(c, true));
  charts_->addPoints(1, chart_points(c, false));
  charts_->flush();
}

QString ComparePage::needText() const { return need_->text(); }

QString ComparePage::verdictText() const {
  if (!comparison_) return {};
  return tr("%1 (margin %2 %)").arg(compare_verdict_text(comparison_->verdict)).arg(comparison_->options.margin * 100);
}

void ComparePage::retranslate() {
  run_button_->setText(tr("Compare"));
  table_->setHorizontalHeaderLabels({tr("Figure"), tr("Base"), tr("Candidate"), tr("P50 ratio"), tr("P99 ratio or rate difference [interval]"),
                                     tr("Shape"), tr("Verdict"), tr("Need more"), tr("Why")});
  if (!comparison_) return;
  verdict_->setText(verdictText());
  verdict_->setStyleSheet(QString("QLabel { color: %1; font-weight: bold; }")
                              .arg(verdict_colour(comparison_verdict(to_string(comparison_->verdict))).name()));
  const QString corrected = rendered(comparison_->corrected_text);
  need_->setText(comparison_->need_text.empty() ? corrected : rendered(comparison_->need_text) + '\n' + corrected);
  for (int row = 0; row < table_->rowCount(); ++row) showFigure(row, comparison_->figures[std::size_t(row)]);
  charts_->setSeriesName(0, tr("base"));
  charts_->setSeriesName(1, tr("candidate"));
}

}  // namespace anthro::widgets
