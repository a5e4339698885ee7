#include "error_text.h"

#include <QLabel>
#include <QLineEdit>

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

void mark_field(QLineEdit* field, const QString& why) {
  const bool on = !why.isEmpty();
  field->setProperty("anthroError", on);
  field->setStyleSheet(on ? QStringLiteral("QLineEdit { border: 2px solid %1; }").arg(error_colour().name()) : QString());
  field->setToolTip(why);
  if (on && !field->property("anthroErrorWatched").toBool()) {
    field->setProperty("anthroErrorWatched", true);
    QObject::connect(field, &QLineEdit::textEdited, field, [field] {
      if (field_marked(field)) mark_field(field, QString());
    });
  }
}

bool field_marked(const QLineEdit* field) { return field->property("anthroError").toBool(); }

}  // namespace anthro::widgets
