#include "evidence_view.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <cmath>

#include "diagnosis_model.h"
#include "evidence_chart.h"
#include "retranslator.h"

namespace anthro::widgets {
namespace {

QString number(double v) { return QString::number(v, 'g', 4); }

// The threshold lines of `item` that are drawn in `unit` (a ratio threshold has no place on a
// chart in milliseconds).
std::vector<EvidenceChart::Line> lines_in(const ChecklistItem& item, const std::string& unit) {
  std::vector<EvidenceChart::Line> lines;
  for (const auto& t : item.thresholds)
    if (t.unit == unit)
      lines.push_back({t.value, QString::fromStdString(t.name + " " + number(t.value).toStdString() + " " + t.unit + " → ") +
                                    verdict_text(t.verdict),
                       verdict_colour(t.verdict)});
  return lines;
}

// One stream's token gaps: (seconds since the request, ms since the token before).
std::vector<std::pair<double, double>> token_gaps(const RequestResult& r) {
  std::vector<std::pair<double, double>> gaps;
  const auto& tokens = r.timeline.tokens;
  for (std::size_t i = 1; i < tokens.size(); ++i)
    gaps.emplace_back(tokens[i].t - r.timeline.request_written, (tokens[i].t - tokens[i - 1].t) * 1000);
  return gaps;
}

QString sources_text(const std::vector<ProbeSource>& sources, const std::string& lang) {
  QStringList out;
  for (ProbeSource s : sources) out << QString::fromStdString(render(Message(std::string("source.") + to_string(s)), lang));
  return out.join(EvidenceView::tr(", "));
}

}  // namespace

EvidenceView::EvidenceView(QWidget* parent)
    : QWidget(parent),
      title_(new QLabel(this)),
      chip_(new QLabel(this)),
      reason_(new QLabel(this)),
      cause_(new QLabel(this)),
      statistic_(new QLabel(this)),
      n_(new QLabel(this)),
      threshold_(new QLabel(this)),
      sources_(new QLabel(this)),
      chart_(new EvidenceChart(this)),
      refs_(new QTreeWidget(this)),
      manual_box_(new QGroupBox(this)),
      tick_(new QCheckBox(this)),
      note_(new QLineEdit(this)),
      remedy_(new QLabel(this)),
      rerun_(new QPushButton(this)) {
  QFont bold = title_->font();
  bold.setBold(true);
  bold.setPointSizeF(bold.pointSizeF() * 1.15);
  title_->setFont(bold);
  title_->setWordWrap(true);
  for (QLabel* l : {reason_, statistic_, n_, threshold_, sources_, remedy_}) {
    l->setWordWrap(true);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  }
  refs_->setColumnCount(3);
  refs_->setRootIsDecorated(false);
  refs_->setUniformRowHeights(true);
  refs_->header()->setSectionResizeMode(0, QHeaderView::Stretch);

  auto* head = new QHBoxLayout;
  head->addWidget(chip_);
  head->addWidget(title_, 1);
  head->addWidget(rerun_);
  auto* figures = new QFormLayout;
  auto* statistic_label = new QLabel(this);
  auto* n_label = new QLabel(this);
  auto* threshold_label = new QLabel(this);
  auto* sources_label = new QLabel(this);
  figures->addRow(statistic_label, statistic_);
  figures->addRow(n_label, n_);
  figures->addRow(threshold_label, threshold_);
  figures->addRow(sources_label, sources_);
  auto* manual_layout = new QHBoxLayout(manual_box_);
  manual_layout->addWidget(tick_);
  manual_layout->addWidget(note_, 1);
  auto* remedy_box = new QGroupBox(this);
  (new QVBoxLayout(remedy_box))->addWidget(remedy_);

  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(chart_);
  split->addWidget(refs_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(head);
  layout->addWidget(reason_);
  layout->addWidget(cause_);
  layout->addLayout(figures);
  layout->addWidget(split, 1);
  layout->addWidget(manual_box_);
  layout->addWidget(remedy_box);

  (new Retranslator(this))->add([=, this] {
    statistic_label->setText(tr("Statistic"));
    n_label->setText(tr("n"));
    threshold_label->setText(tr("Threshold"));
    sources_label->setText(tr("Measured by"));
    refs_->setHeaderLabels({tr("Connection"), tr("Stream"), tr("Value")});
    refs_->setToolTip(tr("Click a stream to see its frames in the capture inspector"));
    manual_box_->setTitle(tr("Manual check"));
    tick_->setText(tr("Checked"));
    note_->setPlaceholderText(tr("What you checked, and what you found"));
    remedy_box->setTitle(tr("Remedy"));
    rerun_->setText(tr("Re-run this item"));
    showRow(model_, row_);
  });

  connect(refs_, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
    emit refActivated(row_, item->data(0, Qt::UserRole).toInt());
  });
  cause_->setWordWrap(true);
  cause_->setTextFormat(Qt::RichText);
  connect(cause_, &QLabel::linkActivated, this, [this](const QString& id) { emit causeActivated(id); });
  connect(chart_, &EvidenceChart::clicked, this, &EvidenceView::onChartClicked);
  connect(rerun_, &QPushButton::clicked, this, [this] { emit rerunRequested(row_); });
  connect(tick_, &QCheckBox::toggled, this, [this](bool on) { emit manualTicked(row_, on, note_->text()); });
  connect(note_, &QLineEdit::editingFinished, this, [this] {
    if (tick_->isChecked()) emit manualTicked(row_, true, note_->text());
  });
  showRow(nullptr, -1);
}

void EvidenceView::setRerunEnabled(bool on) { rerun_->setEnabled(on && row_ >= 0); }

QString EvidenceView::figure(const QString& name) const {
  if (name == "reason") return reason_->text();
  if (name == "statistic") return statistic_->text();
  if (name == "n") return n_->text();
  if (name == "threshold") return threshold_->text();
  if (name == "sources") return sources_->text();
  return {};
}

void EvidenceView::showRow(const DiagnosisModel* model, int row) {
  model_ = model;
  row_ = model && row >= 0 && row < model->rowCount() ? row : -1;
  rerun_->setEnabled(row_ >= 0);
  if (row_ < 0) {
    title_->setText(tr("Run the diagnosis, then pick an item."));
    for (QLabel* l : {chip_, reason_, cause_, statistic_, n_, threshold_, sources_, remedy_}) l->clear();
    chip_->setStyleSheet({});
    refs_->clear();
    manual_box_->hide();
    chart_->clear(QString());
    return;
  }
  showFigures();
  showChart();
  showRefs();
}

void EvidenceView::showCause() {
  const DiagnosisRow& r = model_->row(row_);
  const auto& cause = r.result ? r.result->caused_by : std::nullopt;
  cause_->setVisible(cause.has_value());
  if (!cause) return cause_->clear();
  const QString id = QString::fromStdString(cause->id);
  const int at = model_->rowOf(id);
  const QString name = (at >= 0 ? model_->title(at) : id).toHtmlEscaped();
  cause_->setText(tr("Caused by %1: %2")
                      .arg(QString("<a href=\"%1\">%2</a>").arg(id.toHtmlEscaped(), name),
                           model_->causeWhy(row_).toHtmlEscaped()));
}

void EvidenceView::showFigures() {
  const DiagnosisRow& r = model_->row(row_);
  title_->setText(model_->title(row_));
  title_->setToolTip(QString::fromStdString(r.item.id));
  remedy_->setText(model_->remedy(row_));
  const QModelIndex verdict = model_->index(row_, DiagnosisModel::VerdictColumn);
  chip_->setText(model_->data(verdict, Qt::DisplayRole).toString());
  const QColor colour = r.result ? verdict_colour(r.result->verdict) : QColor(Qt::gray);
  chip_->setStyleSheet(QString("QLabel { background: %1; color: white; border-radius: 8px; padding: 2px 10px; }").arg(colour.name()));
  const bool manual = r.item.probe == "manual";
  manual_box_->setVisible(manual);
  if (manual) {
    QSignalBlocker block(tick_);
    tick_->setChecked(r.ticked);
    note_->setText(r.note);
  }
  showCause();
  if (!r.result) {
    reason_->setText(tr("Not run yet."));
    for (QLabel* l : {statistic_, n_, threshold_, sources_}) l->clear();
    return;
  }
  const ItemResult& res = *r.result;
  reason_->setText(model_->reason(row_));
  const std::string lang = model_->language().toStdString();
  statistic_->setText(res.statistic ? QString::fromStdString(name_in("statistic.", res.statistic_name, lang)) + ": " +
                                          number(*res.statistic) + " " + QString::fromStdString(res.unit)
                                    : QStringLiteral("–"));
  QString n = QString::number(res.n) + " " + QString::fromStdString(name_in("unit.", r.item.n_unit, lang));
  if (res.need_more) n += tr(" (%1 more needed, at least %2)").arg(res.need_more).arg(r.item.min_n);
  n_->setText(n);
  threshold_->setText(QString::fromStdString(lang == "en" ? res.threshold : anthro::render(res.threshold_text, lang, res.threshold)));
  sources_->setText(sources_text(res.sources, lang));
}

void EvidenceView::showChart() {
  const DiagnosisRow& r = model_->row(row_);
  if (!r.result) return chart_->clear(QString());
  const ItemResult& res = *r.result;
  const bool has_request = !res.refs.empty() && res.refs.front().request && r.run &&
                           *res.refs.front().request < r.run->observations.requests.size();
  if (r.item.id == "server-stall" && has_request) {
    const RequestResult& worst = r.run->observations.requests[*res.refs.front().request].record();
    return chart_->showTimeline(tr("Token gaps of stream %1, the longest pause").arg(worst.stream_id), token_gaps(worst),
                                lines_in(r.item, "ms"));
  }
  if (!res.samples.empty()) {
    return chart_->showDistribution(QString::fromStdString(name_in("statistic.", res.statistic_name, model_->language().toStdString())), res.samples, QString::fromStdString(res.unit),
                                    lines_in(r.item, res.unit));
  }
  chart_->clear(tr("No distribution for this item: its evidence is listed below."));
}

void EvidenceView::showRefs() {
  refs_->clear();
  const DiagnosisRow& r = model_->row(row_);
  if (!r.result) return;
  for (std::size_t i = 0; i < r.result->refs.size(); ++i) {
    const EvidenceRef& ref = r.result->refs[i];
    QString conn = QString::fromStdString(ref.conn);
    if (r.run)
      if (auto found = r.run->conn_names.find(ref.conn); found != r.run->conn_names.end())
        conn += " → " + QString::fromStdString(found->second);
    auto* item = new QTreeWidgetItem(refs_, {conn, ref.stream_id ? QString::number(*ref.stream_id) : QStringLiteral("–"),
                                             ref.value ? number(*ref.value) : QString()});
    item->setData(0, Qt::UserRole, static_cast<int>(i));
  }
}

// A click on the chart picks the stream it shows, or the reference nearest the value clicked.
void EvidenceView::onChartClicked(double x) {
  if (row_ < 0 || !model_->row(row_).result) return;
  const auto& refs = model_->row(row_).result->refs;
  if (refs.empty()) return;
  if (chart_->kind() == EvidenceChart::Kind::Timeline) return emit refActivated(row_, 0);
  std::size_t best = 0;
  for (std::size_t i = 1; i < refs.size(); ++i)
    if (std::abs(refs[i].value.value_or(0) - x) < std::abs(refs[best].value.value_or(0) - x)) best = i;
  emit refActivated(row_, static_cast<int>(best));
}

}  // namespace anthro::widgets
