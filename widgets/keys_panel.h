// The keys panel: key log files (watched, re-read when they grow), server static keys (PEM)
// and the keys a capture carries in its DSBs, each with the connections of the shown capture
// it opens. A key that opens nothing is worth seeing too: it is the usual reason a capture
// does not decrypt.
#pragma once

#include <QStringList>
#include <QWidget>
#include <vector>

#include "capture/capture_decoder.h"

class QFileSystemWatcher;
class QPushButton;
class QTreeWidget;

namespace anthro::widgets {

class KeysPanel : public QWidget {
  Q_OBJECT
 public:
  explicit KeysPanel(QWidget* parent = nullptr);

  // Errors (unreadable file, not a key) are reported through message() and the file is not added.
  bool addKeylog(const QString& path);
  bool addServerKey(const QString& path);
  void remove(const QString& path);
  // The files of the selected rows (key logs and PEM keys; DSB keys cannot be removed).
  QStringList selectedFiles() const;
  QPushButton* addKeylogButton() const { return add_keylog_; }
  QPushButton* addServerKeyButton() const { return add_pem_; }
  QPushButton* removeButton() const { return remove_; }
  QStringList keylogs() const { return keylogs_; }
  QStringList serverKeys() const { return server_keys_; }
  // Which connections of a capture each key opens.
  void showCapture(const QString& capture, const std::vector<CaptureConnection>& connections,
                   const std::vector<std::string>& embedded_keylogs);
  QTreeWidget* tree() const { return tree_; }

 signals:
  void keysChanged();  // a key file was added or removed, or a key log grew
  void message(const QString& text);

 private:
  void rebuild();
  void updateButtons();

  QTreeWidget* tree_;
  QPushButton *add_keylog_, *add_pem_, *remove_;
  QFileSystemWatcher* watcher_;
  QStringList keylogs_, server_keys_;
  QString capture_;
  std::vector<CaptureConnection> connections_;
  std::vector<std::string> embedded_;
};

}  // namespace anthro::widgets
