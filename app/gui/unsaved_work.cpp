// The main window's part in never losing work: what closing would lose, the question (Save
// all / Discard / Cancel, as Wireshark asks), and saving it all into one folder.
#include <QDir>
#include <functional>
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
  // Qt's own words for these stay English without its translations installed: ours, translated.
  box.button(QMessageBox::Discard)->setText(MainWindow::tr("Discard"));
  box.button(QMessageBox::Cancel)->setText(MainWindow::tr("Cancel"));
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

// Each page knows what it holds unsaved (its controllers keep it); the window only asks them.
QStringList MainWindow::unsavedCaptures() const {
  QStringList out;
  for (const QString& path : session_->unsavedFiles() + diagnosis_->unsavedFiles())
    if (QFileInfo::exists(path)) out << path;
  return out;
}

QList<QWidget*> MainWindow::unsavedResults() const {
  QList<QWidget*> out;
  if (session_->hasUnsavedResult() && hasReport(session_)) out << session_;
  if (diagnosis_->hasUnsavedResult() && hasReport(diagnosis_)) out << diagnosis_;
  if (rollout_->hasUnsavedResult() && hasReport(rollout_)) out << rollout_;
  if (compare_->hasUnsavedResult() && hasReport(compare_)) out << compare_;
  return out;
}

void MainWindow::markResultSaved(QWidget* page) {
  if (page == session_) session_->markResultSaved();
  else if (page == diagnosis_) diagnosis_->markResultSaved();
  else if (page == rollout_) rollout_->markResultSaved();
  else if (page == compare_) compare_->markResultSaved();
}

void MainWindow::markCaptureSaved(const QString& path) {
  session_->markCaptureSaved(path);
  diagnosis_->markCaptureSaved(path);
}

QStringList MainWindow::runningWork() const {
  QStringList out;
  if (session_->running()) out << tr("a live session");
  if (session_->loadRunning()) out << tr("a load");
  if (diagnosis_->busy()) out << tr("a diagnosis");
  if (rollout_->busy()) out << tr("a rollout");
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
  if (!closing_) {  // Discard: the runs stop too, and the captures they hand over go with the rest
    closing_ = true;
    stopRuns();
  }
  discardOwnCaptures();
  return true;
}

bool MainWindow::mayCloseCapture(const QString& path) {
  if (!unsavedCaptures().contains(path)) return true;
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
  markCaptureSaved(path);  // saved, or discarded: nothing left to ask about
  made_captures_.removeAll(path);
  removeRecent(QFileInfo(path).absoluteFilePath());
  widgets::remove_own_capture(path);
  return true;
}

// Asks every run to stop and waits, with the events flowing, until each has handed over what it
// has (a session's capture is written as it stops; a rollout pauses once its stage is judged).
void MainWindow::stopRuns() {
  session_->cancelAll();
  diagnosis_->cancelAll();
  rollout_->cancelAll();
  if (capture_dialog_ && capture_dialog_->state() == widgets::CaptureDialog::State::Capturing) capture_dialog_->stop();
  statusBar()->showMessage(tr("Stopping what runs, to save it…"));
  constexpr int kPatienceMs = 60000;  // a load's requests in flight finish; a stalled one does not hold the quit
  QElapsedTimer waited;
  waited.start();
  for (auto wait : {std::function<bool(int)>([this](int ms) { return session_->waitForJobs(ms); }),
                    std::function<bool(int)>([this](int ms) { return diagnosis_->waitForJobs(ms); }),
                    std::function<bool(int)>([this](int ms) { return rollout_->waitForJobs(ms); })})
    wait(std::max<int>(0, kPatienceMs - static_cast<int>(waited.elapsed())));
  while (!runningWork().isEmpty() && waited.elapsed() < kPatienceMs) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
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
    markCaptureSaved(capture);
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
    markResultSaved(page);
    ++saved;
  }
  log(tr("Saved %n file(s) into %1", "", saved).arg(dir_path));
  if (failed.isEmpty()) return true;
  QMessageBox::warning(this, tr("Not everything was saved"),
                       tr("Nothing was discarded. These could not be written:\n%1").arg(failed.join('\n')));
  return false;
}

void MainWindow::discardOwnCaptures() {
  for (const QString& path : made_captures_) {
    removeRecent(QFileInfo(path).absoluteFilePath());
    widgets::remove_own_capture(path);
  }
  made_captures_.clear();
}

}  // namespace anthro::gui
