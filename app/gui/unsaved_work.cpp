// The main window's part in never losing work: what closing would lose, the question (Save
// all / Discard / Cancel, as Wireshark asks), and saving it all into one folder.
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>

#include "capture_dialog.h"
#include "capture_inspector.h"
#include "compare_page.h"
#include "diagnosis_page.h"
#include "file_dialog.h"
#include "language.h"
#include "loopback_capture.h"
#include "main_window.h"
#include "rollout_page.h"
#include "session_panel.h"
#include "util/files.h"

namespace anthro::gui {
namespace {

enum class Answer { Save, Discard, Cancel };

// A question with three answers; the box is named so tests and screen readers find it.
Answer ask(QWidget* parent, const QString& title, const QString& text, const QString& details, const QString& save_label) {
  QMessageBox box(QMessageBox::Warning, title, text, QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, parent);
  box.setObjectName("unsavedWork");
  box.setInformativeText(details);
  box.button(QMessageBox::Save)->setText(save_label);
  box.setDefaultButton(QMessageBox::Save);
  box.setEscapeButton(QMessageBox::Cancel);
  const int picked = box.exec();
  return picked == QMessageBox::Save ? Answer::Save : picked == QMessageBox::Discard ? Answer::Discard : Answer::Cancel;
}

// "name.pcapng" in `dir`, or "name (2).pcapng" when taken: Save all never overwrites.
QString free_name(const QDir& dir, const QString& file) {
  const QFileInfo f(file);
  QString name = f.fileName();
  for (int n = 2; dir.exists(name); ++n) name = QString("%1 (%2).%3").arg(f.completeBaseName()).arg(n).arg(f.suffix());
  return dir.filePath(name);
}

}  // namespace

void MainWindow::watchResults() {
  auto mark = [this](QWidget* page) { return [this, page](bool ok) { if (ok) unsaved_results_.insert(page); }; };
  connect(session_, &widgets::SessionPanel::sessionFinished, this, mark(session_));
  connect(session_, &widgets::SessionPanel::loadFinished, this, mark(session_));
  connect(diagnosis_, &widgets::DiagnosisPage::finished, this, mark(diagnosis_));
  connect(compare_, &widgets::ComparePage::finished, this, mark(compare_));
  connect(rollout_, &widgets::RolloutPage::finished, this, [this] {
    if (rollout_->result()) unsaved_results_.insert(rollout_);
  });
  connect(rollout_, &widgets::RolloutPage::resultSaved, this, [this] { unsaved_results_.remove(rollout_); });
}

QStringList MainWindow::unsavedCaptures() const {
  QStringList out;
  for (const QString& path : own_captures_)
    if (!saved_captures_.contains(path) && QFileInfo::exists(path)) out << path;
  return out;
}

QList<QWidget*> MainWindow::unsavedResults() const {
  QList<QWidget*> out;
  for (QWidget* page : {static_cast<QWidget*>(session_), static_cast<QWidget*>(diagnosis_), static_cast<QWidget*>(rollout_),
                        static_cast<QWidget*>(compare_)})
    if (unsaved_results_.contains(page) && hasReport(page)) out << page;
  return out;
}

QStringList MainWindow::runningWork() const {
  QStringList out;
  if (session_->running()) out << tr("a live session");
  if (session_->loadRunning()) out << tr("a load");
  if (diagnosis_->running()) out << tr("a diagnosis");
  if (rollout_->state() != widgets::RolloutPage::State::Idle && rollout_->state() != widgets::RolloutPage::State::Paused)
    out << tr("a rollout");
  if (compare_->running()) out << tr("a comparison");
  if (capture_dialog_ && capture_dialog_->state() != widgets::CaptureDialog::State::Idle) out << tr("a capture");
  return out;
}

bool MainWindow::mayClose() {
  if (closing_) return true;
  const QStringList running = runningWork();
  const QStringList captures = unsavedCaptures();
  const QList<QWidget*> results = unsavedResults();
  if (running.isEmpty() && captures.isEmpty() && results.isEmpty()) {
    discardOwnCaptures();  // every one saved: the temporary copies go
    return true;
  }
  QStringList lines;
  if (!running.isEmpty()) lines << tr("Still running: %1.").arg(running.join(", "));
  if (!captures.isEmpty()) {
    QStringList names;
    for (const QString& c : captures) names << QFileInfo(c).fileName();
    lines << tr("%n capture(s) not saved: %1.", "", captures.size()).arg(names.join(", "));
  }
  if (!results.isEmpty()) {
    QStringList names;
    for (QWidget* page : results) names << tabs_->tabText(tabs_->indexOfPage(page));
    lines << tr("Results not saved or exported: %1.").arg(names.join(", "));
  }
  const Answer answer = ask(this, tr("Quit anthro-v1 Workbench"), tr("Quitting now would lose work."), lines.join('\n'),
                            tr("Save all…"));
  if (answer == Answer::Cancel) return false;
  if (answer == Answer::Save) {
    const QString dir = widgets::existing_directory(this, tr("Save captures and results into"));
    if (dir.isEmpty()) return false;
    closing_ = true;
    stopRuns();
    if (!saveAllInto(dir)) {
      closing_ = false;
      return false;
    }
  }
  closing_ = true;
  discardOwnCaptures();
  return true;
}

bool MainWindow::mayCloseCapture(const QString& path) {
  if (!own_captures_.contains(path) || saved_captures_.contains(path) || !QFileInfo::exists(path)) return true;
  const Answer answer = ask(this, tr("Close capture"), tr("%1 is not saved.").arg(QFileInfo(path).fileName()),
                            tr("It was captured by this window and lives in a temporary folder until you save or discard it."),
                            tr("Save…"));
  if (answer == Answer::Cancel) return false;
  if (answer == Answer::Save) {
    const QString target = widgets::save_file_name(this, tr("Save capture as"), QFileInfo(path).fileName(),
                                                   tr("Captures (*.pcap *.pcapng *.cap);;All files (*)"));
    if (target.isEmpty()) return false;
    if (const QString error = copy_file(path, target); !error.isEmpty()) {
      log(tr("Capture not saved to %1: %2").arg(target, error));
      return false;
    }
    log(tr("Capture saved as %1").arg(target));
  }
  own_captures_.removeAll(path);
  removeRecent(QFileInfo(path).absoluteFilePath());
  widgets::remove_own_capture(path);
  return true;
}

// Asks every run to stop and waits, with the events flowing, until each has handed over what it
// has (a session's capture is written as it stops).
void MainWindow::stopRuns() {
  if (session_->running()) session_->cancel();
  if (session_->loadRunning()) session_->stopLoad();
  if (diagnosis_->running()) diagnosis_->cancel();
  if (rollout_->state() == widgets::RolloutPage::State::Running) rollout_->pause();
  if (capture_dialog_ && capture_dialog_->state() == widgets::CaptureDialog::State::Capturing) capture_dialog_->stop();
  statusBar()->showMessage(tr("Stopping what runs, to save it…"));
  QElapsedTimer waited;
  waited.start();
  constexpr int kPatienceMs = 60000;  // a load's requests in flight finish; a stalled one does not hold the quit
  while (!runningWork().isEmpty() && waited.elapsed() < kPatienceMs) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
  // A capture is handed over after its run ends.
  QElapsedTimer settle;
  settle.start();
  while (settle.elapsed() < 300) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
}

bool MainWindow::saveAllInto(const QString& dir_path) {
  const QDir dir(dir_path);
  QStringList failed;
  int saved = 0;
  for (const QString& capture : unsavedCaptures()) {
    const QString target = free_name(dir, QFileInfo(capture).fileName());
    if (const QString error = copy_file(capture, target); !error.isEmpty()) {
      failed << tr("%1: %2").arg(target, error);
      continue;
    }
    saved_captures_ << capture;
    ++saved;
  }
  const QString lang = current_language();
  for (QWidget* page : unsavedResults()) {
    const QString name = page == session_ ? (session_->lastRun() == widgets::SessionPanel::LastRun::Load ? "load" : "session")
                         : page == diagnosis_ ? "diagnosis"
                         : page == rollout_   ? "rollout"
                                              : "comparison";
    const QString target = free_name(dir, name + ".json");
    std::atomic<bool> stop{false};
    auto json = resultJob(page)(lang.toStdString(), stop);
    auto written = json ? write_file_atomic(target.toStdString(), *json) : Result<bool>(json.error());
    if (!written) {
      failed << tr("%1: %2").arg(target, QString::fromStdString(written.error().detail));
      continue;
    }
    unsaved_results_.remove(page);
    ++saved;
  }
  log(tr("Saved %n file(s) into %1", "", saved).arg(dir_path));
  if (failed.isEmpty()) return true;
  QMessageBox::warning(this, tr("Not everything was saved"),
                       tr("Nothing was discarded. These could not be written:\n%1").arg(failed.join('\n')));
  return false;
}

void MainWindow::discardOwnCaptures() {
  for (const QString& path : own_captures_) {
    removeRecent(QFileInfo(path).absoluteFilePath());
    widgets::remove_own_capture(path);
  }
  own_captures_.clear();
}

}  // namespace anthro::gui
