// File dialogs that open where the person last picked a file (QSettings "ui/lastDir"), not in
// the working directory the app was started from; the home directory the first time.
#pragma once

#include <QString>

class QWidget;

namespace anthro::widgets {

QString last_directory();
// Empty when cancelled; the picked file's directory becomes the last one.
QString open_file_name(QWidget* parent, const QString& caption, const QString& filter);
QString save_file_name(QWidget* parent, const QString& caption, const QString& file_name, const QString& filter);
// A folder to save several files into; it becomes the last directory.
QString existing_directory(QWidget* parent, const QString& caption);

}  // namespace anthro::widgets
