#include "session_tracer.h"

#include <QCoreApplication>
#include <QStringList>

#include "capture/http_rider.h"

namespace anthro::widgets {

namespace {

const char* title_of(TracerColumn c) { return tracer_columns()[c].title; }

bool is_message(const FrameDetail& d) {
  return d.row.kind == RowKind::HttpRequest || d.row.kind == RowKind::HttpResponse;
}

QString text_of(const std::string& s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

// A piece translated, its arguments filled in one pass (an argument's own "%1" stays as sent).
QString piece_text(const HttpCellPiece& p) {
  QString out = QCoreApplication::translate("SessionTracer", p.pattern.c_str());
  switch (p.args.size()) {
    case 0: return out;
    case 1: return out.arg(text_of(p.args[0]));
    default: {
      out = out.arg(text_of(p.args[0]), text_of(p.args[1]));
      for (std::size_t i = 2; i < p.args.size(); ++i) out = out.arg(text_of(p.args[i]));
      return out;
    }
  }
}

// The riders' cells of the column, their pieces joined by spaces.
QStringList cell_pieces(const FrameDetail& d, TracerColumn c) {
  QStringList out;
  for (const auto& [rider, fields] : d.rider_fields)
    for (const HttpCellPiece& p : fields->cell(title_of(c)).pieces) out << piece_text(p);
  return out;
}

// The first header line of `name` (in any case) among the detail's fields.
const FrameField* header_field(const FrameDetail& d, const std::string& name) {
  const QString wanted = QString::fromStdString(name);
  for (const FrameField& f : d.fields)
    if (f.depth == 1 && QString::fromStdString(f.name).compare(wanted, Qt::CaseInsensitive) == 0) return &f;
  return nullptr;
}

}  // namespace

std::span<const HttpRowColumn> tracer_columns() { return http_row_columns(); }

QString tracer_title(TracerColumn c) { return QCoreApplication::translate("SessionTracer", title_of(c)); }

QString tracer_text(const FrameDetail& d, TracerColumn c) {
  if (!is_message(d)) return {};
  if (!tracer_columns()[c].status_prefix) return cell_pieces(d, c).join(' ');
  if (d.row.kind != RowKind::HttpResponse) return {};
  return (QStringList{QString::number(d.row.http_status)} + cell_pieces(d, c)).join(' ');
}

std::optional<std::pair<std::size_t, std::size_t>> tracer_range(const FrameDetail& d, TracerColumn c) {
  const FrameField* f = nullptr;
  if (tracer_columns()[c].status_prefix) {
    if (!d.fields.empty() && d.fields.front().name == "status line") f = &d.fields.front();
  } else {
    for (const auto& [rider, fields] : d.rider_fields)
      if (std::string name = fields->cell(title_of(c)).field; !f && !name.empty()) f = header_field(d, name);
  }
  if (!f || f->end <= f->begin) return std::nullopt;
  return std::pair{f->begin, f->end};
}

}  // namespace anthro::widgets
