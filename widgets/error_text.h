// Errors shown in a page or dialog (not only in the log) look the same everywhere: one colour,
// wrapped, selectable so they can be copied into a ticket.
#pragma once

#include <QColor>

class QLabel;
class QLineEdit;
class QString;

namespace anthro::widgets {

QColor error_colour();
// `label` in the error colour (or back to the palette's text colour), wrapped and selectable.
void show_as_error(QLabel* label, bool error = true);
// A field holding a value that cannot be used: framed in the error colour, `why` (in the
// interface's words) as its tooltip, until the person edits it; an empty `why` clears the mark.
void mark_field(QLineEdit* field, const QString& why);
bool field_marked(const QLineEdit* field);

}  // namespace anthro::widgets
