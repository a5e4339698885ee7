#include "main_window.h"

#include <QHeaderView>
#include <QStatusBar>
#include <QTableView>

#include "frame_table_model.h"

namespace anthro::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), frames_(new widgets::FrameTableModel(this)) {
  setWindowTitle(tr("anthro-v1 Workbench"));
  auto* table = new QTableView(this);
  table->setModel(frames_);
  table->horizontalHeader()->setStretchLastSection(true);
  table->verticalHeader()->hide();
  setCentralWidget(table);
  statusBar()->showMessage(tr("Live sessions and captures are not in this build yet."));
  resize(1000, 600);
}

}  // namespace anthro::gui
