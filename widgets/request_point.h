// A measured request as a point on the latency charts: the one mapping for live sessions,
// loads and captures.
#pragma once

#include <QString>
#include <string>

#include "capture/capture_decoder.h"
#include "latency_charts.h"
#include "session/session.h"

namespace anthro::widgets {

// The run a request belongs to, as the charts place it: its start (RunStart: the requests'
// sent times are on start.clock_s's clock), the protocol and target it ran against, the run
// of the charts it is shown in (`key`, `label`: its own, or the baseline's it is overlaid on)
// and its role ("candidate" beside a baseline; empty otherwise).
struct ChartRun {
  RunStart start;
  ProfileId profile = ProfileId::AnthroV1;
  std::string target;
  double key = 0;
  QString label, role;
};

// The run of a session (or a load's sessions) of `config` started at `start`: its protocol
// from the target's scheme (HTTP/2 when offered, a riding format when the session speaks one),
// a guess until a request says what its connection spoke (spoken_protocol); `kind` names it in
// the run selector beside its start's time ("14:32:05 load").
ChartRun chart_run(const SessionConfig& config, const RunStart& start, const QString& kind, const QString& role = {});

// A candidate run overlaid on the baseline's: shown with it, each from its own start. Runs are
// otherwise shown one at a time (the latest by default), since most runs are re-runs of one
// target whose dots would pile up in one colour; an SRE comparing two loads marks the second
// "as candidate" and reads both from 0, side by side, in two series.
ChartRun overlaid(ChartRun candidate, const ChartRun& baseline);

// A capture's connection as a run of the charts: its protocol the one the capture read it as
// (CaptureConnection::profile: by its ALPN or first bytes; else anthro-v1), its target the
// server's address. The capture is one run: `first_s` (its first request) is 0.
ChartRun capture_run(const CaptureConnection& connection, double first_s);

// `t_s`: when the request started, seconds since the series began; `request`: the caller's
// id, given back by LatencyCharts::requestClicked.
RequestPoint request_point(const RequestResult& r, double t_s, int request);
// On its run's time base (`started_s` on the clock of run.start.clock_s), in the series of the
// protocol it spoke and the run's target: "anthro-v1 · anthro://127.0.0.1:4433".
RunPoint request_point(const RequestResult& r, const ChartRun& run, double started_s, int request);
// The protocol a request of the run spoke: a riding format whose part its record holds; else,
// unless the run speaks a riding format, the carrier its connection negotiated
// (RequestResult::carrier: HTTP/1.1 although HTTP/2 was offered); else the run's. Without a
// record (a request still streaming), the run's.
ProfileId spoken_protocol(const ChartRun& run, const RequestResult* r);
// That series' name.
QString chart_series(const ChartRun& run, const RequestResult* r = nullptr);

}  // namespace anthro::widgets
