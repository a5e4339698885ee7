#include "session_tracer.h"

#include <QCoreApplication>

namespace anthro::widgets {

namespace {

bool is_message(const FrameDetail& d) {
  return d.row.kind == RowKind::HttpRequest || d.row.kind == RowKind::HttpResponse;
}

QString text_of(const std::string& s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

QString token_count(const HttpAffinity& a) {
  QString out;
  if (a.chunks_counted) out = QString::number(a.chunk_token_sum);
  if (a.trailer_total && !a.chunks_counted) out = QCoreApplication::translate("SessionTracer", "%1 (trailer)").arg(*a.trailer_total);
  else if (a.trailer_total && *a.trailer_total != a.chunk_token_sum)
    out = QCoreApplication::translate("SessionTracer", "%1 (trailer %2)").arg(out).arg(*a.trailer_total);
  if (!a.bad_count.empty()) out = (out + ' ' + QCoreApplication::translate("SessionTracer", "(not a count: “%1”)").arg(text_of(a.bad_count))).trimmed();
  return out;
}

QString status(const FrameDetail& d) {
  const HttpAffinity& a = d.affinity;
  QString out = QString::number(d.row.http_status);
  if (!a.error_type.empty()) out += ' ' + text_of(a.error_type);
  if (!a.new_session_id.empty()) out += QStringLiteral(" → ") + text_of(a.new_session_id);
  if (!a.expected_hash.empty()) out += ' ' + QCoreApplication::translate("SessionTracer", "(expected %1)").arg(text_of(a.expected_hash));
  return out;
}

// The first header line of `name` (in any case) among the detail's fields.
const FrameField* header_field(const FrameDetail& d, QLatin1String name) {
  for (const FrameField& f : d.fields)
    if (f.depth == 1 && QString::fromStdString(f.name).compare(name, Qt::CaseInsensitive) == 0) return &f;
  return nullptr;
}

}  // namespace

QString tracer_title(TracerColumn c) {
  switch (c) {
    case TracerColumn::SessionId: return QCoreApplication::translate("SessionTracer", "Session ID");
    case TracerColumn::ContextHash: return QCoreApplication::translate("SessionTracer", "Context Hash");
    case TracerColumn::TokenCount: return QCoreApplication::translate("SessionTracer", "Token Count");
    case TracerColumn::Status: return QCoreApplication::translate("SessionTracer", "Status");
  }
  return {};
}

QString tracer_text(const FrameDetail& d, TracerColumn c) {
  if (!is_message(d)) return {};
  switch (c) {
    case TracerColumn::SessionId: return text_of(d.affinity.session_id);
    case TracerColumn::ContextHash: return text_of(d.affinity.context_hash);
    case TracerColumn::TokenCount: return token_count(d.affinity);
    case TracerColumn::Status: return d.row.kind == RowKind::HttpResponse ? status(d) : QString();
  }
  return {};
}

std::optional<std::pair<std::size_t, std::size_t>> tracer_range(const FrameDetail& d, TracerColumn c) {
  const FrameField* f = nullptr;
  if (c == TracerColumn::SessionId) f = header_field(d, QLatin1String("x-anthropic-session-id"));
  else if (c == TracerColumn::ContextHash) f = header_field(d, QLatin1String("x-anthropic-context-hash"));
  else if (c == TracerColumn::Status && !d.fields.empty() && d.fields.front().name == "status line") f = &d.fields.front();
  if (!f || f->end <= f->begin) return std::nullopt;
  return std::pair{f->begin, f->end};
}

}  // namespace anthro::widgets
