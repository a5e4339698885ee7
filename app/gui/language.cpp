#include "language.h"

#include "retranslator.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QSettings>
#include <QTranslator>

namespace anthro::gui {
namespace {

QString g_current = QStringLiteral("en");

QTranslator& translator() {
  static QTranslator t;
  return t;
}

// Qt's own texts (a message box's standard buttons, file dialogs, a field's context menu), from
// Debian's qt6-translations-l10n; without that package they stay in English.
QTranslator& qt_translator() {
  static QTranslator t;
  return t;
}

}  // namespace

QString current_language() { return g_current; }

void install_language(const QString& code) {
  const bool chinese = code == QLatin1String("zh_CN");
  // Before the translators change: each change sends QEvent::LanguageChange to every widget,
  // which renders core's texts at once.
  widgets::set_message_language(chinese ? "zh_CN" : "en");
  QCoreApplication::removeTranslator(&translator());
  QCoreApplication::removeTranslator(&qt_translator());
  g_current = QStringLiteral("en");
  // English is the source language: no translator needed.
  if (!chinese) return;
  if (!translator().load(QStringLiteral(":/i18n/anthro_workbench_zh_CN.qm"))) {
    widgets::set_message_language("en");
    return;
  }
  if (qt_translator().load(QStringLiteral("qtbase_zh_CN"), QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
    QCoreApplication::installTranslator(&qt_translator());
  QCoreApplication::installTranslator(&translator());
  g_current = code;
}

void install_default_language() {
  QString saved = QSettings().value("ui/language").toString();
  if (saved.isEmpty()) saved = QLocale::system().name().startsWith("zh") ? QStringLiteral("zh_CN") : QStringLiteral("en");
  install_language(saved);
}

}  // namespace anthro::gui
