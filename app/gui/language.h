// The interface language: English or Simplified Chinese, from the settings, else the system
// locale; switchable at run time (widgets retranslate on QEvent::LanguageChange).
#pragma once

#include <QString>

namespace anthro::gui {

// "en" or "zh_CN".
QString current_language();
void install_language(const QString& code);
// At start-up: the saved choice, else the system locale.
void install_default_language();

}  // namespace anthro::gui
