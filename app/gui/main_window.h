// The workbench's main window. For now: the frame table, filled by the decoder.
#pragma once

#include <QMainWindow>

namespace anthro::widgets {
class FrameTableModel;
}

namespace anthro::gui {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  widgets::FrameTableModel* frames() const { return frames_; }

 private:
  widgets::FrameTableModel* frames_;
};

}  // namespace anthro::gui
