// Texts that follow the interface language while the app runs: a widget hands its text-setting
// code to a Retranslator, which runs it at once and again on every QEvent::LanguageChange
// (sent to all widgets when a translator is installed or removed).
#pragma once

#include <QObject>
#include <QString>
#include <functional>
#include <string>
#include <vector>

#include "util/message.h"

class QWidget;

namespace anthro::widgets {

class Retranslator : public QObject {
 public:
  explicit Retranslator(QWidget* owner);
  void add(std::function<void()> apply);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  std::vector<std::function<void()>> texts_;
};

// The language core's messages (util/message.h) render in: the interface's, "en" or "zh_CN",
// set where the translator is installed.
void set_message_language(const std::string& code);
std::string message_language();
// A core text in the interface's language.
QString rendered(const MessageText& text);

}  // namespace anthro::widgets
