#include "verdict_chip.h"

#include <QPainter>
#include <QPainterPath>

namespace anthro::widgets {

QString verdict_text(Verdict v) {
  switch (v) {
    case Verdict::Pass: return VerdictChipDelegate::tr("pass");
    case Verdict::Warn: return VerdictChipDelegate::tr("warn");
    case Verdict::Fail: return VerdictChipDelegate::tr("fail");
    case Verdict::Inconclusive: return VerdictChipDelegate::tr("inconclusive");
    case Verdict::Manual: return VerdictChipDelegate::tr("manual");
  }
  return {};
}

QColor verdict_colour(Verdict v) {
  switch (v) {
    case Verdict::Pass: return QColor(0x2e, 0x9d, 0x57);
    case Verdict::Warn: return QColor(0xd9, 0x8a, 0x12);
    case Verdict::Fail: return QColor(0xd0, 0x3a, 0x3a);
    case Verdict::Inconclusive: return QColor(0x86, 0x8c, 0x96);
    case Verdict::Manual: return QColor(0x3a, 0x78, 0xd0);
  }
  return Qt::gray;
}

void VerdictChipDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
  const QVariant colour = index.data(kChipColourRole);
  if (!colour.canConvert<QColor>() || !colour.value<QColor>().isValid())
    return QStyledItemDelegate::paint(painter, option, index);
  QStyleOptionViewItem plain = option;
  initStyleOption(&plain, index);
  plain.text.clear();
  option.widget->style()->drawControl(QStyle::CE_ItemViewItem, &plain, painter, option.widget);  // selection background
  const QString text = index.data(Qt::DisplayRole).toString();
  const QFontMetrics fm(option.font);
  QRect chip(option.rect.left() + 4, option.rect.center().y() - fm.height() / 2 - 2, fm.horizontalAdvance(text) + 16,
             fm.height() + 4);
  painter->save();
  painter->setRenderHint(QPainter::Antialiasing);
  QPainterPath path;
  path.addRoundedRect(chip, chip.height() / 2.0, chip.height() / 2.0);
  painter->fillPath(path, colour.value<QColor>());
  painter->setPen(Qt::white);
  painter->drawText(chip, Qt::AlignCenter, text);
  painter->restore();
}

QSize VerdictChipDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const {
  QSize s = QStyledItemDelegate::sizeHint(option, index);
  return {s.width() + 24, s.height() + 6};
}

}  // namespace anthro::widgets
