#include "frame_filter.h"

#include <QObject>
#include <QRegularExpression>
#include <QStringList>
#include <algorithm>
#include <optional>

namespace anthro::widgets {
namespace {

// The word is `key:value` with a key's shape (so "12:30" or ":)" stay text).
bool looks_like_key(const QString& part) {
  static const QRegularExpression shape(QStringLiteral("^[A-Za-z_][A-Za-z0-9_.-]*:"));
  return shape.match(part).hasMatch();
}

}  // namespace

bool parse_frame_filter(const QString& text, FrameFilter& filter, QString& error) {
  filter = {};
  QStringList words;
  for (const QString& part : text.split(' ', Qt::SkipEmptyParts)) {
    auto number = [&](const QString& value, const char* what, auto& out) {
      bool ok = false;
      unsigned v = value.toUInt(&ok);
      if (!ok) error = QObject::tr("%1 needs a number: \"%2\"").arg(what, part);
      else out = v;
      return ok;
    };
    if (part.startsWith('"') || part.endsWith('"')) {
      QString word = part;
      if (word.startsWith('"')) word.remove(0, 1);
      if (word.endsWith('"')) word.chop(1);
      if (!word.isEmpty()) words << word;
    } else if (part.startsWith("conn:")) {
      std::optional<std::uint32_t> conn;
      if (!number(part.mid(5), "conn:", conn)) return false;
      if (*conn == 0) {
        error = QObject::tr("connections are numbered from 1: \"%1\"").arg(part);
        return false;
      }
      filter.connection = *conn - 1;
    } else if (part.startsWith("stream:")) {
      if (!number(part.mid(7), "stream:", filter.stream_id)) return false;
    } else if (part.startsWith("type:")) {
      const std::string name = part.mid(5).toUpper().toStdString();
      const auto& names = row_type_names();
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        QStringList known;
        for (const auto& n : names) known << QString::fromStdString(n);
        error = QObject::tr("unknown frame type \"%1\" (%2)").arg(part.mid(5), known.join(", "));
        return false;
      }
      filter.type = name;
    } else if (looks_like_key(part)) {
      error = QObject::tr("unknown filter key \"%1\" in \"%2\": the keys are conn:, stream: and type: "
                          "(to find the text itself, quote it: \"%2\")")
                  .arg(part.section(':', 0, 0), part);
      return false;
    } else {
      words << part;
    }
  }
  filter.text = words.join(' ').toStdString();
  return true;
}

}  // namespace anthro::widgets
