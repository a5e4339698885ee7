#include "file_dialog.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QSettings>

namespace anthro::widgets {
namespace {

const char* const kKey = "ui/lastDir";

QString remember(const QString& path) {
  if (!path.isEmpty()) QSettings().setValue(kKey, QFileInfo(path).absolutePath());
  return path;
}

}  // namespace

QString last_directory() {
  const QString dir = QSettings().value(kKey).toString();
  return !dir.isEmpty() && QFileInfo(dir).isDir() ? dir : QDir::homePath();
}

QString open_file_name(QWidget* parent, const QString& caption, const QString& filter) {
  return remember(QFileDialog::getOpenFileName(parent, caption, last_directory(), filter));
}

QString save_file_name(QWidget* parent, const QString& caption, const QString& file_name, const QString& filter) {
  return remember(QFileDialog::getSaveFileName(parent, caption, QDir(last_directory()).filePath(file_name), filter));
}

QString existing_directory(QWidget* parent, const QString& caption) {
  const QString dir = QFileDialog::getExistingDirectory(parent, caption, last_directory());
  if (!dir.isEmpty()) QSettings().setValue(kKey, QFileInfo(dir).absoluteFilePath());
  return dir;
}

}  // namespace anthro::widgets
