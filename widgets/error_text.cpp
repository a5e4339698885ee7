#include "error_text.h"

#include <QLabel>

namespace anthro::widgets {

QColor error_colour() { return QColor(0xd0, 0x3a, 0x3a); }

void show_as_error(QLabel* label, bool error) {
  QPalette p;  // nothing set: the label follows its parent's palette again
  if (error) {
    p = label->palette();
    p.setColor(QPalette::WindowText, error_colour());
  }
  label->setPalette(p);
  label->setWordWrap(true);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
}

}  // namespace anthro::widgets
