#include "keys_panel.h"

#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "crypto/key_schedule.h"
#include "file_dialog.h"
#include "retranslator.h"
#include "crypto/keylog.h"
#include "util/files.h"

namespace anthro::widgets {
namespace {

constexpr int kPathRole = Qt::UserRole + 1;  // a key file's row: its path

// The connections a key log's lines belong to: ANTHRO_V1 by connection token, TLS secrets by
// the ClientHello's random.
QStringList opened_by(const KeyLog& log, const std::vector<CaptureConnection>& connections) {
  QStringList names;
  for (const auto& c : connections) {
    bool match = false;
    std::uint64_t token = c.offer ? c.offer->connection_token : 0;
    for (const auto& line : log.anthro) match = match || (token && line.token == token);
    for (const auto& line : log.tls)
      match = match || (!c.tls_client_random.empty() && line.client_random == c.tls_client_random);
    if (match) names << QString::fromStdString(c.name);
  }
  return names;
}

QStringList opened_by(const Key32& server_public, const std::vector<CaptureConnection>& connections) {
  QStringList names;
  for (const auto& c : connections)
    if (c.answer && c.answer->x25519_public == server_public) names << QString::fromStdString(c.name);
  return names;
}

void add_connections(QTreeWidgetItem* item, const QStringList& names, bool have_capture) {
  if (!have_capture) return;
  // English has no translator to pick a plural form: say "1 connection" in its own words.
  const int n = static_cast<int>(names.size());
  item->setText(2, n == 0 ? QObject::tr("opens no connection of this capture")
                   : n == 1 ? QObject::tr("opens 1 connection")
                            : QObject::tr("opens %n connections", nullptr, n));
  for (const QString& name : names) (new QTreeWidgetItem(item))->setText(0, name);
}

}  // namespace

KeysPanel::KeysPanel(QWidget* parent)
    : QWidget(parent),
      tree_(new QTreeWidget(this)),
      add_keylog_(new QPushButton(this)),
      add_pem_(new QPushButton(this)),
      remove_(new QPushButton(this)),
      watcher_(new QFileSystemWatcher(this)) {
  tree_->setColumnCount(3);
  tree_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  tree_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(add_keylog_);
  buttons->addWidget(add_pem_);
  buttons->addWidget(remove_);
  buttons->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addLayout(buttons);
  layout->addWidget(tree_, 1);
  connect(add_keylog_, &QPushButton::clicked, this, [this] {
    const QString path = open_file_name(this, tr("Add key log"), tr("Key logs (*.log *.txt *.keylog);;All files (*)"));
    if (!path.isEmpty()) addKeylog(path);
  });
  connect(add_pem_, &QPushButton::clicked, this, [this] {
    const QString path = open_file_name(this, tr("Add server key"), tr("PEM keys (*.pem);;All files (*)"));
    if (!path.isEmpty()) addServerKey(path);
  });
  connect(remove_, &QPushButton::clicked, this, [this] {
    for (const QString& path : selectedFiles()) remove(path);
  });
  connect(tree_, &QTreeWidget::itemSelectionChanged, this, &KeysPanel::updateButtons);
  connect(watcher_, &QFileSystemWatcher::fileChanged, this, [this](const QString& path) {
    // Editors and SSLKEYLOGFILE writers may replace the file: watch the new one.
    if (!watcher_->files().contains(path) && QFileInfo::exists(path)) watcher_->addPath(path);
    emit message(tr("Key log %1 changed; re-reading it").arg(path));
    rebuild();
    emit keysChanged();
  });
  (new Retranslator(this))->add([this] {
    tree_->setHeaderLabels({tr("Key"), tr("Contents"), tr("Connections")});
    add_keylog_->setText(tr("Add key log…"));
    add_pem_->setText(tr("Add server key…"));
    remove_->setText(tr("Remove"));
    remove_->setToolTip(tr("Forget the selected key files (the files stay on disk)"));
    rebuild();
  });
}

bool KeysPanel::addKeylog(const QString& path) {
  auto text = read_file(path.toStdString(), file_limit::kKeyLog);
  if (!text) {
    emit message(QString::fromStdString(text.error().detail));
    return false;
  }
  if (!keylogs_.contains(path)) {
    keylogs_ << path;
    watcher_->addPath(path);
  }
  KeyLog log = parse_keylog(*text, path.toStdString());
  for (const auto& p : log.problems) emit message(QString::fromStdString(p));
  rebuild();
  emit keysChanged();
  return true;
}

bool KeysPanel::addServerKey(const QString& path) {
  auto pem = read_file(path.toStdString(), file_limit::kPemKey);
  if (!pem) {
    emit message(QString::fromStdString(pem.error().detail));
    return false;
  }
  auto key = load_x25519_private_pem(*pem, path.toStdString());
  if (!key) {
    emit message(QString::fromStdString(key.error().detail));
    return false;
  }
  if (!server_keys_.contains(path)) server_keys_ << path;
  rebuild();
  emit keysChanged();
  return true;
}

void KeysPanel::remove(const QString& path) {
  keylogs_.removeAll(path);
  server_keys_.removeAll(path);
  watcher_->removePath(path);
  rebuild();
  emit keysChanged();
}

QStringList KeysPanel::selectedFiles() const {
  QStringList paths;
  for (const QTreeWidgetItem* item : tree_->selectedItems()) {
    const QString path = item->data(0, kPathRole).toString();
    if (!path.isEmpty() && !paths.contains(path)) paths << path;
  }
  return paths;
}

void KeysPanel::updateButtons() { remove_->setEnabled(!selectedFiles().isEmpty()); }

void KeysPanel::showCapture(const QString& capture, const std::vector<CaptureConnection>& connections,
                            const std::vector<std::string>& embedded_keylogs) {
  capture_ = capture;
  connections_ = connections;
  embedded_ = embedded_keylogs;
  rebuild();
}

void KeysPanel::rebuild() {
  tree_->clear();
  const bool have_capture = !capture_.isEmpty();
  auto* logs = new QTreeWidgetItem(tree_, {tr("Key log files")});
  for (const QString& path : keylogs_) {
    auto* item = new QTreeWidgetItem(logs, {QFileInfo(path).fileName()});
    item->setToolTip(0, path);
    item->setData(0, kPathRole, path);
    auto text = read_file(path.toStdString(), file_limit::kKeyLog);
    if (!text) {
      item->setText(1, QString::fromStdString(text.error().detail));
      continue;
    }
    KeyLog log = parse_keylog(*text, path.toStdString());
    item->setText(1, tr("%1 ANTHRO_V1, %2 TLS secrets").arg(log.anthro.size()).arg(log.tls.size()));
    add_connections(item, opened_by(log, connections_), have_capture);
  }
  auto* pems = new QTreeWidgetItem(tree_, {tr("Server keys (PEM)")});
  for (const QString& path : server_keys_) {
    auto* item = new QTreeWidgetItem(pems, {QFileInfo(path).fileName()});
    item->setToolTip(0, path);
    item->setData(0, kPathRole, path);
    auto pem = read_file(path.toStdString(), file_limit::kPemKey);
    auto key = pem ? load_x25519_private_pem(*pem, path.toStdString()) : Result<Key32>(pem.error());
    if (!key) {
      item->setText(1, QString::fromStdString(key.error().detail));
      continue;
    }
    Key32 pub = x25519_public_from_private(*key);
    item->setText(1, tr("X25519, public %1…").arg(QString::fromStdString(to_hex(ByteView(pub.data(), 6)))));
    add_connections(item, opened_by(pub, connections_), have_capture);
  }
  if (have_capture) {
    auto* dsb = new QTreeWidgetItem(tree_, {tr("In %1 (DSB)").arg(QFileInfo(capture_).fileName())});
    for (std::size_t i = 0; i < embedded_.size(); ++i) {
      KeyLog log = parse_keylog(embedded_[i], "DSB");
      auto* item = new QTreeWidgetItem(dsb, {tr("block %1").arg(i + 1)});
      item->setText(1, tr("%1 ANTHRO_V1, %2 TLS secrets").arg(log.anthro.size()).arg(log.tls.size()));
      add_connections(item, opened_by(log, connections_), true);
    }
    if (embedded_.empty()) dsb->setText(1, tr("none"));
  }
  tree_->expandAll();
  updateButtons();
}

}  // namespace anthro::widgets
