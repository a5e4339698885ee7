// Verdicts as a person sees them, one way on every page: the translated word, its colour, and
// the rounded chip a table draws it as (the Diagnosis page's items, the Rollout page's stages
// and gates).
#pragma once

#include <QColor>
#include <QString>
#include <QStyledItemDelegate>

#include "diagnosis/checklist.h"

namespace anthro::widgets {

QString verdict_text(Verdict v);  // translated
QColor verdict_colour(Verdict v);

// The role in which a model gives a cell's chip colour (a QColor); a cell without one is
// painted as plain text.
inline constexpr int kChipColourRole = Qt::UserRole + 64;

// Paints a cell's text as a rounded chip in the colour of kChipColourRole.
class VerdictChipDelegate : public QStyledItemDelegate {
  Q_OBJECT
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

}  // namespace anthro::widgets
