// Texts that follow the interface language while the app runs: a widget hands its text-setting
// code to a Retranslator, which runs it at once and again on every QEvent::LanguageChange
// (sent to all widgets when a translator is installed or removed).
#pragma once

#include <QObject>
#include <functional>
#include <vector>

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

}  // namespace anthro::widgets
