// anthro-workbench: the desktop app.
#include <QApplication>

#include "main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("anthro-workbench");
  anthro::gui::MainWindow window;
  window.show();
  return QApplication::exec();
}
