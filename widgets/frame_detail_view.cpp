#include "frame_detail_view.h"

#include <QFontDatabase>
#include <QHeaderView>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "retranslator.h"
#include "session_tracer.h"

namespace anthro::widgets {

namespace {
constexpr int kBeginRole = Qt::UserRole + 1;
constexpr int kEndRole = Qt::UserRole + 2;
}  // namespace

FrameDetailView::FrameDetailView(QWidget* parent)
    : QWidget(parent), tree_(new QTreeWidget(this)), json_(new QPlainTextEdit(this)) {
  tree_->setColumnCount(3);
  tree_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  tree_->header()->setSectionResizeMode(1, QHeaderView::Stretch);
  tree_->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
  tree_->header()->setStretchLastSection(false);
  tree_->setUniformRowHeights(true);
  json_->setReadOnly(true);
  json_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(tree_);
  split->addWidget(json_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(split);
  (new Retranslator(this))->add([this] {
    tree_->setHeaderLabels({tr("Field"), tr("Value"), tr("Bytes")});
    json_->setPlaceholderText(tr("REQUEST and RESPONSE bodies, HTTP request bodies and SSE event data appear here as JSON (api_key redacted)."));
    if (shown_) rebuild();
  });
  connect(tree_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    if (!item || !item->data(0, kBeginRole).isValid()) return;
    emit fieldSelected(item->data(0, kBeginRole).toLongLong(), item->data(0, kEndRole).toLongLong());
  });
}

void FrameDetailView::showFrame(std::size_t frame, const FrameDetail& d) {
  shown_.emplace(frame, d);
  rebuild();
}

void FrameDetailView::rebuild() {
  const auto& [frame, d] = *shown_;
  tree_->clear();
  auto* top = new QTreeWidgetItem(tree_);
  top->setText(0, tr("Frame %1").arg(frame + 1));
  top->setText(1, tr("%1, %2 bytes, %3")
                      .arg(QString::fromLatin1(row_type_name(d.row)))
                      .arg(d.bytes.size())
                      .arg(QString::fromStdString(d.status)));
  QTreeWidgetItem* parent = nullptr;
  for (const FrameField& f : d.fields) {
    auto* item = f.depth == 0 || !parent ? new QTreeWidgetItem(tree_) : new QTreeWidgetItem(parent);
    if (f.depth == 0) parent = item;
    item->setText(0, QString::fromStdString(f.name));
    QString value = QString::fromStdString(f.value);
    if (value.size() > 200) value = value.left(200) + QStringLiteral("…");
    item->setText(1, value);
    item->setToolTip(1, QString::fromStdString(f.value).left(4000));
    item->setText(2, f.end > f.begin ? QString("%1–%2").arg(f.begin).arg(f.end - 1) : QString());
    item->setData(0, kBeginRole, QVariant::fromValue<qlonglong>(static_cast<qlonglong>(f.begin)));
    item->setData(0, kEndRole, QVariant::fromValue<qlonglong>(static_cast<qlonglong>(f.end)));
  }
  addTracerFields(d);
  tree_->expandAll();
  json_->setPlainText(QString::fromStdString(d.pretty_json));
}

// An HTTP message's session tracer values, each with the bytes of the line it came from.
void FrameDetailView::addTracerFields(const FrameDetail& d) {
  QTreeWidgetItem* section = nullptr;
  for (TracerColumn c = 0; c < tracer_columns().size(); ++c) {
    QString value = tracer_text(d, c);
    if (value.isEmpty()) continue;
    if (!section) {
      section = new QTreeWidgetItem(tree_);
      section->setText(0, tr("Session tracer"));
    }
    auto* item = new QTreeWidgetItem(section);
    item->setText(0, tracer_title(c));
    item->setText(1, value);
    if (auto range = tracer_range(d, c)) {
      item->setText(2, QString("%1–%2").arg(range->first).arg(range->second - 1));
      item->setData(0, kBeginRole, QVariant::fromValue<qlonglong>(static_cast<qlonglong>(range->first)));
      item->setData(0, kEndRole, QVariant::fromValue<qlonglong>(static_cast<qlonglong>(range->second)));
    }
  }
}

void FrameDetailView::clear() {
  shown_.reset();
  tree_->clear();
  json_->clear();
}

QTreeWidgetItem* FrameDetailView::find(const QString& name) const {
  auto items = tree_->findItems(name, Qt::MatchExactly | Qt::MatchRecursive, 0);
  return items.isEmpty() ? nullptr : items.first();
}

QString FrameDetailView::fieldValue(const QString& name) const {
  auto* item = find(name);
  return item ? item->text(1) : QString();
}

bool FrameDetailView::selectField(const QString& name) {
  auto* item = find(name);
  if (item) tree_->setCurrentItem(item);
  return item;
}

}  // namespace anthro::widgets
