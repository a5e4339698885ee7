// Navigating LatencyCharts with real wheel and mouse events: zoom around the cursor, drag,
// Reset view and double-click, a live point keeping a zoomed view; and what is shown where: each
// run on its own time base with the run selector, a series per protocol and target in a colour
// of its own (the protocol a session page's send spoke, not the one its HTTP/2 box guessed),
// old runs dropped beyond the bound. (What the charts hold and draw: test_latency_charts.)
#include <qcustomplot.h>

#include <QApplication>
#include <QColor>
#include <QComboBox>
#include <QFile>
#include <QFloat16>
#include <QIODevice>
#include <QMouseEvent>
#include <QObject>
#include <QPoint>
#include <QPointF>
#include <QPushButton>
#include <QScrollBar>
#include <QString>
#include <QStringList>
#include <QTest>
#include <QWheelEvent>
#include <cmath>
#include <string>
#include <vector>

#include "chart_checks.h"
#include "chart_items.h"
#include "endpoint_fixture.h"
#include "head_catcher.h"
#include "latency_charts.h"
#include "request_point.h"
#include "session_panel.h"
#include "test_paths.h"

using anthro::RequestEnd;
using anthro::RequestResult;
using anthro::RunStart;
using anthro::SessionConfig;
using anthro::test::EndpointFixture;
using anthro::test::HeadCatcher;
using anthro::test::ramp;
using anthro::test::sendAndWait;
using anthro::test::seriesOf;
using anthro::test::startTimes;
using anthro::widgets::chart_run;
using anthro::widgets::ChartRun;
using anthro::widgets::LatencyCharts;
using anthro::widgets::request_point;
using anthro::widgets::RequestPoint;
using anthro::widgets::RunPoint;
using anthro::widgets::SessionPanel;

namespace {

// A wheel turn over the plot at `at` (one notch: 120 eighths of a degree; up zooms in).
void wheel(QWidget* widget, QPoint at, int notches) {
  QWheelEvent event(QPointF(at), QPointF(widget->mapToGlobal(at)), QPoint(), QPoint(0, 120 * notches), Qt::NoButton,
                    Qt::NoModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(widget, &event);
}

// Presses the left button at `from`, moves to `to` holding it, releases there.
void drag(QWidget* widget, QPoint from, QPoint to) {
  QTest::mousePress(widget, Qt::LeftButton, {}, from);
  for (int step = 1; step <= 4; ++step) {
    const QPoint at = from + (to - from) * step / 4;
    QMouseEvent move(QEvent::MouseMove, QPointF(at), QPointF(widget->mapToGlobal(at)), Qt::NoButton, Qt::LeftButton,
                     Qt::NoModifier);
    QApplication::sendEvent(widget, &move);
  }
  QTest::mouseRelease(widget, Qt::LeftButton, {}, to);
}

// 0.5 s apart from t = 0 to 100 s, on a shown widget.
void fillHundredSeconds(LatencyCharts& charts) {
  charts.resize(1200, 800);
  charts.show();
  QVERIFY(QTest::qWaitForWindowExposed(&charts));
  std::vector<RequestPoint> points = ramp(201);
  charts.addPoints(0, points);
  charts.flush();
  for (auto c : {LatencyCharts::TtftOverTime, LatencyCharts::TokenRate}) charts.plot(c)->replot();
}

int pixelOf(QCustomPlot* plot, double t) { return qRound(plot->xAxis->coordToPixel(t)); }
QPoint inPlot(QCustomPlot* plot, double t) { return QPoint(pixelOf(plot, t), plot->axisRect()->center().y()); }

RequestResult measured(double sent_s, double ttft_ms) {
  RequestResult r;
  r.timeline.request_written = sent_s;
  r.figures.ttft_ms = ttft_ms;
  r.figures.tokens_per_s = 40;
  return r;
}

// The series the TTFT chart's legend lists, in the run shown.
QStringList legendNames(SessionPanel& panel) {
  panel.charts()->flush();
  QStringList names;
  const QCPLegend* legend = panel.charts()->plot(LatencyCharts::TtftOverTime)->legend;
  for (int i = 0; i < legend->itemCount(); ++i)
    if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i))) names << item->plottable()->name();
  return names;
}

}  // namespace

class TestChartNavigation : public QObject {
  Q_OBJECT
 private slots:
  // The wheel over the TTFT chart zooms its time axis around the cursor: the time under the
  // cursor stays under it, the range narrows, the token-rate chart shows the same range.
  void wheelZoomsTheTimeAxisAroundTheCursor() {
    LatencyCharts charts;
    fillHundredSeconds(charts);
    QCustomPlot* plot = charts.plot(LatencyCharts::TtftOverTime);
    const QCPRange before = plot->xAxis->range();
    const QPoint at = inPlot(plot, 25);
    wheel(plot, at, 2);
    const QCPRange after = plot->xAxis->range();
    QVERIFY2(after.size() < before.size() * 0.8, qPrintable(QString("%1 -> %2").arg(before.size()).arg(after.size())));
    QVERIFY(std::abs(plot->xAxis->pixelToCoord(at.x()) - 25) < before.size() / plot->axisRect()->width() * 2);
    QVERIFY(after.lower > before.lower && after.upper < before.upper);
    QCOMPARE(charts.plot(LatencyCharts::TokenRate)->xAxis->range().lower, after.lower);
    QCOMPARE(charts.plot(LatencyCharts::TokenRate)->xAxis->range().upper, after.upper);
    QVERIFY(!charts.followsData());
    const QCPRange values = plot->yAxis->range();
    wheel(plot, at, 1);
    QCOMPARE(plot->yAxis->range().upper, values.upper);  // the value axis is not zoomed
    // The scroll bar under the charts shows the window: its handle is the visible part.
    auto* bar = charts.findChild<QScrollBar*>("time-window");
    QVERIFY(bar && bar->isVisible() && bar->isEnabled());
    QVERIFY(bar->pageStep() < bar->maximum() + bar->pageStep());
    // A click on its groove right of the handle moves the window later (a page, or to the
    // run's end), zoom kept.
    const QCPRange zoomed = plot->xAxis->range();
    QTest::mouseClick(bar, Qt::LeftButton, {}, QPoint(bar->width() - 30, bar->height() / 2));
    const QCPRange moved = plot->xAxis->range();
    QVERIFY2(moved.lower > zoomed.lower + zoomed.size() * 0.3, qPrintable(QString("%1 -> %2").arg(zoomed.lower).arg(moved.lower)));
    QVERIFY(std::abs(moved.size() - zoomed.size()) < 1e-6);
    QCOMPARE(charts.plot(LatencyCharts::TokenRate)->xAxis->range().lower, moved.lower);
  }

  // Dragging the TTFT chart to the left shows later requests; the zoom stays.
  void dragPansTheTimeAxis() {
    LatencyCharts charts;
    fillHundredSeconds(charts);
    QCustomPlot* plot = charts.plot(LatencyCharts::TtftOverTime);
    wheel(plot, inPlot(plot, 50), 3);
    const QCPRange zoomed = plot->xAxis->range();
    const double per_pixel = zoomed.size() / plot->axisRect()->width();
    const QPoint from = inPlot(plot, 50);
    drag(plot, from, from - QPoint(200, 0));
    const QCPRange panned = plot->xAxis->range();
    QVERIFY(std::abs(panned.size() - zoomed.size()) < 1e-9);
    QVERIFY2(std::abs(panned.lower - (zoomed.lower + 200 * per_pixel)) < 2 * per_pixel,
             qPrintable(QString("%1 -> %2").arg(zoomed.lower).arg(panned.lower)));
    QCOMPARE(charts.plot(LatencyCharts::TokenRate)->xAxis->range().lower, panned.lower);
    // Dragging the token-rate chart moves the TTFT chart too.
    QCustomPlot* rate = charts.plot(LatencyCharts::TokenRate);
    drag(rate, inPlot(rate, 60), inPlot(rate, 60) + QPoint(100, 0));
    QVERIFY(plot->xAxis->range().lower < panned.lower);
  }

  // Reset view (the button, or a double-click on a chart) shows the whole run again.
  void resetViewRestoresTheFullRange() {
    LatencyCharts charts;
    fillHundredSeconds(charts);
    QCustomPlot* plot = charts.plot(LatencyCharts::TtftOverTime);
    const QCPRange full = plot->xAxis->range();
    QVERIFY(full.lower <= 0 && full.upper >= 100);
    wheel(plot, inPlot(plot, 30), 3);
    QVERIFY(plot->xAxis->range().size() < full.size());
    auto* reset = charts.findChild<QPushButton*>("reset-view");
    QVERIFY(reset && reset->isVisible());
    QTest::mouseClick(reset, Qt::LeftButton);
    QCOMPARE(plot->xAxis->range().lower, full.lower);
    QCOMPARE(plot->xAxis->range().upper, full.upper);
    QVERIFY(charts.followsData());

    QCustomPlot* rate = charts.plot(LatencyCharts::TokenRate);
    drag(rate, inPlot(rate, 50), inPlot(rate, 50) + QPoint(150, 0));
    QVERIFY(plot->xAxis->range().lower < full.lower);
    QTest::mouseDClick(rate, Qt::LeftButton, {}, inPlot(rate, 50));
    QCOMPARE(plot->xAxis->range().lower, full.lower);
    QCOMPARE(rate->xAxis->range().upper, full.upper);
  }

  // A point arriving while zoomed leaves the view where the user put it; after Reset view
  // the view follows the data again.
  void livePointsKeepTheZoomedRange() {
    LatencyCharts charts;
    fillHundredSeconds(charts);
    QCustomPlot* plot = charts.plot(LatencyCharts::TtftOverTime);
    wheel(plot, inPlot(plot, 40), 2);
    const QCPRange zoomed = plot->xAxis->range();
    RequestPoint late;
    late.t_s = 250;
    late.ttft_ms = 5;
    charts.addPoints(0, {late});
    charts.flush();
    QCOMPARE(plot->xAxis->range().lower, zoomed.lower);
    QCOMPARE(plot->xAxis->range().upper, zoomed.upper);
    charts.resetView();
    QVERIFY(plot->xAxis->range().upper > 250);
    late.t_s = 400;
    charts.addPoints(0, {late});
    charts.flush();
    QVERIFY(plot->xAxis->range().upper > 400);
  }

  // Two runs eight minutes apart: each on its own time base from its start, the latest shown,
  // the other one a pick away.
  void eachRunStartsNearZeroOnItsOwnTimeBase() {
    LatencyCharts charts;
    SessionConfig config;
    config.target = "anthro://127.0.0.1:4433";
    const ChartRun first = chart_run(config, RunStart{1'700'000'000, 1000}, "send");
    const ChartRun second = chart_run(config, RunStart{1'700'000'480, 1480}, "load");
    std::vector<RunPoint> a, b;
    for (int i = 0; i < 10; ++i) {
      a.push_back(request_point(measured(1000.2 + i, 100 + i), first, 1000.2 + i, i));
      b.push_back(request_point(measured(1480.1 + i * 0.5, 200 + i), second, 1480.1 + i * 0.5, 100 + i));
    }
    QCOMPARE(a.front().series, b.front().series);  // one target and protocol: one series
    charts.show();
    QVERIFY(QTest::qWaitForWindowExposed(&charts));
    charts.addPoints(a);
    charts.addPoints(b);
    charts.flush();
    QCOMPARE(charts.runLabels().size(), 2);
    QVERIFY(charts.runLabels()[1].endsWith("load"));
    QCOMPARE(charts.shownRun(), 1);
    QCustomPlot* plot = charts.plot(LatencyCharts::TtftOverTime);
    QVERIFY(plot->xAxis->label().contains("since this run's start"));
    const int s = charts.seriesIndex(b.front().series);
    QCOMPARE(charts.pointCount(s), std::size_t{10});
    QCOMPARE(plot->graph(s)->data()->constBegin()->key, 0.1);
    QVERIFY2(plot->xAxis->range().lower > -1 && plot->xAxis->range().upper < 10,
             qPrintable(QString("%1 .. %2").arg(plot->xAxis->range().lower).arg(plot->xAxis->range().upper)));
    // The run selector under the charts, by keyboard: the earlier run.
    auto* runs = charts.findChild<QComboBox*>("run-selector");
    QVERIFY(runs && runs->isVisible());
    QCOMPARE(runs->currentIndex(), 1);
    QTest::keyClick(runs, Qt::Key_Up);
    QCOMPARE(charts.shownRun(), 0);
    charts.flush();
    QCOMPARE(plot->graph(s)->dataCount(), 10);
    QCOMPARE(plot->graph(s)->data()->constBegin()->key, 0.2);
    QVERIFY(plot->xAxis->range().lower > -1 && plot->xAxis->range().upper < 11);
    QCOMPARE(charts.ttftValues(s).front(), 100.0);
  }

  // Requests of two protocols land in two series named by protocol and target, each in a
  // colour of its own, both in the legend.
  void twoProtocolsLandInTwoSeries() {
    LatencyCharts charts;
    SessionConfig anthro, http2;
    anthro.target = "anthro://127.0.0.1:4433";
    http2.target = "https://127.0.0.1:8443/v1/messages";
    http2.http2 = true;
    const RunStart start{1'700'000'000, 50};
    const ChartRun one = chart_run(anthro, start, "send"), two = chart_run(http2, start, "send");
    charts.addPoints({request_point(measured(51, 120), one, 51, 0), request_point(measured(52, 340), two, 52, 1),
                      request_point(measured(53, 130), one, 53, 2)});
    charts.flush();
    const int a = charts.seriesIndex("anthro-v1 · anthro://127.0.0.1:4433");
    const int b = charts.seriesIndex("HTTP/2 Messages API · https://127.0.0.1:8443/v1/messages");
    QVERIFY(a != b);
    QCOMPARE(charts.pointCount(a), std::size_t{2});
    QCOMPARE(charts.pointCount(b), std::size_t{1});
    QCOMPARE(charts.seriesCount(), 4);  // baseline and candidate, empty, and the two
    QCustomPlot* plot = charts.plot(LatencyCharts::TtftOverTime);
    QCOMPARE(plot->legend->itemCount(), 2);
    QCOMPARE(plot->graph(a)->name(), charts.seriesName(a));
    const auto colour = [&](int s) { return static_cast<anthro::widgets::chart_detail::SeriesGraph*>(plot->graph(s))->key_colour; };
    QVERIFY(colour(a) != colour(b));
    // A colour stays its series' as others arrive.
    const QColor kept = colour(b);
    charts.addPoints({request_point(measured(54, 90), chart_run(anthro, RunStart{1'700'000'001, 54}, "x", "candidate"), 54, 3)});
    charts.flush();
    QCOMPARE(colour(b), kept);
  }

  // The series names the protocol the connection spoke, not the HTTP/2 box: ticked against a
  // server of HTTP/1.1 only (TLS selecting http/1.1, or no ALPN), the request is charted as
  // HTTP/1.1; with h2 selected (the local endpoint), as HTTP/2. The box's guess, under which the
  // stream's ITL ran, leaves no series behind in the legend.
  void theSeriesIsTheProtocolSpoken_data() {
    QTest::addColumn<bool>("select_http1");
    QTest::newRow("ALPN http/1.1") << true;
    QTest::newRow("no ALPN") << false;
  }
  void theSeriesIsTheProtocolSpoken() {
    QFETCH(bool, select_http1);
    EndpointFixture endpoint;  // a server that selects h2
    endpoint.start();
    QFile recorded(QString::fromUtf8(ANTHRO_COMPAT_DIR) + "/anthropic-thinking.http");
    QVERIFY(recorded.open(QIODevice::ReadOnly));
    HeadCatcher server(recorded.readAll().toStdString(), HeadCatcher::Tls{select_http1});
    SessionPanel panel;
    const QString http1 = QString("https://127.0.0.1:%1/v1/messages").arg(server.port());
    panel.setTarget(http1);
    panel.setInsecure(true);  // its certificate is its own
    panel.setHttp2(true);
    QVERIFY2(sendAndWait(panel), qPrintable(panel.sessionError()));
    QCOMPARE(panel.lastSession()->alpn, std::string(select_http1 ? "http/1.1" : ""));
    QCOMPARE(panel.results().size(), std::size_t{1});
    QCOMPARE(panel.results()[0].end, RequestEnd::Response);
    QCOMPARE(startTimes(panel, seriesOf(panel, "HTTP Messages API", http1)).size(), std::size_t{1});
    QCOMPARE(legendNames(panel), QStringList{"HTTP Messages API · " + http1});

    const QString h2 = QString::fromStdString(endpoint.endpoint().url("https")) + "/v1/messages";
    panel.setTarget(h2);
    QVERIFY2(sendAndWait(panel), qPrintable(panel.sessionError()));
    QCOMPARE(panel.lastSession()->alpn, std::string("h2"));
    QCOMPARE(startTimes(panel, seriesOf(panel, "HTTP/2 Messages API", h2)).size(), std::size_t{1});
    QCOMPARE(legendNames(panel), QStringList{"HTTP/2 Messages API · " + h2});  // the send's run is shown
  }

  // Runs are bounded: together no more than two full series hold, the oldest dropped first.
  void oldRunsAreDroppedBeyondTheBound() {
    LatencyCharts charts;
    charts.setMaxPoints(10);
    auto run = [&](double key, int n) {
      std::vector<RunPoint> points;
      for (int i = 0; i < n; ++i) points.push_back({ramp(1)[0], "anthro-v1 · anthro://h:1", key, QString("run %1").arg(key)});
      charts.addPoints(points);
    };
    run(1, 10);
    run(2, 10);
    run(3, 1);
    QCOMPARE(charts.runLabels(), QStringList({"run 1", "run 2", "run 3"}));  // 21 held: checked at the next run
    run(4, 1);
    QCOMPARE(charts.runLabels(), QStringList({"run 2", "run 3", "run 4"}));
  }
};

QTEST_MAIN(TestChartNavigation)
#include "test_chart_navigation.moc"
