// The live session page against a local endpoint: the charts fill while a load runs, one time
// base for sends and loads, Clear, the load panel's controls as core's bench takes them, the
// records export, the stats line and load status in the interface's language, and a layout
// whose texts never widen it nor get cut at 1024 px.
#include <qcustomplot.h>

#include <QElapsedTimer>
#include <QProcess>
#include <QByteArray>
#include <QFile>
#include <QFileInfo>
#include <QFloat16>
#include <QIODevice>
#include <QLabel>
#include <QLineEdit>
#include <QList>
#include <QObject>
#include <QPushButton>
#include <QComboBox>
#include <QSignalSpy>
#include <QSplitter>
#include <QString>
#include <QStringList>
#include <QStringLiteral>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>

#include "layerzero/format.h"
#include "chart_checks.h"
#include "endpoint_fixture.h"
#include "head_catcher.h"
#include "english_text.h"
#include "language.h"
#include "latency_charts.h"
#include "error_text.h"
#include "session_panel.h"
#include "tokenstream/exchange.h"
#include "tokenstream/format.h"

using namespace anthro;
using namespace anthro::test;
using namespace anthro::widgets;

namespace {

bool hasButton(QWidget& w, const QString& text) {
  const auto buttons = w.findChildren<QPushButton*>();
  return std::any_of(buttons.begin(), buttons.end(), [&](QPushButton* b) { return b->text() == text; });
}

bool loadAndWait(SessionPanel& panel) {
  QSignalSpy finished(&panel, &SessionPanel::loadFinished);
  panel.runLoad();
  return finished.wait(60000) && finished.at(0).at(0).toBool();
}

}  // namespace

class TestSessionPanel : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    // ~20 ms to the first token, then 30 tokens 4 ms apart: ~140 ms a request.
    fixture_ = std::make_unique<EndpointFixture>(std::vector<std::string>{}, 20, 4, 30);
    fixture_->start();
    lab_ = QString::fromStdString(fixture_->endpoint().url("anthro+lab"));
  }
  void cleanupTestCase() { fixture_.reset(); }

  // Each request reaches the charts as it ends: while the load still runs, the charts hold
  // some of its requests and have drawn them, and the status counts them.
  void chartsGainPointsWhileALoadRuns() {
    SessionPanel panel;
    panel.resize(1024, 700);
    panel.show();
    panel.setTarget(lab_);
    panel.setLoad(40, 2);  // ~20 rounds of ~140 ms
    QSignalSpy finished(&panel, &SessionPanel::loadFinished);
    panel.runLoad();
    QVERIFY(panel.loadRunning());
    const int s = seriesOf(panel, "anthro-v1", lab_);
    QCPGraph* drawn = panel.charts()->plot(LatencyCharts::TtftOverTime)->graph(s);
    std::size_t partial = 0;
    int drawn_while_running = 0;
    QString status_while_running;
    QElapsedTimer clock;
    clock.start();
    while (finished.isEmpty() && clock.elapsed() < 60000) {
      QTest::qWait(20);
      if (!finished.isEmpty()) break;  // loadFinished came in that wait: the load is over
      const std::size_t held = panel.charts()->pointCount(s);
      if (held > 0 && held < 40) partial = held;
      if (held < 40 && drawn->dataCount() > 0) {  // drawn by the charts' own coalesced update
        drawn_while_running = drawn->dataCount();
        status_while_running = panel.loadStatus();
      }
    }
    QCOMPARE(finished.size(), 1);
    QVERIFY2(partial > 0, "no point reached the charts while the load ran");
    QVERIFY(drawn_while_running > 0 && drawn_while_running < 40);
    QVERIFY2(status_while_running.contains(" of 40 requests done"), qPrintable(status_while_running));
    QCOMPARE(panel.charts()->pointCount(s), std::size_t(40));
    QCOMPARE(panel.charts()->ttftValues(s).size(), std::size_t(40));
    QVERIFY2(panel.loadStatus().startsWith("40 requests in"), qPrintable(panel.loadStatus()));
  }

  // Each send and each load is a run of its own, placed since its own start: a load after a
  // session starts near 0 again; the latest run is shown, an earlier one a pick away. A load
  // "as candidate" is overlaid on the latest run, from its own start too, in a series apart.
  void eachRunOnItsOwnTimeBase() {
    SessionPanel panel;
    panel.setTarget(lab_);
    panel.setRepeat(2);
    QVERIFY(sendAndWait(panel));
    QTest::qWait(1100);  // runs a second apart: listed by their start's time
    panel.setLoad(6, 2);
    QVERIFY(loadAndWait(panel));
    const int base = seriesOf(panel, "anthro-v1", lab_), candidate = seriesOf(panel, "anthro-v1", lab_, true);
    const std::vector<double> loaded = startTimes(panel, base);
    QCOMPARE(loaded.size(), std::size_t(6));  // the load's alone: the send's run is not shown
    QVERIFY2(loaded.front() >= 0 && loaded.front() < 0.5, qPrintable(QString::number(loaded.front())));
    QCOMPARE(panel.charts()->runLabels().size(), 2);

    QTest::qWait(1100);
    panel.setLoadSeries(1);
    QVERIFY(loadAndWait(panel));
    QCOMPARE(panel.charts()->runLabels().size(), 2);  // overlaid, not a run of its own
    QCOMPARE(startTimes(panel, base), loaded);
    const std::vector<double> compared = startTimes(panel, candidate);
    QCOMPARE(compared.size(), std::size_t(6));
    QVERIFY2(compared.front() >= 0 && compared.front() < 0.5, qPrintable(QString::number(compared.front())));

    panel.charts()->showRun(0);
    const std::vector<double> sent = startTimes(panel, base);
    QCOMPARE(sent.size(), std::size_t(2));
    QVERIFY2(sent.front() >= 0 && sent.front() < 0.5, qPrintable(QString::number(sent.front())));
    QVERIFY(startTimes(panel, candidate).empty());
  }

  // Clear empties the charts and the next request starts the time base again.
  void clearStartsAfresh() {
    SessionPanel panel;
    panel.setTarget(lab_);
    QVERIFY(sendAndWait(panel));
    QTest::qWait(1200);
    panel.clearCharts();
    QCOMPARE(panel.charts()->pointCount(0), std::size_t(0));
    QVERIFY(panel.statsLine().isEmpty());
    QVERIFY(sendAndWait(panel));
    const std::vector<double> keys = startTimes(panel, seriesOf(panel, "anthro-v1", lab_));
    QCOMPARE(keys.size(), std::size_t(1));
    QVERIFY2(keys[0] < 0.5, qPrintable(QString::number(keys[0])));
  }

  // The controls as `bench` takes them; what cannot run is refused with the reason.
  void loadControlsMapOntoTheBench() {
    SessionPanel panel;
    panel.setTarget(lab_);
    panel.setOpenLoad(25, Arrivals::Poisson);
    panel.setLoadLimits(0, 30);
    panel.setSlo("ttft:300, tpot:40");
    auto b = panel.loadConfig();
    QVERIFY2(b, b ? "" : b.error().detail.c_str());
    QCOMPARE(b->concurrency, 0u);
    QCOMPARE(b->rate, 25.0);
    QVERIFY(b->arrivals == Arrivals::Poisson);
    QVERIFY(!b->requests);
    QCOMPARE(b->duration_s, std::optional<double>(30));
    QCOMPARE(b->slo.ttft_ms, std::optional<double>(300));
    QCOMPARE(b->slo.tpot_ms, std::optional<double>(40));
    QVERIFY(!b->slo.e2e_ms);

    panel.setLoad(10, 3);
    b = panel.loadConfig();
    QVERIFY(b);
    QCOMPARE(b->concurrency, 3u);
    QCOMPARE(b->rate, 0.0);
    QCOMPARE(b->requests, std::optional<std::uint64_t>(10));
    QCOMPARE(b->duration_s, std::optional<double>(30));

    QSignalSpy messages(&panel, &SessionPanel::message);
    panel.setSlo("ttft:abc");
    b = panel.loadConfig();
    QVERIFY(!b);
    QVERIFY2(QString::fromStdString(b.error().detail).contains("ttft:abc"), b.error().detail.c_str());
    panel.runLoad();
    QVERIFY(!panel.loadRunning());
    QCOMPARE(messages.size(), 1);
    QVERIFY(messages.at(0).at(0).toString().contains("ttft:abc"));

    panel.setSlo({});
    panel.setLoadLimits(0, 0);
    b = panel.loadConfig();
    QVERIFY(!b);
    QVERIFY2(QString::fromStdString(b.error().detail).contains("number of requests or a duration"), b.error().detail.c_str());
  }

  // A load with an SLO reports its goodput; its records export as JSONL and CSV through
  // core's writer; a path that cannot be written is named.
  void aLoadExportsItsRecords() {
    SessionPanel panel;
    panel.setTarget(lab_);
    panel.setLoad(5, 2);
    panel.setSlo("ttft:10000");
    QVERIFY(loadAndWait(panel));
    QVERIFY2(panel.loadStatus().contains("goodput"), qPrintable(panel.loadStatus()));
    QTemporaryDir dir;
    const QString jsonl = dir.filePath("r.jsonl"), csv = dir.filePath("r.csv");
    QVERIFY(panel.exportRecords(jsonl));
    QVERIFY(panel.exportRecords(csv));
    QFile j(jsonl), c(csv);
    QVERIFY(j.open(QIODevice::ReadOnly) && c.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = j.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 5);
    for (const QByteArray& line : lines) QVERIFY2(line.startsWith('{') && line.contains("\"index\":"), line.constData());
    const QList<QByteArray> rows = c.readAll().trimmed().split('\n');
    QCOMPARE(rows.size(), 6);
    QVERIFY2(rows[0].split(',').contains("index"), rows[0].constData());

    QSignalSpy messages(&panel, &SessionPanel::message);
    const QString bad = dir.filePath("missing/r.jsonl");
    QVERIFY(!panel.exportRecords(bad));
    QCOMPARE(messages.size(), 1);
    QVERIFY2(messages.at(0).at(0).toString().contains(bad), qPrintable(messages.at(0).at(0).toString()));
    QVERIFY(!QFile::exists(bad));
  }

  // Clicking a load's point shows that request in the stats line.
  void clickingALoadPointShowsItsRequest() {
    SessionPanel panel;
    panel.setTarget(lab_);
    panel.setLoad(4, 2);
    QVERIFY(loadAndWait(panel));
    panel.charts()->flush();
    QCustomPlot* plot = panel.charts()->plot(LatencyCharts::TtftOverTime);
    emit plot->plottableClick(plot->graph(seriesOf(panel, "anthro-v1", lab_)), 0, nullptr);
    QVERIFY2(panel.statsLine().startsWith("load request "), qPrintable(panel.statsLine()));
    QVERIFY(panel.statsLine().contains("TTFT"));
  }

  // While one long stream runs, its inter-token latencies fill the histogram; when it ends,
  // the request's measured ones replace them.
  void theHistogramFollowsAStream() {
    EndpointFixture slow({}, 20, 5, 400);  // ~2 s of tokens
    slow.start();
    SessionPanel panel;
    const QString target = QString::fromStdString(slow.endpoint().url("anthro+lab"));
    panel.setTarget(target);
    QSignalSpy finished(&panel, &SessionPanel::sessionFinished);
    QVERIFY(panel.send());
    const int s = seriesOf(panel, "anthro-v1", target);
    auto* bars = qobject_cast<QCPBars*>(panel.charts()->plot(LatencyCharts::ItlHistogram)->plottable(s));
    QTRY_VERIFY_WITH_TIMEOUT(bars->dataCount() > 0, 10000);  // drawn by the charts' own update
    QVERIFY(panel.results().empty());
    QVERIFY(finished.isEmpty());
    const std::size_t partial = panel.charts()->itlSampleCount(s);
    QVERIFY(partial > 0 && partial < 399);
    QVERIFY(finished.wait(20000));
    QCOMPARE(panel.results().size(), std::size_t(1));
    QCOMPARE(panel.charts()->itlSampleCount(s), panel.results()[0].figures.itl_ms.size());
  }

  void aCancelShowsItsLatency() {
    EndpointFixture slow({}, 20, 5, 2000);  // ~10 s of tokens
    slow.start();
    SessionPanel panel;
    panel.setTarget(QString::fromStdString(slow.endpoint().url("anthro+lab")));
    QSignalSpy finished(&panel, &SessionPanel::sessionFinished);
    QVERIFY(panel.send());
    QTRY_VERIFY_WITH_TIMEOUT(panel.answer().size() > 10, 10000);
    panel.cancel();
    QVERIFY(finished.wait(10000));
    QVERIFY2(panel.statsLine().contains("stop cancelled"), qPrintable(panel.statsLine()));
    QVERIFY2(panel.statsLine().contains("cancel latency "), qPrintable(panel.statsLine()));
  }

  // The token stream from the composer: offered for a Messages API target only; the ids
  // arrive named as text, and their request reaches the charts with its TTFT (the first id).
  void tokenIdsFromTheComposer() {
    EndpointFixture ids({}, 20, 4, 30);
    serve_token_stream(ids.config());
    ids.start();
    SessionPanel panel;
    panel.setTarget(lab_);
    QVERIFY(!panel.tokenIdsOffered());
    const QString target = QString::fromStdString(ids.endpoint().url("http")) + "/v1/messages";
    panel.setTarget(target);
    QVERIFY(panel.tokenIdsOffered());
    panel.setTokenIds(true);
    QVERIFY(sendAndWait(panel));
    QCOMPARE(panel.results().size(), std::size_t{1});
    const RequestResult r = panel.results()[0];  // a copy: the next send clears them
    QVERIFY(token_stream_of(r));
    QCOMPARE(token_stream_of(r)->ids, std::uint64_t{30});
    QCOMPARE(r.figures.tokens, std::uint64_t{30});
    QVERIFY(r.figures.ttft_ms.has_value());
    QCOMPARE(panel.answer(), QString::fromStdString(r.text));
    QVERIFY(!panel.answer().contains(QStringLiteral("⟦")));  // every id named through GET /v1/vocab
    QCOMPARE(startTimes(panel, seriesOf(panel, "Token stream", target)).size(), std::size_t{1});
    // Its stats line names the exchange as the capture's Stream column does (the vocabulary's
    // GET went first), and no anthro-v1 RESPONSE it never has.
    QVERIFY(r.stream_id > 0);
    QVERIFY2(panel.statsLine().startsWith(QString("stream %1: TTFT").arg(r.stream_id)), qPrintable(panel.statsLine()));
    QVERIFY2(!panel.statsLine().contains("stop"), qPrintable(panel.statsLine()));

    // HTTP/2: offered for an https:// target only; the same ids come over ALPN h2.
    QVERIFY(!panel.http2Offered());
    panel.setTarget(QString::fromStdString(ids.endpoint().url("https")) + "/v1/messages");
    QVERIFY(panel.http2Offered());
    panel.setHttp2(true);
    QVERIFY(sendAndWait(panel));
    QVERIFY(panel.lastSession());
    QCOMPARE(panel.lastSession()->alpn, std::string("h2"));
    QCOMPARE(panel.results().size(), std::size_t{1});
    QCOMPARE(token_stream_of(panel.results()[0])->ids, std::uint64_t{30});
    QCOMPARE(panel.results()[0].text, r.text);
  }

  // The Headers field: each line on the request as written (a gateway's path and query kept),
  // a bad line refused before anything is sent, the field off for a target without headers.
  void headersFromTheComposer() {
    SessionPanel panel;
    HeadCatcher server;
    panel.setTarget(QString("http://127.0.0.1:%1/gw/v1/messages?api-version=1").arg(server.port()));
    panel.setHeaders("anthropic-beta: tools-1\n\n  X-Route :  eu  \nanthropic-version: 2099-01-01");
    QSignalSpy finished(&panel, &SessionPanel::sessionFinished);
    QVERIFY(panel.send());
    QVERIFY(finished.wait(30000));
    QCOMPARE(panel.results().size(), std::size_t{1});
    QVERIFY(panel.results()[0].error && panel.results()[0].error->find("500") != std::string::npos);
    const std::string head = server.head();
    QVERIFY2(head.rfind("POST /gw/v1/messages?api-version=1 HTTP/1.1\r\n", 0) == 0, head.c_str());
    const auto lines = header_lines(head);
    for (const char* expected : {"anthropic-beta: tools-1", "x-route: eu", "anthropic-version: 2099-01-01"})
      QVERIFY2(std::count(lines.begin(), lines.end(), expected) == 1, head.c_str());

    // A secret from the environment, as --header-env: "NAME: $ENV" or "NAME: ${ENV}"; a
    // credential may come so, never typed.
    qputenv("WB_GUI_TENANT_SECRET", "gui-secret-4d2e");
    HeadCatcher second;
    panel.setTarget(QString("http://127.0.0.1:%1/v1/messages").arg(second.port()));
    panel.setHeaders("x-tenant: $WB_GUI_TENANT_SECRET\nx-api-key: ${WB_GUI_TENANT_SECRET}");
    QVERIFY(panel.send());
    QVERIFY(finished.wait(30000));
    const auto from_environment = header_lines(second.head());
    for (const char* expected : {"x-tenant: gui-secret-4d2e", "x-api-key: gui-secret-4d2e"})
      QVERIFY2(std::count(from_environment.begin(), from_environment.end(), expected) == 1, second.head().c_str());
    qunsetenv("WB_GUI_TENANT_SECRET");
    panel.setHeaders("x-tenant: $WB_GUI_TENANT_SECRET");
    QVERIFY(!panel.send());
    QVERIFY2(panel.sessionError().contains("Headers, line 1") && panel.sessionError().contains("WB_GUI_TENANT_SECRET is not set"),
             qPrintable(panel.sessionError()));
    panel.setTarget(QString("http://127.0.0.1:%1/gw/v1/messages?api-version=1").arg(server.port()));

    QSignalSpy messages(&panel, &SessionPanel::message);
    panel.setHeaders("x-ok: 1\nx-api-key: sk-typed");
    QVERIFY(!panel.send());
    QVERIFY2(panel.sessionError().contains("Headers, line 2") && panel.sessionError().contains("--header-env"),
             qPrintable(panel.sessionError()));
    QVERIFY(!panel.sessionError().contains("sk-typed"));
    QCOMPARE(messages.size(), 1);
    QVERIFY(panel.headersOffered());
    panel.setTarget(lab_);  // anthro-v1 carries no headers: the field is off, its lines not sent
    QVERIFY(!panel.headersOffered());
    QVERIFY(sendAndWait(panel));
    panel.setTarget(QString::fromStdString(fixture_->endpoint().url("http")) + "/v1/messages");
    panel.setHeaders("\n  \n");  // blank lines are no headers
    QVERIFY(sendAndWait(panel));
  }

  // The key's default is the CLI's: ANTHROPIC_API_KEY for a Messages API target,
  // OPENAI_API_KEY for chat completions, each only when set.
  void keysFollowTheTargetsApiByDefault() {
    SessionPanel panel;
    qputenv("ANTHROPIC_API_KEY", "sk-ant-gui-default");
    qputenv("OPENAI_API_KEY", "sk-oai-gui-default");
    QSignalSpy finished(&panel, &SessionPanel::sessionFinished);
    for (const auto& [path, expected] : {std::pair{"/v1/messages", "x-api-key: sk-ant-gui-default"},
                                         std::pair{"/v1/chat/completions", "authorization: Bearer sk-oai-gui-default"}}) {
      HeadCatcher server;
      panel.setTarget(QString("http://127.0.0.1:%1%2").arg(server.port()).arg(path));
      QVERIFY(panel.send());
      QVERIFY(finished.wait(30000));
      const auto lines = header_lines(server.head());
      QVERIFY2(std::count(lines.begin(), lines.end(), std::string(expected)) == 1, server.head().c_str());
    }
    qunsetenv("ANTHROPIC_API_KEY");
    qunsetenv("OPENAI_API_KEY");
    HeadCatcher server;
    panel.setTarget(QString("http://127.0.0.1:%1/v1/messages").arg(server.port()));
    QVERIFY(panel.send());
    QVERIFY(finished.wait(30000));
    QVERIFY2(server.head().find("x-api-key") == std::string::npos, server.head().c_str());
  }

  // Layer Zero from the composer: the answer streams in while the ITL histogram
  // fills, the request reaches the charts with its TTFT (the first MODEL_OUTPUT), and the
  // fields a Layer Zero session has no use for are off while its target is chosen; a load
  // is refused with a message rather than run.
  void layerZeroFromTheComposer() {
    EndpointFixture lz({}, 20, 5, 200);  // ~1 s of outputs
    lz.config().own_listen[lz::profile_id()] = "127.0.0.1:0";
    lz.start();
    SessionPanel panel;
    const QString target = QString::fromStdString(lz.endpoint().url("lz+lab"));
    panel.setTarget(target);
    QVERIFY(!panel.tokenIdsOffered());
    QSignalSpy finished(&panel, &SessionPanel::sessionFinished);
    QVERIFY(panel.send());
    const int s = seriesOf(panel, "Layer Zero", target);
    QTRY_VERIFY_WITH_TIMEOUT(panel.charts()->itlSampleCount(s) > 0, 10000);
    QVERIFY(finished.isEmpty());  // drawn while it streams
    QVERIFY(finished.wait(20000));
    QVERIFY(finished.at(0).at(0).toBool());
    QCOMPARE(panel.results().size(), std::size_t{1});
    const RequestResult& r = panel.results()[0];
    QVERIFY2(!r.error, r.error ? r.error->c_str() : "");
    QCOMPARE(r.figures.tokens, std::uint64_t{200});
    QVERIFY(r.figures.ttft_ms.has_value());
    QCOMPARE(panel.answer(), QString::fromStdString(r.text));
    QCOMPARE(startTimes(panel, s).size(), std::size_t{1});
    QSignalSpy messages(&panel, &SessionPanel::message);
    panel.runLoad();
    QVERIFY(!panel.loadRunning());
    QCOMPARE(messages.size(), 1);
    QVERIFY2(messages.at(0).at(0).toString().contains("Layer Zero"), qPrintable(messages.at(0).at(0).toString()));
    if (qEnvironmentVariableIsSet("ANTHRO_TEST_SHOTS"))
      panel.grab().save(qEnvironmentVariable("ANTHRO_TEST_SHOTS") + "/session-layer-zero.png");
  }

  // The stats line, the load status and the charts' texts follow a language switch.
  void textsFollowTheLanguage() {
    SessionPanel panel;
    QVERIFY(hasButton(panel, "Run load"));  // named before any load ran
    panel.setTarget(lab_);
    QVERIFY(sendAndWait(panel));
    panel.setLoad(4, 2);
    QSignalSpy finished(&panel, &SessionPanel::loadFinished);
    panel.runLoad();
    QVERIFY(hasButton(panel, "Stop load") && !hasButton(panel, "Run load"));
    QVERIFY(finished.wait(60000) && finished.at(0).at(0).toBool());
    QVERIFY(hasButton(panel, "Run load"));
    panel.charts()->requestClicked(0, 0);  // the session's request in the stats line
    QVERIFY(panel.statsLine().startsWith("stream "));
    // The target's hint ends with each format's own schemes, from the registry, in both languages.
    auto hint = [&panel] {
      for (auto* box : panel.findChildren<QComboBox*>())
        if (box->toolTip().contains("anthro+lab://")) return box->toolTip();
      return QString();
    };
    QVERIFY2(hint().endsWith(", lz://host:port or lz+lab://host:port (Layer Zero)"), qPrintable(hint()));
    gui::install_language("zh_CN");
    QTRY_VERIFY2(panel.loadStatus().contains(QString::fromUtf8("个请求")), qPrintable(panel.loadStatus()));
    QVERIFY2(hint().endsWith(QString::fromUtf8("、lz://主机:端口或 lz+lab://主机:端口（Layer Zero）")), qPrintable(hint()));
    QVERIFY2(panel.statsLine().startsWith(QString::fromUtf8("流 ")), qPrintable(panel.statsLine()));
    QVERIFY(hasButton(panel, QString::fromUtf8("运行压测")));
    gui::install_language("en");
    QTRY_VERIFY2(panel.loadStatus().startsWith("4 requests in"), qPrintable(panel.loadStatus()));
    QVERIFY(panel.statsLine().startsWith("stream "));
  }

  // Long stats and status lines wrap: they never widen the request pane or the page.
  void longLinesNeverWidenThePage() {
    SessionPanel panel;
    panel.resize(1024, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto* split = panel.findChild<QSplitter*>();
    QVERIFY(split);
    const int pane = split->widget(0)->width();
    const int minimum = panel.minimumSizeHint().width();
    const QString long_line = "stream 1: " + QString("TTFT 12.3 ms, E2E 456.7 ms, ").repeated(20);
    for (const char* name : {"stats-line", "load-status"}) {
      auto* label = panel.findChild<QLabel*>(name);
      QVERIFY2(label, name);
      label->setText(long_line);
      QTest::qWait(50);
      QCOMPARE(split->widget(0)->width(), pane);
      QCOMPARE(panel.minimumSizeHint().width(), minimum);
      QCOMPARE(panel.width(), 1024);
    }
  }

  // The session page at 1024 × 700 with both series, in English and in Chinese: every chart's
  // title, legend and axis labels are whole.
  void chartTextsFitAt1024() {
    for (const char* language : {"en", "zh_CN"}) {
      gui::install_language(language);
      SessionPanel panel;
      panel.resize(1024, 700);
      panel.show();
      QVERIFY(QTest::qWaitForWindowExposed(&panel));
      QVERIFY2(panel.width() <= 1024, qPrintable(QString::number(panel.width())));
      LatencyCharts* charts = panel.charts();
      for (int s = 0; s < 2; ++s) {
        std::vector<RequestPoint> points;
        for (int i = 0; i < 30; ++i) points.push_back({i * 0.2, 100.0 + s * 40 + i, 50.0 + s * 10, {4.0 + s, 5.0, 6.0}, i});
        charts->addPoints(s, points);
      }
      charts->flush();
      const QString problem = chartsHeaderProblem(*charts, {charts->seriesName(0), charts->seriesName(1)});
      QVERIFY2(problem.isEmpty(), qPrintable(QString("%1, %2").arg(QString::fromLatin1(language), problem)));
    }
    gui::install_language("en");
  }

  // A certificate the page does not trust: the error names the two choices the page has
  // controls for (CA file, Insecure), not the CLI's options; ticking Insecure sends.
  void anUntrustedCertificatePointsAtThePagesControls() {
    SessionPanel panel;
    panel.setTarget(QString::fromStdString(fixture_->endpoint().url("anthro")));
    // A CA of its own, which never signed the endpoint's certificate.
    QTemporaryDir dir;
    const QString ca = dir.filePath("other-ca.pem");
    QProcess openssl;
    openssl.start("openssl", {"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj",
                              "/CN=another CA", "-days", "1", "-keyout", dir.filePath("key.pem"), "-out", ca});
    QVERIFY(openssl.waitForFinished(30000) && openssl.exitCode() == 0);
    panel.setCaFile(ca);
    QSignalSpy finished(&panel, &SessionPanel::sessionFinished);
    panel.send();
    QVERIFY(finished.wait(30000));
    QVERIFY(!finished.at(0).at(0).toBool());
    const QString error = panel.sessionError();
    QVERIFY2(error.contains("trust the CA certificate that signed it, or turn the check off") &&
                 error.contains("other-ca.pem") && !error.contains("--"),
             qPrintable(error));
    panel.setInsecure(true);
    panel.send();
    QVERIFY(finished.wait(30000));
    QVERIFY2(finished.at(1).at(0).toBool(), qPrintable(panel.sessionError()));
  }

  // A target that is no URL is said in the page's words: "Target: …", no "--target".
  void aBadTargetIsSaidInThePagesWords() {
    SessionPanel panel;
    panel.setTarget("ftp://x:1");
    QSignalSpy messages(&panel, &SessionPanel::message);
    QVERIFY(!panel.send());
    QVERIFY(!panel.running());
    QCOMPARE(panel.sessionError(), QString("Target: \"ftp://x:1\": unknown scheme \"ftp\" (anthro, anthro+lab, http, https, lz, lz+lab)"));
    QCOMPARE(messages.last().at(0).toString(), panel.sessionError());
  }

  // A bad SLO is said on its field in the page's words (not the CLI's "--slo"), and the load
  // does not start; editing the field clears the mark.
  void aBadSloIsMarkedOnItsField() {
    SessionPanel panel;
    panel.setTarget(lab_);
    panel.setSlo("ttft:abc");
    QSignalSpy messages(&panel, &SessionPanel::message);
    QVERIFY(!panel.runLoad());
    QVERIFY(!panel.loadRunning());
    auto* slo = panel.findChild<QLineEdit*>("slo");
    QVERIFY(slo);
    QVERIFY(field_marked(slo));
    QCOMPARE(slo->toolTip(), QString("SLO: \"ttft:abc\": not a number"));
    QCOMPARE(messages.last().at(0).toString(), slo->toolTip());
    QVERIFY(!panel.loadStatus().contains("--"));
    QTest::keyClick(slo, Qt::Key_Backspace);
    QVERIFY(!field_marked(slo));
  }

  // Stop during a load: the status says it was cancelled and how many of how many were done
  // (it said "N requests in …" as if the load had run to its end).
  void aStoppedLoadSaysHowManyOfHowMany() {
    SessionPanel panel;
    panel.setTarget(lab_);
    panel.setLoad(400, 2);
    QSignalSpy finished(&panel, &SessionPanel::loadFinished);
    QVERIFY(panel.runLoad());
    QTRY_VERIFY_WITH_TIMEOUT((panel.charts()->flush(), panel.charts()->pointCount(seriesOf(panel, "anthro-v1", lab_)) >= 4), 30000);
    panel.stopLoad();
    QVERIFY(finished.wait(30000));
    QVERIFY(finished.at(0).at(0).toBool());  // what was done is kept
    QVERIFY(panel.lastLoad() && panel.lastLoad()->requests < 400);
    const QString status = panel.loadStatus();
    QVERIFY2(status.startsWith("Cancelled") && status.contains(QString("%1 of 400 requests done").arg(panel.lastLoad()->requests)),
             qPrintable(status));
    QVERIFY(panel.hasUnsavedResult());
    QVERIFY(!panel.busy() || panel.waitForJobs(10000));
  }

  // For "never lose work": a captured send's file is unsaved until the user saves it, its
  // result too; busy while a load runs; cancelAll stops it and waitForJobs sees its jobs end.
  void thePageSaysWhatWouldBeLost() {
    SessionPanel panel;
    panel.setTarget(lab_);
    panel.setCaptureTraffic(true);
    QSignalSpy ready(&panel, &SessionPanel::captureReady);
    QVERIFY(panel.send());
    QVERIFY(panel.busy());
    QVERIFY(ready.wait(30000));
    const QString path = ready.at(0).at(0).toString();
    QCOMPARE(panel.unsavedFiles(), QStringList{path});
    QVERIFY(panel.hasUnsavedResult());
    panel.markCaptureSaved(path);
    panel.markResultSaved();
    QVERIFY(panel.unsavedFiles().isEmpty());
    QVERIFY(!panel.hasUnsavedResult());
    panel.setCaptureTraffic(false);
    panel.setLoad(400, 2);
    QVERIFY(panel.runLoad());
    QVERIFY(panel.busy());
    QTRY_VERIFY_WITH_TIMEOUT((panel.charts()->flush(), panel.charts()->pointCount(seriesOf(panel, "anthro-v1", lab_)) >= 2), 30000);
    panel.cancelAll();
    QVERIFY(panel.waitForJobs(30000));
    QVERIFY(!panel.busy() && !panel.loadRunning());
    QVERIFY(panel.hasUnsavedResult());  // the stopped load's requests
  }

  // The Model field shows its name from the start: "claude-3-…", not "-haiku-20240307".
  void theModelFieldShowsItsNameFromTheStart() {
    SessionPanel panel;
    panel.resize(1024, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QLineEdit* model = nullptr;
    for (QLineEdit* e : panel.findChildren<QLineEdit*>())
      if (e->text().startsWith("claude-")) model = e;
    QVERIFY(model);
    QCOMPARE(model->cursorPosition(), 0);
  }

  // Issue 41: how a request ended, in the interface's language: core's English account in
  // English, the end's name in 简体中文, both ways on a switch.
  void aCutStreamEndsInTheInterfacesLanguage() {
    EndpointFixture resetting({"reset-mid-stream=1"}, 5, 2, 200);
    resetting.start();
    SessionPanel panel;
    panel.setTarget(QString::fromStdString(resetting.endpoint().url("anthro+lab")));
    QSignalSpy finished(&panel, &SessionPanel::sessionFinished);
    QVERIFY(panel.send());
    QVERIFY(finished.wait(20000));
    QCOMPARE(panel.results().size(), std::size_t(1));
    const RequestResult& r = panel.results()[0];
    QVERIFY2(r.error && r.end != RequestEnd::Response, qPrintable(panel.statsLine()));
    QVERIFY2(panel.statsLine().contains(QString::fromStdString(*r.error)), qPrintable(panel.statsLine()));
    gui::install_language("zh_CN");
    QTRY_VERIFY2(panel.statsLine().startsWith(QString::fromUtf8("流 ")), qPrintable(panel.statsLine()));
    QVERIFY2(test::english_run(panel.statsLine().toStdString()).empty(), qPrintable(panel.statsLine()));
    QVERIFY2(!panel.statsLine().contains(QString::fromStdString(*r.error)), qPrintable(panel.statsLine()));
    gui::install_language("en");
    QTRY_VERIFY2(panel.statsLine().contains(QString::fromStdString(*r.error)), qPrintable(panel.statsLine()));
  }

 private:
  std::unique_ptr<EndpointFixture> fixture_;
  QString lab_;
};

QTEST_MAIN(TestSessionPanel)
#include "test_session_panel.moc"
