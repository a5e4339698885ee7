#include "retranslator.h"

#include <QEvent>
#include <QWidget>

namespace anthro::widgets {
namespace {

// Set and read on the GUI thread only.
std::string g_message_language = "en";

}  // namespace

void set_message_language(const std::string& code) { g_message_language = code; }
std::string message_language() { return g_message_language; }
QString rendered(const MessageText& text) { return QString::fromStdString(render(text, g_message_language)); }

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
