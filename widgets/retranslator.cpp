#include "retranslator.h"

#include <QEvent>
#include <QWidget>

namespace anthro::widgets {

Retranslator::Retranslator(QWidget* owner) : QObject(owner) { owner->installEventFilter(this); }

void Retranslator::add(std::function<void()> apply) {
  apply();
  texts_.push_back(std::move(apply));
}

bool Retranslator::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::LanguageChange && watched == parent())
    for (const auto& apply : texts_) apply();
  return QObject::eventFilter(watched, event);
}

}  // namespace anthro::widgets
