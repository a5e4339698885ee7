// Errors shown in a page or dialog (not only in the log) look the same everywhere: one colour,
// wrapped, selectable so they can be copied into a ticket.
#pragma once

#include <QColor>

class QLabel;

namespace anthro::widgets {

QColor error_colour();
// `label` in the error colour (or back to the palette's text colour), wrapped and selectable.
void show_as_error(QLabel* label, bool error = true);

}  // namespace anthro::widgets
