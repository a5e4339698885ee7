#include "welcome_page.h"

#include <QEvent>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

#include "retranslator.h"

namespace anthro::gui {

WelcomePage::WelcomePage(QWidget* parent)
    : QWidget(parent),
      title_(new QLabel(this)),
      subtitle_(new QLabel(this)),
      open_(new QPushButton(this)),
      session_(new QPushButton(this)),
      capture_(new QPushButton(this)),
      recent_title_(new QLabel(this)),
      recent_(new QListWidget(this)) {
  QFont big = title_->font();
  big.setPointSizeF(big.pointSizeF() * 1.8);
  big.setWeight(QFont::DemiBold);
  title_->setFont(big);
  subtitle_->setWordWrap(true);
  subtitle_->setForegroundRole(QPalette::PlaceholderText);
  open_->setIcon(style()->standardIcon(QStyle::SP_DialogOpenButton));
  session_->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
  capture_->setIcon(style()->standardIcon(QStyle::SP_DriveNetIcon));
  for (QPushButton* b : {open_, session_, capture_}) {
    b->setMinimumHeight(b->sizeHint().height() * 2);
    b->setStyleSheet("text-align: left; padding-left: 12px;");
  }
  QFont section = recent_title_->font();
  section.setWeight(QFont::DemiBold);
  recent_title_->setFont(section);
  recent_->setFrameShape(QFrame::NoFrame);
  // The list takes the room left, not its own preferred height: the page, scrolled on its own
  // under the tabs, then fits a laptop's height (a few recent files always show).
  recent_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Ignored);
  recent_->setMinimumHeight(recent_->fontMetrics().height() * 4);

  auto* column = new QVBoxLayout;
  column->addWidget(title_);
  column->addWidget(subtitle_);
  column->addSpacing(24);
  column->addWidget(session_);
  column->addWidget(open_);
  column->addWidget(capture_);
  column->addSpacing(24);
  column->addWidget(recent_title_);
  column->addWidget(recent_, 1);
  auto* grid = new QGridLayout(this);
  grid->setColumnStretch(0, 1);
  grid->setColumnStretch(2, 1);
  grid->setRowStretch(0, 1);
  grid->setRowStretch(2, 2);
  auto* holder = new QWidget(this);
  holder->setLayout(column);
  holder->setMinimumWidth(560);
  holder->setMaximumWidth(720);
  grid->addWidget(holder, 1, 1);

  connect(open_, &QPushButton::clicked, this, &WelcomePage::openCaptureRequested);
  connect(session_, &QPushButton::clicked, this, &WelcomePage::newSessionRequested);
  connect(capture_, &QPushButton::clicked, this, &WelcomePage::startCaptureRequested);
  // One click opens a recent capture, as the buttons above; Enter too. A style that activates
  // on a single click sends both for one click: the second is dropped.
  auto open_recent = [this](QListWidgetItem* item) {
    const QString path = item->data(Qt::UserRole).toString();
    if (path.isEmpty() || (path == last_opened_ && opened_.isValid() && opened_.elapsed() < 500)) return;
    last_opened_ = path;
    opened_.start();
    emit recentRequested(path);
  };
  connect(recent_, &QListWidget::itemClicked, this, open_recent);
  connect(recent_, &QListWidget::itemActivated, this, open_recent);
  (new widgets::Retranslator(this))->add([this] { retranslate(); });
}

void WelcomePage::setRecentFiles(const QStringList& paths) {
  recent_->clear();
  for (const QString& path : paths) {
    auto* item = new QListWidgetItem(QFileInfo(path).fileName() + QStringLiteral("   —   ") + QFileInfo(path).absolutePath(), recent_);
    item->setData(Qt::UserRole, path);
    item->setToolTip(path);
    item->setIcon(style()->standardIcon(QStyle::SP_FileIcon));
  }
  if (paths.isEmpty()) {
    auto* item = new QListWidgetItem(tr("No recent captures. Drop a .pcap, .pcapng, key log or PEM file anywhere."), recent_);
    item->setFlags(Qt::NoItemFlags);
  }
}

void WelcomePage::retranslate() {
  title_->setText(tr("anthro-v1 Workbench"));
  subtitle_->setText(tr("Live sessions against anthro-v1 or the HTTP Messages API, captures decoded with keys, "
                        "TTFT and token-rate charts. The embedded local endpoint is running: a new session "
                        "works without any configuration."));
  session_->setText(tr("New live session"));
  open_->setText(tr("Open capture…"));
  capture_->setText(tr("Start capture…"));
  recent_title_->setText(tr("Recent captures"));
}

}  // namespace anthro::gui
