#include "request_point.h"

#include <QCoreApplication>
#include <QDateTime>

#include "profile/profile.h"
#include "session/target.h"

namespace anthro::widgets {

ChartRun chart_run(const SessionConfig& config, const RunStart& start, const QString& kind, const QString& role) {
  ChartRun run;
  run.start = start;
  run.target = config.target;
  run.role = role;
  if (!config.riders.empty()) {
    run.profile = config.riders.begin()->first;
  } else if (auto target = parse_session_target(config.target)) {
    run.profile = target->profile == ProfileId::Http && config.http2 ? ProfileId::Http2 : target->profile;
  }
  const QString time = QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(start.unix_s * 1000)).toString(QStringLiteral("HH:mm:ss"));
  run.label = kind.isEmpty() ? time : time + QLatin1Char(' ') + kind;
  run.key = start.unix_s;
  return run;
}

ChartRun overlaid(ChartRun candidate, const ChartRun& baseline) {
  candidate.key = baseline.key;
  candidate.label = baseline.label + QStringLiteral(" + ") + candidate.label;
  return candidate;
}

ChartRun capture_run(const CaptureConnection& connection, double first_s) {
  ChartRun run;
  run.start.clock_s = first_s;
  run.target = connection.server.text();
  run.profile = connection.profile.value_or(ProfileId::AnthroV1);
  return run;
}

RequestPoint request_point(const RequestResult& r, double t_s, int request) {
  RequestPoint p;
  p.t_s = t_s;
  p.ttft_ms = r.figures.ttft_ms;
  p.tokens_per_s = r.figures.tokens_per_s;
  p.itl_ms = r.figures.itl_ms;
  p.request = request;
  return p;
}

ProfileId spoken_protocol(const ChartRun& run, const RequestResult* r) {
  if (!r) return run.profile;
  if (!r->extensions.all().empty()) return r->extensions.all().begin()->first;
  const bool rider_run = !profile(run.profile).rides_on.empty();  // its requests failed before their part
  return r->carrier && !rider_run ? *r->carrier : run.profile;
}

QString chart_series(const ChartRun& run, const RequestResult* r) {
  const std::string_view protocol = profile(spoken_protocol(run, r)).display_name;
  QString name = QString::fromUtf8(protocol.data(), static_cast<qsizetype>(protocol.size())) + QStringLiteral(" · ") +
                 QString::fromStdString(run.target);
  return run.role.isEmpty() ? name : run.role + QStringLiteral(" · ") + name;
}

RunPoint request_point(const RequestResult& r, const ChartRun& run, double started_s, int request) {
  return {request_point(r, started_s - run.start.clock_s, request), chart_series(run, &r), run.key, run.label};
}

}  // namespace anthro::widgets
