#include "capture_statistics.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <cmath>

#include "file_dialog.h"
#include "metrics/stats.h"
#include "retranslator.h"
#include "util/files.h"

namespace anthro::widgets {
namespace {

constexpr int kSortRole = Qt::UserRole + 1;
constexpr double kMissing = -1e300;  // sorts before every figure
constexpr int kRowsMeasured = 50;

QStandardItem* text_item(const QString& text) {
  auto* item = new QStandardItem(text);
  item->setData(text, kSortRole);
  item->setEditable(false);
  return item;
}

QStandardItem* number_item(double value, int decimals) {
  const bool missing = std::isnan(value);
  auto* item = new QStandardItem(missing ? QString() : QString::number(value, 'f', decimals));
  item->setData(missing ? kMissing : value, kSortRole);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  item->setEditable(false);
  return item;
}

QStandardItem* count_item(std::uint64_t n) { return number_item(static_cast<double>(n), 0); }

double value_or_nan(const std::optional<double>& v) { return v ? *v : std::nan(""); }

QString csv_field(QString s) {
  if (!s.contains(',') && !s.contains('"') && !s.contains('\n') && !s.contains('\r')) return s;
  return '"' + s.replace('"', QStringLiteral("\"\"")) + '"';
}

std::vector<double> ttfts(const ConnectionAnalysis& c) {
  std::vector<double> out;
  for (const auto& s : c.streams)
    if (s.figures.ttft_ms) out.push_back(*s.figures.ttft_ms);
  return out;
}

void add_distribution(QStandardItemModel* model, const QString& name, const std::vector<double>& samples) {
  const Summary s = summarize(samples);
  model->appendRow({text_item(name), count_item(s.n), number_item(s.min, 2), number_item(s.p50, 2), number_item(s.p90, 2),
                    number_item(s.p95, 2), number_item(s.p99, 2), number_item(s.max, 2)});
}

}  // namespace

CaptureStatistics::CaptureStatistics(QWidget* parent)
    : QWidget(parent), tabs_(new QTabWidget(this)), export_(new QPushButton(this)) {
  for (int t = 0; t < TableCount; ++t) {
    models_[t] = new QStandardItemModel(this);
    models_[t]->setSortRole(kSortRole);
    views_[t] = new QTableView(this);
    views_[t]->setModel(models_[t]);
    views_[t]->setSortingEnabled(true);
    views_[t]->sortByColumn(0, Qt::AscendingOrder);
    views_[t]->verticalHeader()->hide();
    views_[t]->setSelectionBehavior(QAbstractItemView::SelectRows);
    views_[t]->setAlternatingRowColors(true);
    views_[t]->setWordWrap(false);
    views_[t]->horizontalHeader()->setStretchLastSection(true);
    // Columns fit the first rows, not a thousand of them: measuring a thousand rows' cells
    // held the GUI thread 70 ms when a big capture's tables were shown.
    views_[t]->horizontalHeader()->setResizeContentsPrecision(kRowsMeasured);
    tabs_->addTab(views_[t], QString());
  }
  export_->setObjectName("exportStatisticsCsv");
  auto* bar = new QHBoxLayout;
  bar->addStretch(1);
  bar->addWidget(export_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(tabs_, 1);
  layout->addLayout(bar);
  connect(export_, &QPushButton::clicked, this, &CaptureStatistics::exportCurrent);
  connect(views_[Streams], &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    const auto* m = models_[Streams];
    emit streamActivated(m->item(index.row(), 0)->data(kSortRole).toUInt(), m->item(index.row(), 1)->data(kSortRole).toUInt());
  });
  (new Retranslator(this))->add([this] {
    tabs_->setTabText(Connections, tr("Connections"));
    tabs_->setTabText(Streams, tr("Streams"));
    tabs_->setTabText(Ttft, tr("TTFT"));
    export_->setText(tr("Export CSV…"));
    export_->setToolTip(tr("The table shown, in its order, as CSV"));
    views_[Streams]->setToolTip(tr("Double-click a stream to show its frames"));
    setHeaders(models_);
    fill();  // "all connections" is a translated row
  });
}

void CaptureStatistics::setHeaders(const Models& models) {
  models[Connections]->setHorizontalHeaderLabels({tr("No."), tr("Connection"), tr("Transport"), tr("Decryption"),
                                                   tr("Frames"), tr("Streams"), tr("Tokens"), tr("TTFT P50 (ms)"),
                                                   tr("TTFT P99 (ms)"), tr("Retrans."), tr("Bad checksums")});
  models[Streams]->setHorizontalHeaderLabels({tr("Conn"), tr("Stream"), tr("End"), tr("Tokens"), tr("TTFT (ms)"),
                                               tr("E2E (ms)"), tr("Mean ITL (ms)"), tr("P99 ITL (ms)"),
                                               tr("Max gap (ms)"), tr("Tokens/s"), tr("Packets")});
  models[Ttft]->setHorizontalHeaderLabels({tr("Conn"), tr("n"), tr("Min (ms)"), tr("P50 (ms)"), tr("P90 (ms)"),
                                            tr("P95 (ms)"), tr("P99 (ms)"), tr("Max (ms)")});
}

void CaptureStatistics::setAnalysis(std::shared_ptr<const CaptureAnalysis> analysis) {
  analysis_ = std::move(analysis);
  fill();
}

std::shared_ptr<CaptureStatistics::Prepared> CaptureStatistics::prepare(std::shared_ptr<const CaptureAnalysis> analysis,
                                                                        const Sorting& sorting, QThread* gui) {
  auto p = std::make_shared<Prepared>();
  p->analysis = std::move(analysis);
  p->sorting = sorting;
  Models models;
  for (int t = 0; t < TableCount; ++t) {
    p->models[t] = std::make_unique<QStandardItemModel>();
    models[t] = p->models[t].get();
    models[t]->setSortRole(kSortRole);
  }
  setHeaders(models);
  if (p->analysis) fillRows(models, *p->analysis);
  for (int t = 0; t < TableCount; ++t) {
    models[t]->sort(sorting[t].column, sorting[t].order);
    models[t]->moveToThread(gui);  // from its thread, this one: the GUI adopts it
  }
  return p;
}

void CaptureStatistics::showPrepared(std::shared_ptr<Prepared> prepared) {
  analysis_ = prepared->analysis;
  const Sorting now = sorting();
  for (int t = 0; t < TableCount; ++t) {
    QStandardItemModel* old = models_[t];
    QItemSelectionModel* old_selection = views_[t]->selectionModel();
    models_[t] = prepared->models[t].release();
    models_[t]->setParent(this);
    views_[t]->setModel(models_[t]);
    delete old_selection;  // setModel leaves the old one to its caller
    delete old;
    // The header was clicked while the rows were being made: its order, late.
    if (now[t].column != prepared->sorting[t].column || now[t].order != prepared->sorting[t].order)
      models_[t]->sort(now[t].column, now[t].order);
    views_[t]->resizeColumnsToContents();
  }
  export_->setEnabled(analysis_ != nullptr);
}

CaptureStatistics::Sorting CaptureStatistics::sorting() const {
  Sorting sorting;
  for (int t = 0; t < TableCount; ++t) {
    const QHeaderView* h = views_[t]->horizontalHeader();
    sorting[t] = {h->sortIndicatorSection(), h->sortIndicatorOrder()};
  }
  return sorting;
}

void CaptureStatistics::fill() {
  for (auto* m : models_) m->removeRows(0, m->rowCount());
  export_->setEnabled(analysis_ != nullptr);
  if (!analysis_) return;
  fillRows(models_, *analysis_);
  for (int t = 0; t < TableCount; ++t) {
    QHeaderView* h = views_[t]->horizontalHeader();
    models_[t]->sort(h->sortIndicatorSection(), h->sortIndicatorOrder());
    views_[t]->resizeColumnsToContents();
  }
}

// A row a connection, a stream, and a TTFT distribution a connection and for all.
void CaptureStatistics::fillRows(const Models& models, const CaptureAnalysis& analysis) {
  std::vector<double> all;
  for (std::size_t i = 0; i < analysis.connections.size(); ++i) {
    const ConnectionAnalysis& c = analysis.connections[i];
    const auto number = static_cast<std::uint32_t>(i + 1);
    std::uint64_t tokens = 0;
    for (const auto& s : c.streams) tokens += s.figures.tokens;
    const std::vector<double> t = ttfts(c);
    const Summary ttft = summarize(t);
    all.insert(all.end(), t.begin(), t.end());
    models[Connections]->appendRow(
        {count_item(number), text_item(QString::fromStdString(c.info.name)),
         text_item(QString::fromLatin1(to_string(c.info.transport))), text_item(QString::fromStdString(decryption_text(c.info))),
         count_item(c.info.frames), count_item(c.streams.size()), count_item(tokens), number_item(ttft.p50, 2),
         number_item(ttft.p99, 2), count_item(c.info.tcp.retransmissions), count_item(c.info.tcp.bad_checksums)});
    for (const auto& s : c.streams) {
      const RequestFigures& f = s.figures;
      QString packets = s.packets ? QString("%1–%2").arg(s.packets->first).arg(s.packets->second) : QString();
      auto* packets_item = text_item(packets);
      packets_item->setData(s.packets ? static_cast<double>(s.packets->first) : kMissing, kSortRole);
      models[Streams]->appendRow({count_item(number), count_item(s.stream_id), text_item(QString::fromLatin1(to_string(s.end))),
                                   count_item(f.tokens), number_item(value_or_nan(f.ttft_ms), 2),
                                   number_item(value_or_nan(f.e2e_ms), 2), number_item(value_or_nan(f.mean_itl_ms), 2),
                                   number_item(value_or_nan(f.p99_itl_ms), 2), number_item(value_or_nan(f.max_gap_ms), 2),
                                   number_item(value_or_nan(f.tokens_per_s), 1), packets_item});
    }
    add_distribution(models[Ttft], QString::number(number), t);
  }
  add_distribution(models[Ttft], tr("all"), all);
}

QString CaptureStatistics::csv(Table table) const {
  const QStandardItemModel* m = models_[table];
  QStringList lines;
  QStringList cells;
  for (int c = 0; c < m->columnCount(); ++c) cells << csv_field(m->headerData(c, Qt::Horizontal).toString());
  lines << cells.join(',');
  for (int r = 0; r < m->rowCount(); ++r) {
    cells.clear();
    for (int c = 0; c < m->columnCount(); ++c) cells << csv_field(m->item(r, c)->text());
    lines << cells.join(',');
  }
  return lines.join("\r\n") + "\r\n";
}

Result<bool> CaptureStatistics::exportCsv(Table table, const QString& path) const {
  return write_file_atomic(path.toStdString(), csv(table).toStdString());
}

void CaptureStatistics::exportCurrent() {
  const auto table = static_cast<Table>(tabs_->currentIndex());
  const char* names[] = {"connections", "streams", "ttft"};
  const QString path = save_file_name(this, tr("Export statistics"), QStringLiteral("%1.csv").arg(names[table]),
                                      tr("CSV (*.csv);;All files (*)"));
  if (path.isEmpty()) return;
  auto written = exportCsv(table, path);
  emit message(written ? tr("Statistics written to %1").arg(path)
                       : tr("Statistics not written: %1").arg(QString::fromStdString(written.error().detail)));
}

}  // namespace anthro::widgets
