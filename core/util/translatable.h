// A text core hands the GUI to show translated: core keeps it in English; the GUI translates it
// in `context` (QCoreApplication::translate). lupdate reads the macro as QT_TRANSLATE_NOOP
// (app/CMakeLists.txt), so the text reaches the .ts files though core links no Qt.
#pragma once

#define ANTHRO_TRANSLATE_NOOP(context, text) text
