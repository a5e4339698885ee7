// LatencyCharts holds exactly what it was given, draws it, bounds it, exports it and maps
// clicks back to requests; its headers fit any width it gets, series can be hidden, and the
// histogram's note keeps clear of the bars. Zoom, pan, runs and series: test_chart_navigation.
#include <qcustomplot.h>

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFloat16>
#include <QIODevice>
#include <QObject>
#include <QPoint>
#include <QPointF>
#include <QRect>
#include <QRectF>
#include <QSignalSpy>
#include <QSize>
#include <QString>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <deque>
#include <random>
#include <set>

#include "chart_checks.h"
#include "language.h"
#include "latency_charts.h"

using anthro::test::chartsHeaderProblem;
using anthro::test::ramp;
using anthro::widgets::LatencyCharts;
using anthro::widgets::RequestPoint;

namespace {

QByteArray head(const QString& path, int n) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.read(n);
}

double barsTotal(QCPBars* bars) {
  double total = 0;
  for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) total += it->value;
  return total;
}

QCPItemStraightLine* percentileLine(QCustomPlot* plot, const QString& name) {
  for (int i = 0; i < plot->itemCount(); ++i)
    if (plot->item(i)->objectName() == name) return qobject_cast<QCPItemStraightLine*>(plot->item(i));
  return nullptr;
}

}  // namespace

class TestLatencyCharts : public QObject {
  Q_OBJECT
 private slots:
  void holdsExactlyTheTtftValuesGiven() {
    LatencyCharts charts;
    std::vector<RequestPoint> batch = ramp(5);
    batch[2].ttft_ms.reset();                      // a request without a first token
    batch[3].ttft_ms = 0.1 + 0.2;                  // kept bit for bit
    charts.addPoints(0, batch);
    charts.addPoints(1, ramp(3, 1000));
    QCOMPARE(charts.pointCount(0), std::size_t(5));
    QCOMPARE(charts.pointCount(1), std::size_t(3));
    QCOMPARE(charts.ttftValues(0), (std::vector<double>{1, 2, 0.1 + 0.2, 5}));
    QCOMPARE(charts.ttftValues(1), (std::vector<double>{1001, 1002, 1003}));
    QVERIFY(charts.ttftValues(2).empty());
    QCOMPARE(charts.pointCount(-1), std::size_t(0));

    charts.flush();
    QCustomPlot* plot = charts.plot(LatencyCharts::TtftOverTime);
    QCOMPARE(plot->graph(0)->dataCount(), 4);
    QCOMPARE(plot->graph(1)->dataCount(), 3);
    QCOMPARE(charts.plot(LatencyCharts::TokenRate)->graph(0)->dataCount(), 5);
  }

  void graphCountFollowsPointsWithoutFlushing() {
    LatencyCharts charts;
    charts.addPoints(0, ramp(1000));
    charts.addPoints(0, ramp(234, 0, 1000));
    // The 50 ms timer applies the points; no explicit flush here.
    QTRY_COMPARE(charts.plot(LatencyCharts::TtftOverTime)->graph(0)->dataCount(), 1234);
    QCOMPARE(charts.pointCount(0), std::size_t(1234));
  }

  void percentileLinesAreNumpyLinear() {
    LatencyCharts charts;
    std::vector<RequestPoint> batch = ramp(100);
    std::shuffle(batch.begin(), batch.end(), std::mt19937(7));
    charts.addPoints(0, batch);
    charts.flush();
    auto p = charts.ttftPercentiles(0);
    QVERIFY(p.has_value());
    QCOMPARE(p->p50, 50.5);
    QCOMPARE(p->p95, 95.05);
    QCOMPARE(p->p99, 99.01);
    QVERIFY(!charts.ttftPercentiles(1).has_value());
    QCustomPlot* plot = charts.plot(LatencyCharts::TtftOverTime);
    const std::pair<const char*, double> expected[] = {{"p50-0", 50.5}, {"p95-0", 95.05}, {"p99-0", 99.01}};
    for (const auto& [name, value] : expected) {
      QCPItemStraightLine* line = percentileLine(plot, name);
      QVERIFY2(line, name);
      QVERIFY(line->visible());
      QCOMPARE(line->point1->coords().y(), value);
      QCOMPARE(line->point2->coords().y(), value);
    }
    // No TTFT in series 1: no lines for it.
    QVERIFY(!percentileLine(plot, "p50-1")->visible());
  }

  void histogramHoldsEveryItlSample() {
    LatencyCharts charts;
    charts.addPoints(0, ramp(200));
    std::vector<RequestPoint> other = ramp(50);
    other[0].itl_ms.push_back(2500);  // a stall far in the tail
    charts.addPoints(1, other);
    charts.flush();
    QCOMPARE(charts.itlSampleCount(0), std::size_t(600));
    QCOMPARE(charts.itlSampleCount(1), std::size_t(151));
    QCustomPlot* plot = charts.plot(LatencyCharts::ItlHistogram);
    QCOMPARE(plot->plottableCount(), 2);
    auto* bars0 = qobject_cast<QCPBars*>(plot->plottable(0));
    auto* bars1 = qobject_cast<QCPBars*>(plot->plottable(1));
    QVERIFY(bars0 && bars1);
    QVERIFY(bars0->dataCount() >= 3);
    QVERIFY(bars0->dataCount() <= 80);
    QCOMPARE(barsTotal(bars0), 600.0);
    QCOMPARE(barsTotal(bars1), 151.0);
  }

  void cdfEndsAtOne() {
    LatencyCharts charts;
    charts.addPoints(0, ramp(10));
    std::vector<RequestPoint> many;
    std::mt19937 rng(3);
    std::lognormal_distribution<double> ttft(std::log(150.0), 0.3);
    for (int i = 0; i < 50'000; ++i) many.push_back({i * 0.01, ttft(rng), 50.0, {}, i});
    charts.addPoints(1, many);
    charts.flush();
    QCustomPlot* plot = charts.plot(LatencyCharts::TtftCdf);
    for (int s = 0; s < 2; ++s) {
      auto data = plot->graph(s)->data();
      QVERIFY(!data->isEmpty());
      QCOMPARE((data->constEnd() - 1)->value, 1.0);
      QCOMPARE(data->constBegin()->value, 0.0);
      for (auto it = data->constBegin() + 1; it != data->constEnd(); ++it) QVERIFY(it->value >= (it - 1)->value);
    }
    QCOMPARE((plot->graph(0)->data()->constEnd() - 1)->key, 10.0);
  }

  void boundedBufferDropsTheOldest() {
    LatencyCharts charts;
    QCOMPARE(charts.maxPoints(), LatencyCharts::kMaxPoints);
    charts.setMaxPoints(5);
    charts.addPoints(0, ramp(3));
    charts.flush();
    charts.addPoints(0, ramp(4, 100, 3));  // ttft 101..104
    QCOMPARE(charts.pointCount(0), std::size_t(5));
    QCOMPARE(charts.ttftValues(0), (std::vector<double>{3, 101, 102, 103, 104}));
    QCOMPARE(charts.itlSampleCount(0), std::size_t(15));
    charts.flush();
    QCustomPlot* plot = charts.plot(LatencyCharts::TtftOverTime);
    QCOMPARE(plot->graph(0)->dataCount(), 5);
    std::multiset<double> shown;
    for (auto it = plot->graph(0)->data()->constBegin(); it != plot->graph(0)->data()->constEnd(); ++it)
      shown.insert(it->value);
    QCOMPARE(shown, (std::multiset<double>{3, 101, 102, 103, 104}));
    QCOMPARE(charts.ttftPercentiles(0)->p50, 102.0);
    auto* bars = qobject_cast<QCPBars*>(charts.plot(LatencyCharts::ItlHistogram)->plottable(0));
    QCOMPARE(barsTotal(bars), 15.0);

    // A batch larger than the bound keeps only its newest points.
    charts.addPoints(0, ramp(12, 200, 100));
    QCOMPARE(charts.ttftValues(0), (std::vector<double>{208, 209, 210, 211, 212}));
    charts.flush();
    QCOMPARE(plot->graph(0)->dataCount(), 5);

    // Out-of-order start times (requests finish out of order) are dropped by age too.
    charts.clear();
    std::vector<RequestPoint> late = ramp(5);
    std::reverse(late.begin(), late.end());  // t_s 2.0, 1.5, ... 0; ttft 5..1
    charts.addPoints(0, late);
    charts.flush();
    charts.addPoints(0, ramp(2, 50, 10));  // t_s 0, 0.5; ttft 51, 52
    QCOMPARE(charts.ttftValues(0), (std::vector<double>{3, 2, 1, 51, 52}));
    charts.flush();
    shown.clear();
    for (auto it = plot->graph(0)->data()->constBegin(); it != plot->graph(0)->data()->constEnd(); ++it)
      shown.insert(it->value);
    QCOMPARE(shown, (std::multiset<double>{3, 2, 1, 51, 52}));

    // Lowering the bound drops at once.
    charts.setMaxPoints(2);
    QCOMPARE(charts.ttftValues(0), (std::vector<double>{51, 52}));
    charts.flush();
    QCOMPARE(plot->graph(0)->dataCount(), 2);
  }

  // Random batches with out-of-order and repeated start times, missing values and a small
  // bound: the charts always show exactly the newest points held.
  void randomBatchesStayConsistent() {
    LatencyCharts charts;
    charts.setMaxPoints(300);
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> batch_size(0, 120), coin(0, 9);
    std::uniform_real_distribution<double> jitter(-3, 3), value(1, 50);
    std::deque<RequestPoint> expected;
    double t = 0;
    int id = 0;
    for (int round = 0; round < 200; ++round) {
      std::vector<RequestPoint> batch(static_cast<std::size_t>(batch_size(rng)));
      for (auto& p : batch) {
        t += 0.1;
        p.t_s = coin(rng) == 0 ? std::round(t) : t + jitter(rng);  // ties and disorder
        if (coin(rng) != 0) p.ttft_ms = std::round(value(rng));     // repeated values too
        if (coin(rng) != 0) p.tokens_per_s = value(rng);
        p.itl_ms.assign(static_cast<std::size_t>(coin(rng)), value(rng));
        p.request = id++;
        expected.push_back(p);
      }
      charts.addPoints(0, batch);
      while (expected.size() > 300) expected.pop_front();
      if (coin(rng) < 3) continue;  // sometimes several batches before a flush
      charts.flush();
      std::multiset<std::pair<double, double>> want_ttft, want_tps, got_ttft, got_tps;
      std::size_t itl = 0;
      std::vector<double> ttft_values;
      for (const auto& p : expected) {
        if (p.ttft_ms) {
          want_ttft.emplace(p.t_s, *p.ttft_ms);
          ttft_values.push_back(*p.ttft_ms);
        }
        if (p.tokens_per_s) want_tps.emplace(p.t_s, *p.tokens_per_s);
        itl += p.itl_ms.size();
      }
      auto collect = [](QCPGraph* g, std::multiset<std::pair<double, double>>& out) {
        for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) {
          if (it != g->data()->constBegin()) QVERIFY((it - 1)->key <= it->key);
          out.emplace(it->key, it->value);
        }
      };
      collect(charts.plot(LatencyCharts::TtftOverTime)->graph(0), got_ttft);
      collect(charts.plot(LatencyCharts::TokenRate)->graph(0), got_tps);
      QVERIFY2(got_ttft == want_ttft, qPrintable(QString("round %1").arg(round)));
      QVERIFY2(got_tps == want_tps, qPrintable(QString("round %1").arg(round)));
      QCOMPARE(charts.ttftValues(0), ttft_values);
      QCOMPARE(charts.itlSampleCount(0), itl);
      auto* bars = qobject_cast<QCPBars*>(charts.plot(LatencyCharts::ItlHistogram)->plottable(0));
      QCOMPARE(barsTotal(bars), static_cast<double>(itl));
      if (!ttft_values.empty()) {
        std::sort(ttft_values.begin(), ttft_values.end());
        const double rank = 0.99 * static_cast<double>(ttft_values.size() - 1);
        const auto lo = static_cast<std::size_t>(rank);
        const double p99 = std::lerp(ttft_values[lo], ttft_values[std::min(lo + 1, ttft_values.size() - 1)],
                                     rank - std::floor(rank));
        QCOMPARE(charts.ttftPercentiles(0)->p99, p99);
        QCOMPARE(percentileLine(charts.plot(LatencyCharts::TtftOverTime), "p99-0")->point1->coords().y(), p99);
      }
    }
  }

  void exportsPngPdfAndSvg() {
    LatencyCharts charts;
    charts.addPoints(0, ramp(300));
    charts.addPoints(1, ramp(300, 20));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString error;
    const QString png = dir.filePath("ttft.png"), pdf = dir.filePath("itl.PDF"), svg = dir.filePath("cdf.svg");
    QVERIFY2(charts.exportChart(LatencyCharts::TtftOverTime, png, &error), qPrintable(error));
    QVERIFY2(charts.exportChart(LatencyCharts::ItlHistogram, pdf, &error), qPrintable(error));
    QVERIFY2(charts.exportChart(LatencyCharts::TtftCdf, svg, &error), qPrintable(error));
    QCOMPARE(head(png, 8), QByteArray("\x89PNG\r\n\x1a\n", 8));
    QCOMPARE(head(pdf, 4), QByteArray("%PDF"));
    const QByteArray svg_head = head(svg, 64);
    QVERIFY2(svg_head.startsWith("<?xml") || svg_head.startsWith("<svg"), svg_head.constData());
    QVERIFY(QFileInfo(png).size() > 1000);
    // No temporary files left behind.
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 3);

    // Overwrites an existing file.
    QVERIFY2(charts.exportChart(LatencyCharts::TokenRate, png, &error), qPrintable(error));
    QCOMPARE(head(png, 4), QByteArray("\x89PNG", 4));
  }

  void exportFailuresNameThePathAndLeaveNoFile() {
    LatencyCharts charts;
    charts.addPoints(0, ramp(10));
    QTemporaryDir dir;
    QString error;
    const QString bmp = dir.filePath("chart.bmp");
    QVERIFY(!charts.exportChart(LatencyCharts::TtftOverTime, bmp, &error));
    QVERIFY2(error.contains(QDir::toNativeSeparators(bmp)), qPrintable(error));
    QVERIFY(!QFile::exists(bmp));
    QVERIFY(!QFile::exists(bmp + ".tmp"));
    error.clear();
    QVERIFY(!charts.exportChart(LatencyCharts::TtftOverTime, dir.filePath("no-extension"), &error));
    QVERIFY(error.contains("no-extension"));

    for (const char* name : {"missing/ttft.png", "missing/ttft.pdf", "missing/ttft.svg"}) {
      const QString path = dir.filePath(name);
      error.clear();
      QVERIFY2(!charts.exportChart(LatencyCharts::TtftCdf, path, &error), name);
      QVERIFY2(error.contains(QDir::toNativeSeparators(path)), qPrintable(error));
      QVERIFY(!QFile::exists(path));
    }
    QVERIFY(!charts.exportChart(LatencyCharts::TtftOverTime, bmp));  // no error pointer: fine
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot).size(), 0);
  }

  void clickingAPointEmitsItsRequest() {
    LatencyCharts charts;
    charts.resize(1200, 800);
    charts.show();
    QVERIFY(QTest::qWaitForWindowExposed(&charts));
    std::vector<RequestPoint> a, b;
    for (int i = 0; i < 20; ++i) {
      a.push_back({i * 1.0, 100.0 + (i % 2) * 40, 50.0 + i, {}, 1000 + i});
      b.push_back({i * 1.0 + 0.5, 300.0, 20.0, {}, 2000 + i});
    }
    charts.addPoints(0, a);
    charts.addPoints(1, b);
    charts.flush();
    QSignalSpy spy(&charts, &LatencyCharts::requestClicked);

    QCustomPlot* plot = charts.plot(LatencyCharts::TtftOverTime);
    plot->replot();
    auto pixel = [](QCPGraph* g, double key, double value) {
      return QPoint(qRound(g->keyAxis()->coordToPixel(key)), qRound(g->valueAxis()->coordToPixel(value)));
    };
    QTest::mouseClick(plot, Qt::LeftButton, {}, pixel(plot->graph(0), 7, 140));
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), 0);
    QCOMPARE(spy.at(0).at(1).toInt(), 1007);
    QTest::mouseClick(plot, Qt::LeftButton, {}, pixel(plot->graph(1), 12.5, 300));
    QCOMPARE(spy.count(), 2);
    QCOMPARE(spy.at(1).at(0).toInt(), 1);
    QCOMPARE(spy.at(1).at(1).toInt(), 2012);

    // The token-rate chart too.
    QCustomPlot* rate = charts.plot(LatencyCharts::TokenRate);
    rate->replot();
    QTest::mouseClick(rate, Qt::LeftButton, {}, pixel(rate->graph(0), 3, 53));
    QCOMPARE(spy.count(), 3);
    QCOMPARE(spy.at(2).at(1).toInt(), 1003);

    // Through the signal itself, by data index.
    emit plot->plottableClick(plot->graph(0), 19, nullptr);
    QCOMPARE(spy.count(), 4);
    QCOMPARE(spy.at(3).at(1).toInt(), 1019);

    // Far from every point: nothing.
    QTest::mouseClick(plot, Qt::LeftButton, {}, pixel(plot->graph(0), 5, 220));
    QCOMPARE(spy.count(), 4);
  }

  void axesStayPutAsDataArrives() {
    LatencyCharts charts;
    charts.resize(1200, 800);
    charts.show();
    QVERIFY(QTest::qWaitForWindowExposed(&charts));
    auto rects = [&] {
      std::vector<QRect> r;
      for (auto chart : {LatencyCharts::TtftOverTime, LatencyCharts::TokenRate, LatencyCharts::ItlHistogram,
                         LatencyCharts::TtftCdf}) {
        QCustomPlot* plot = charts.plot(chart);
        plot->replot();
        r.push_back(plot->axisRect()->rect());
      }
      return r;
    };
    // The header is fitted to the width and the series' names (set before any data), never
    // to the data.
    charts.setSeriesName(1, "a much longer series name for the legend");
    const std::vector<QRect> empty = rects();
    std::vector<RequestPoint> wide = ramp(20);
    for (auto& p : wide) {
      p.t_s *= 1e4;
      *p.ttft_ms *= 12345.678;
      p.itl_ms = {0.001, 99999.0};
    }
    charts.addPoints(0, wide);
    charts.addPoints(1, ramp(3));
    charts.flush();
    QCOMPARE(rects(), empty);
    // Left edges line up in each column of the grid.
    QCOMPARE(charts.plot(LatencyCharts::TtftOverTime)->axisRect()->rect().left(),
             charts.plot(LatencyCharts::TokenRate)->axisRect()->rect().left());
    QCOMPARE(charts.plot(LatencyCharts::TtftOverTime)->axisRect()->rect().width(),
             charts.plot(LatencyCharts::TokenRate)->axisRect()->rect().width());
  }

  void clearEmptiesEverything() {
    LatencyCharts charts;
    charts.addPoints(0, ramp(50));
    charts.addPoints(1, ramp(50));
    charts.flush();
    charts.addPoints(1, ramp(5));  // pending too
    charts.clear();
    for (int s = 0; s < 2; ++s) {
      QCOMPARE(charts.pointCount(s), std::size_t(0));
      QVERIFY(charts.ttftValues(s).empty());
      QCOMPARE(charts.itlSampleCount(s), std::size_t(0));
      QVERIFY(!charts.ttftPercentiles(s).has_value());
    }
    charts.flush();
    for (auto chart : {LatencyCharts::TtftOverTime, LatencyCharts::TokenRate, LatencyCharts::TtftCdf})
      for (int s = 0; s < 2; ++s) QCOMPARE(charts.plot(chart)->graph(s)->dataCount(), 0);
    QCustomPlot* hist = charts.plot(LatencyCharts::ItlHistogram);
    for (int s = 0; s < 2; ++s) QCOMPARE(qobject_cast<QCPBars*>(hist->plottable(s))->dataCount(), 0);
    QVERIFY(!percentileLine(charts.plot(LatencyCharts::TtftOverTime), "p50-0")->visible());
    QCOMPARE(charts.plot(LatencyCharts::TtftOverTime)->legend->itemCount(), 0);
    // Usable again afterwards.
    charts.addPoints(0, ramp(3));
    charts.flush();
    QCOMPARE(charts.plot(LatencyCharts::TtftOverTime)->graph(0)->dataCount(), 3);
  }

  void seriesNamesReachTheLegends() {
    LatencyCharts charts;
    QCOMPARE(charts.seriesName(0), QString("baseline"));
    QCOMPARE(charts.seriesName(1), QString("candidate"));
    charts.setSeriesName(1, "v2 canary");
    charts.addPoints(1, ramp(3));
    charts.flush();
    QCustomPlot* plot = charts.plot(LatencyCharts::TtftOverTime);
    QCOMPARE(plot->legend->itemCount(), 1);  // only series with data are listed
    QCOMPARE(plot->graph(1)->name(), QString("v2 canary"));
  }

  // At the smallest size the charts take and at wider ones, with both series, every title,
  // legend entry and axis label is drawn whole.
  void titlesAndLegendsAreNeverCut() {
    for (int width : {0, 800, 1024, 1600}) {
      LatencyCharts charts;
      charts.resize(std::max(width, charts.minimumSizeHint().width()), 600);
      charts.show();
      QVERIFY(QTest::qWaitForWindowExposed(&charts));
      charts.addPoints(0, ramp(20));
      charts.addPoints(1, ramp(20, 50));
      charts.flush();
      const QString problem = chartsHeaderProblem(charts, {"baseline", "candidate"});
      QVERIFY2(problem.isEmpty(), qPrintable(QString("%1 px, %2").arg(charts.width()).arg(problem)));
      // The data areas of a grid row start at the same height, however each header is arranged.
      auto top = [&](LatencyCharts::Chart c) { return charts.plot(c)->axisRect()->rect().top(); };
      QCOMPARE(top(LatencyCharts::TtftOverTime), top(LatencyCharts::TtftCdf));
      QCOMPARE(top(LatencyCharts::TokenRate), top(LatencyCharts::ItlHistogram));
    }
  }

  // Exports are laid out at their own size, never smaller than a report's.
  void exportsAtTheirOwnSize() {
    LatencyCharts charts;
    charts.resize(charts.minimumSizeHint());
    charts.show();
    QVERIFY(QTest::qWaitForWindowExposed(&charts));
    charts.addPoints(0, ramp(20));
    charts.addPoints(1, ramp(20, 50));
    QTemporaryDir dir;
    const QString png = dir.filePath("ttft.png");
    QString error;
    QVERIFY2(charts.exportChart(LatencyCharts::TtftOverTime, png, &error), qPrintable(error));
    QCOMPARE(QImage(png).size(), QSize(2 * LatencyCharts::kExportWidth, 2 * LatencyCharts::kExportHeight));
  }

  void aLonePointSitsInsideTheAxes() {
    LatencyCharts charts;
    charts.resize(1000, 700);
    charts.show();
    QVERIFY(QTest::qWaitForWindowExposed(&charts));
    charts.addPoints(0, {{0.0, 120.0, 30.0, {4.0, 5.0}, 7}});
    charts.flush();
    QSignalSpy clicked(&charts, &LatencyCharts::requestClicked);
    for (auto chart : {LatencyCharts::TtftOverTime, LatencyCharts::TokenRate}) {
      QCustomPlot* plot = charts.plot(chart);
      plot->replot();
      QCPGraph* g = plot->graph(0);
      const QPointF at(g->keyAxis()->coordToPixel(0.0), g->valueAxis()->coordToPixel(g->data()->at(0)->value));
      const QRectF inner = QRectF(plot->axisRect()->rect()).adjusted(6, 6, -6, -6);  // room for the dot
      QVERIFY2(inner.contains(at), qPrintable(QString("chart %1: point at %2,%3").arg(int(chart)).arg(at.x()).arg(at.y())));
      QTest::mouseClick(plot, Qt::LeftButton, {}, at.toPoint());
    }
    QCOMPARE(clicked.count(), 2);
    QCOMPARE(clicked.at(0).at(1).toInt(), 7);
    QCOMPARE(clicked.at(1).at(1).toInt(), 7);
    // The request picked is ringed on both charts, until the charts are cleared.
    auto mark = [&](LatencyCharts::Chart chart) -> QCPItemTracer* {
      QCustomPlot* plot = charts.plot(chart);
      for (int i = 0; i < plot->itemCount(); ++i)
        if (plot->item(i)->objectName() == "selection-mark") return qobject_cast<QCPItemTracer*>(plot->item(i));
      return nullptr;
    };
    QVERIFY(mark(LatencyCharts::TtftOverTime) && mark(LatencyCharts::TtftOverTime)->visible());
    QCOMPARE(mark(LatencyCharts::TtftOverTime)->position->coords(), QPointF(0, 120));
    QVERIFY(mark(LatencyCharts::TokenRate)->visible());
    QCOMPARE(mark(LatencyCharts::TokenRate)->position->coords(), QPointF(0, 30));
    charts.clear();
    QVERIFY(!mark(LatencyCharts::TtftOverTime)->visible());
    QVERIFY(!mark(LatencyCharts::TokenRate)->visible());
  }

  // A hidden series leaves the charts, their ranges and the histogram; its legend entry stays,
  // struck out, and a click on it brings the series back.
  void seriesCanBeHiddenAndShownAgain() {
    LatencyCharts charts;
    charts.resize(1200, 800);
    charts.show();
    QVERIFY(QTest::qWaitForWindowExposed(&charts));
    std::vector<RequestPoint> late = ramp(10, 500);
    for (auto& p : late) p.t_s += 100;
    charts.addPoints(0, ramp(10));
    charts.addPoints(1, late);
    charts.flush();
    QSignalSpy changed(&charts, &LatencyCharts::seriesVisibilityChanged);
    QCustomPlot* plot = charts.plot(LatencyCharts::TtftOverTime);
    QVERIFY(plot->xAxis->range().upper > 100);

    charts.setSeriesVisible(1, false);
    QVERIFY(!charts.seriesVisible(1));
    QVERIFY(charts.seriesVisible(0));
    QCOMPARE(changed.count(), 1);
    QVERIFY(!plot->graph(1)->visible());
    QVERIFY(plot->graph(0)->visible());
    QVERIFY(!percentileLine(plot, "p50-1")->visible());
    QVERIFY(percentileLine(plot, "p50-0")->visible());
    QVERIFY2(plot->xAxis->range().upper < 50, qPrintable(QString::number(plot->xAxis->range().upper)));
    QVERIFY(plot->yAxis->range().upper < 100);
    QCustomPlot* hist = charts.plot(LatencyCharts::ItlHistogram);
    QCOMPARE(qobject_cast<QCPBars*>(hist->plottable(1))->dataCount(), 0);
    QCOMPARE(barsTotal(qobject_cast<QCPBars*>(hist->plottable(0))), double(charts.itlSampleCount(0)));
    QCOMPARE(charts.pointCount(1), std::size_t(10));  // the data stays
    QCOMPARE(plot->legend->itemCount(), 2);
    QVERIFY(plot->legend->itemWithPlottable(plot->graph(1))->font().strikeOut());
    QVERIFY(!plot->legend->itemWithPlottable(plot->graph(0))->font().strikeOut());

    plot->replot();
    QTest::mouseClick(plot, Qt::LeftButton, {}, plot->legend->itemWithPlottable(plot->graph(1))->rect().center());
    QVERIFY(charts.seriesVisible(1));
    QCOMPARE(changed.count(), 2);
    QVERIFY(plot->graph(1)->visible());
    QVERIFY(plot->xAxis->range().upper > 100);
    QVERIFY(!plot->legend->itemWithPlottable(plot->graph(1))->font().strikeOut());
  }

  // A streaming request's ITL shows in the histogram until its point replaces it.
  void runningItlIsReplacedByTheRequest() {
    LatencyCharts charts;
    charts.addRunningItl(0, {4, 5, 6});
    charts.addRunningItl(0, {5});
    QCOMPARE(charts.itlSampleCount(0), std::size_t(4));
    charts.flush();
    auto* bars = qobject_cast<QCPBars*>(charts.plot(LatencyCharts::ItlHistogram)->plottable(0));
    QCOMPARE(barsTotal(bars), 4.0);
    QCOMPARE(charts.pointCount(0), std::size_t(0));
    charts.clearRunningItl(0);
    charts.addPoints(0, {{0.0, 10.0, 20.0, {4, 5, 6, 5, 7}, 0}});
    QCOMPARE(charts.itlSampleCount(0), std::size_t(5));
    charts.flush();
    QCOMPARE(barsTotal(bars), 5.0);
  }

  void clearSaysSo() {
    LatencyCharts charts;
    charts.addPoints(0, ramp(5));
    QSignalSpy cleared(&charts, &LatencyCharts::cleared);
    charts.clear();
    QCOMPARE(cleared.count(), 1);
    QCOMPARE(charts.pointCount(0), std::size_t(0));
  }

  // At the smallest size, where the bars are short: the note on the overflow bar has a band of
  // its own above every bar, and follows the language.
  void histogramNoteKeepsClearOfTheBars() {
    LatencyCharts charts;
    charts.resize(charts.minimumSizeHint());
    charts.show();
    QVERIFY(QTest::qWaitForWindowExposed(&charts));
    RequestPoint p{0.0, 50.0, 20.0, {}, 0};
    for (int i = 0; i < 3000; ++i) p.itl_ms.push_back(5 + std::sqrt(i / 3000.0));  // densest on the right
    p.itl_ms.push_back(400);
    p.itl_ms.push_back(420);
    charts.addPoints(0, {p});
    charts.flush();
    QCustomPlot* plot = charts.plot(LatencyCharts::ItlHistogram);
    plot->replot();
    QCPItemText* note = nullptr;
    for (int i = 0; i < plot->itemCount(); ++i)
      if (plot->item(i)->objectName() == "histogram-note") note = qobject_cast<QCPItemText*>(plot->item(i));
    QVERIFY(note && note->visible());
    QVERIFY2(note->text().startsWith("last bar"), qPrintable(note->text()));
    const QRectF note_rect(note->topLeft->pixelPosition(), note->bottomRight->pixelPosition());
    auto* bars = qobject_cast<QCPBars*>(plot->plottable(0));
    QVERIFY(bars->dataCount() > 3);
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) {
      const double left = plot->xAxis->coordToPixel(it->key - bars->width() / 2);
      const double right = plot->xAxis->coordToPixel(it->key + bars->width() / 2);
      const QRectF bar(QPointF(left, plot->yAxis->coordToPixel(it->value)), QPointF(right, plot->yAxis->coordToPixel(0)));
      QVERIFY2(!note_rect.intersects(bar), qPrintable(QString("bar at %1 ms (%2) under the note").arg(it->key).arg(it->value)));
    }
    anthro::gui::install_language("zh_CN");
    QTRY_VERIFY2(note->text().startsWith(QString::fromUtf8("最后一柱")), qPrintable(note->text()));
    anthro::gui::install_language("en");
    QTRY_VERIFY(note->text().startsWith("last bar"));
  }

  void ignoresWhatItCannotPlot() {
    LatencyCharts charts;
    RequestPoint bad;
    bad.t_s = std::numeric_limits<double>::quiet_NaN();
    bad.ttft_ms = 5;
    RequestPoint inf;
    inf.t_s = 1;
    inf.ttft_ms = std::numeric_limits<double>::infinity();
    inf.itl_ms = {std::numeric_limits<double>::quiet_NaN(), 4};
    charts.addPoints(0, {bad, inf});
    charts.addPoints(5, ramp(3));
    QCOMPARE(charts.pointCount(0), std::size_t(1));
    QVERIFY(charts.ttftValues(0).empty());
    QCOMPARE(charts.itlSampleCount(0), std::size_t(1));
    charts.flush();
    QCOMPARE(charts.plot(LatencyCharts::TtftOverTime)->graph(0)->dataCount(), 0);
  }
};

QTEST_MAIN(TestLatencyCharts)
#include "test_latency_charts.moc"
