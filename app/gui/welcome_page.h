// The first page: what a user can do, and the captures opened recently.
#pragma once

#include <QElapsedTimer>
#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;

namespace anthro::gui {

class WelcomePage : public QWidget {
  Q_OBJECT
 public:
  explicit WelcomePage(QWidget* parent = nullptr);
  void setRecentFiles(const QStringList& paths);
  QListWidget* recentList() const { return recent_; }

 signals:
  void openCaptureRequested();
  void newSessionRequested();
  void startCaptureRequested();
  void recentRequested(const QString& path);

 private:
  void retranslate();
  QLabel* title_;
  QLabel* subtitle_;
  QPushButton* open_;
  QPushButton* session_;
  QPushButton* capture_;
  QLabel* recent_title_;
  QListWidget* recent_;
  QString last_opened_;
  QElapsedTimer opened_;
};

}  // namespace anthro::gui
