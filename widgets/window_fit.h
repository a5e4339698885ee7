// How large a dialog opens: what it asks for, never more than the window it belongs to nor
// the screen it is on (a 1024×700 laptop keeps its buttons in view), never less than its
// layout needs.
#pragma once

#include <QGuiApplication>
#include <QScreen>
#include <QWidget>

namespace anthro::widgets {

inline QSize fitted_size(const QWidget* dialog, QSize wanted) {
  QSize room = wanted;
  if (const QWidget* owner = dialog->parentWidget() ? dialog->parentWidget()->window() : nullptr)
    room = room.boundedTo(owner->size());
  if (const QScreen* screen = dialog->screen() ? dialog->screen() : QGuiApplication::primaryScreen())
    room = room.boundedTo(screen->availableGeometry().size());
  return room.expandedTo(dialog->minimumSizeHint());
}

inline void fit_dialog(QWidget* dialog, QSize wanted) { dialog->resize(fitted_size(dialog, wanted)); }

}  // namespace anthro::widgets
