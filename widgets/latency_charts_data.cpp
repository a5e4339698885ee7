// LatencyCharts' held requests: each in its run's series, bounded (requests, ITL samples,
// runs), what is asked of them; and onto the charts (dots, percentile lines, the CDF, the
// ITL histogram) with the axes that follow them.
#include "latency_charts_impl.h"
#include "chart_math.h"

#include <QFontMetrics>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

namespace anthro::widgets {
namespace {

using namespace chart_detail;

// Above this many points a series is drawn with smaller, translucent dots.
constexpr int kDotLimit = 5'000;
constexpr double kSparseDot = 5.5, kDenseDot = 4;
constexpr int kSparseAlpha = 210, kDenseAlpha = 80;

}  // namespace

// The run of that key, added (the oldest dropped beyond kMaxRuns) if new.
LatencyCharts::Impl::Run& LatencyCharts::Impl::runFor(double key, const QString& label) {
  for (Run& run : runs)
    if (run.key == key) return run;
  // Zoomed into the run shown: it stays shown (picked) rather than jumping to the new one.
  if (!follow && !picked && !runs.empty()) picked = runs.back().key;
  Run run;
  run.key = key;
  run.label = label.isEmpty() ? tr("run %1").arg(runs.size() + 1) : label;
  run.series.resize(lines.size());
  runs.push_back(std::move(run));
  boundRuns();
  updateRunBox();
  return runs.back();
}

// At most kMaxRuns runs, holding together no more than two full series do (requests and ITL
// samples): beyond, the oldest runs are dropped.
void LatencyCharts::Impl::boundRuns() {
  auto over = [&] {
    std::size_t points = 0, itl = 0;
    for (const Run& run : runs)
      for (const ChartSeries& s : run.series) points += s.points.size(), itl += s.itl.size();
    return points > max_points * kSeriesCount || itl > kMaxItlSamples * kSeriesCount;
  };
  bool dropped = false;
  while (runs.size() > 1 && (runs.size() > static_cast<std::size_t>(kMaxRuns) || over())) {
    if (picked && *picked == runs.front().key) picked.reset();
    runs.pop_front();
    dropped = true;
  }
  if (dropped) updateRunBox();
}

// Holds the point in its run's series, the oldest dropped beyond the bounds.
bool LatencyCharts::Impl::store(int index, const RequestPoint& p, double run, const QString& run_label) {
  if (!std::isfinite(p.t_s)) return false;
  ChartSeries& s = runFor(run, run_label).series[index];
  StoredRequest stored;
  stored.t = p.t_s;
  stored.ttft = finiteOr(p.ttft_ms, kNaN);
  stored.tps = finiteOr(p.tokens_per_s, kNaN);
  stored.request = p.request;
  for (double itl : p.itl_ms)
    if (std::isfinite(itl)) s.itl.add(itl);
  stored.itl_end = s.itl.added();
  s.add(stored);
  if (s.points.size() > max_points) s.dropOldest(s.points.size() - max_points);
  s.itl.dropBeyond(kMaxItlSamples);
  if (++stored_since_bound >= 4096) {  // counting every run's requests costs a few hundred steps
    stored_since_bound = 0;
    boundRuns();
  }
  takeColour(index);
  return true;
}

void LatencyCharts::addPoints(int series, const std::vector<RequestPoint>& batch) {
  if (series < 0 || series >= d_->seriesCount() || batch.empty()) return;
  bool added = false;
  for (const RequestPoint& p : batch) added = d_->store(series, p, 0, {}) || added;
  if (added) d_->markDirty();
}

void LatencyCharts::addPoints(const std::vector<RunPoint>& batch) {
  bool added = false;
  for (const RunPoint& p : batch)
    added = d_->store(p.series.isEmpty() ? 0 : d_->seriesNamed(p.series), p.point, p.run, p.run_label) || added;
  if (added) d_->markDirty();
}

void LatencyCharts::addRunningItl(int series, const std::vector<double>& itl_ms) {
  if (series < 0 || series >= d_->seriesCount()) return;
  std::size_t added = 0;
  for (double itl : itl_ms)
    if (std::isfinite(itl)) {
      d_->series()[series].running_itl.add(itl);
      ++added;
    }
  if (added == 0) return;
  d_->takeColour(series);
  d_->markDirty();
}

// In every run: the request may have streamed while another run was shown.
void LatencyCharts::clearRunningItl(int series) {
  if (series < 0 || series >= d_->seriesCount()) return;
  bool cleared = false;
  auto drop = [&](Impl::Run& run) {
    if (run.series[series].running_itl.empty()) return;
    run.series[series].running_itl = {};
    cleared = true;
  };
  drop(d_->no_run);
  for (Impl::Run& run : d_->runs) drop(run);
  if (cleared) d_->markDirty();
}

std::vector<double> LatencyCharts::ttftValues(int series) const {
  std::vector<double> values;
  if (series < 0 || series >= d_->seriesCount()) return values;
  const ChartSeries& s = d_->series()[series];
  values.reserve(s.ttft_held);
  for (const StoredRequest& p : s.points)
    if (std::isfinite(p.ttft)) values.push_back(p.ttft);
  return values;
}

std::size_t LatencyCharts::pointCount(int series) const {
  if (series < 0 || series >= d_->seriesCount()) return 0;
  return d_->series()[series].points.size();
}

std::size_t LatencyCharts::itlSampleCount(int series) const {
  if (series < 0 || series >= d_->seriesCount()) return 0;
  return d_->series()[series].itl.size() + d_->series()[series].running_itl.size();
}

std::optional<LatencyCharts::Percentiles> LatencyCharts::ttftPercentiles(int series) const {
  if (series < 0 || series >= d_->seriesCount()) return std::nullopt;
  const ChartSeries& s = d_->series()[series];
  std::vector<double> fresh;
  const std::vector<double>* sorted = &s.sorted_ttft;
  if (s.pending() || !d_->drawn || *d_->drawn != d_->shownRun().key) {
    fresh = ttftValues(series);
    std::sort(fresh.begin(), fresh.end());
    sorted = &fresh;
  }
  if (sorted->empty()) return std::nullopt;
  return Percentiles{percentileOfSorted(*sorted, 50), percentileOfSorted(*sorted, 95),
                     percentileOfSorted(*sorted, 99)};
}

void LatencyCharts::setMaxPoints(std::size_t max_points) {
  d_->max_points = std::max<std::size_t>(max_points, 1);
  bool dropped = false;
  for (auto& run : d_->runs)
    for (auto& s : run.series)
      if (s.points.size() > d_->max_points) {
        s.dropOldest(s.points.size() - d_->max_points);
        dropped = true;
      }
  if (dropped) d_->markDirty();
}

std::size_t LatencyCharts::maxPoints() const { return d_->max_points; }

// One dot per request. Few points: larger, nearly opaque dots. Many: small translucent ones,
// so overlapping series and the density of each stay readable. On screen the dots are
// pre-rendered pixmaps (cheap to blit; adaptive sampling keeps about one per 4 pixels of
// value per pixel column, so 10^6 points replot in a few ms); vector exports get real discs.
void LatencyCharts::Impl::styleGraph(QCPGraph* g, int s, Dots dots) {
  const bool dense = g->dataCount() > kDotLimit;
  const QColor colour = withAlpha(this->colour(s), dense ? kDenseAlpha : kSparseAlpha);
  const double size = dense ? kDenseDot : kSparseDot;
  g->setLineStyle(QCPGraph::lsNone);
  g->setPen(QPen(colour, 1));
  static_cast<SeriesGraph*>(g)->key_colour = this->colour(s);
  g->setAdaptiveSampling(true);
  if (dots == Dots::Vector) {
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, size));
    return;
  }
  const double ratio = dots == Dots::Png ? 2.0 : std::max(1.0, q->devicePixelRatioF());
  if (ratio != dot_pixel_ratio) {
    for (SeriesPlot& line : lines) line.dots = {};
    dot_pixel_ratio = ratio;
  }
  std::array<QPixmap, 2>& dots_of = lines[s].dots;
  if (dots_of[0].isNull()) {
    dots_of[0] = dotPixmap(withAlpha(this->colour(s), kSparseAlpha), kSparseDot, ratio);
    dots_of[1] = dotPixmap(withAlpha(this->colour(s), kDenseAlpha), kDenseDot, ratio);
  }
  g->setScatterStyle(QCPScatterStyle(dots_of[dense ? 1 : 0]));
}

// Brings the TTFT and token-rate graphs in line with the held requests.
void LatencyCharts::Impl::sync(ChartSeries& s, int index) {
  SeriesSync change = s.sync();
  if (change.rebuild) {
    lines[index].ttft->data()->set(graphData(change.added_ttft), true);
    lines[index].tps->data()->set(graphData(change.added_tps), true);
    return;
  }
  removeFromGraph(*lines[index].ttft->data(), std::move(change.removed_ttft));
  removeFromGraph(*lines[index].tps->data(), std::move(change.removed_tps));
  addToGraph(*lines[index].ttft->data(), graphData(change.added_ttft));
  addToGraph(*lines[index].tps->data(), graphData(change.added_tps));
}

void LatencyCharts::Impl::updateCharts() {
  // Time axes: shared by the TTFT and token-rate charts so they line up.
  double t_lo = std::numeric_limits<double>::infinity(), t_hi = -t_lo;
  double ttft_lo = t_lo, ttft_hi = 0, tps_hi = 0;
  bool any_ttft = false, any_tps = false;
  for (int s = 0; s < seriesCount(); ++s) {
    const SeriesPlot& line = lines[s];
    for (QCPAbstractPlottable* p : std::initializer_list<QCPAbstractPlottable*>{line.ttft, line.tps, line.cdf, line.hist})
      p->setVisible(line.shown);
    styleGraph(line.ttft, s);
    styleGraph(line.tps, s);
    if (!line.shown) continue;
    for (QCPGraph* g : {line.ttft, line.tps}) {
      auto data = g->data();
      if (data->isEmpty()) continue;
      t_lo = std::min(t_lo, data->constBegin()->key);
      t_hi = std::max(t_hi, (data->constEnd() - 1)->key);
    }
    const ChartSeries& ser = series()[s];
    if (!ser.sorted_ttft.empty()) {
      any_ttft = true;
      ttft_lo = std::min(ttft_lo, ser.sorted_ttft.front());
      ttft_hi = std::max(ttft_hi, ser.sorted_ttft.back());
    }
    if (!ser.sorted_tps.empty()) {
      any_tps = true;
      tps_hi = std::max(tps_hi, ser.sorted_tps.back());
    }
  }
  for (const StageBand& band : stages) {  // a stage started shows though none of its points did
    t_lo = std::min(t_lo, band.start);
    t_hi = std::max(t_hi, band.start);
  }
  if (t_lo <= t_hi) {
    // Padded on both sides, so the first and last dots (a lone one too) sit inside the axes.
    const double pad = t_hi > t_lo ? (t_hi - t_lo) * 0.04 : 0.5;
    full = QCPRange(t_lo - pad, t_hi + pad);
  } else {
    full = QCPRange(0, 60);
  }
  // Stage bands end at the next stage's start; the last at the run's last point.
  for (std::size_t i = 0; i < stages.size(); ++i)
    stages[i].end = i + 1 < stages.size() ? stages[i + 1].start : std::max(stages[i].start, t_hi);
  updateStages();
  if (follow) applyTimeRange(full.lower, full.upper);
  else updateScroll();
  const double headroom = stages.empty() ? 1.08 : 1.2;  // stage names above the highest dot
  plots[TtftOverTime]->yAxis->setRange(0, any_ttft ? std::max(ttft_hi * headroom, 1.0) : 500);
  plots[TokenRate]->yAxis->setRange(0, any_tps ? std::max(tps_hi * headroom, 1.0) : 100);

  // Percentile lines and the CDF.
  for (int s = 0; s < seriesCount(); ++s) {
    SeriesPlot& line = lines[s];
    const auto& sorted = series()[s].sorted_ttft;
    for (std::size_t i = 0; i < kPercentiles.size(); ++i) {
      if (sorted.empty() || !line.shown) {
        line.pct_lines[i]->setVisible(false);
        line.pct_labels[i]->setVisible(false);
        continue;
      }
      double v = percentileOfSorted(sorted, kPercentiles[i]);
      line.pct_lines[i]->point1->setCoords(0, v);
      line.pct_lines[i]->point2->setCoords(1, v);
      line.pct_lines[i]->setVisible(true);
      line.pct_labels[i]->setText(QStringLiteral("p%1 %2").arg(kPercentiles[i]).arg(formatMs(v)));
      line.pct_labels[i]->position->setCoords(1, v);
      line.pct_labels[i]->setProperty("value", v);
      line.pct_labels[i]->setVisible(true);
    }
    line.cdf->data()->set(cdfPoints(sorted), true);
  }
  if (any_ttft) {
    double span = std::max(ttft_hi - ttft_lo, std::max(ttft_hi * 0.05, 1.0));
    plots[TtftCdf]->xAxis->setRange(std::max(0.0, ttft_lo - span * 0.04), ttft_hi + span * 0.04);
  } else {
    plots[TtftCdf]->xAxis->setRange(0, 500);
  }

  updateHistogram();

  for (std::size_t i = 0; i < kPercentiles.size(); ++i) {
    cdf_guides[i]->setVisible(any_ttft);
    cdf_guide_labels[i]->setVisible(any_ttft);
  }
  empty_notes[TtftOverTime]->setVisible(!any_ttft);
  empty_notes[TtftCdf]->setVisible(!any_ttft);
  empty_notes[TokenRate]->setVisible(!any_tps);
  updateLegends();
  placeMarks();
}

void LatencyCharts::Impl::placeMarks() {
  const bool on = marked && marked->series < seriesCount() && lines[marked->series].shown;
  const std::array<double, 2> values = {marked ? marked->point.ttft : kNaN, marked ? marked->point.tps : kNaN};
  for (std::size_t i = 0; i < marks.size(); ++i) {
    marks[i]->setVisible(on && std::isfinite(values[i]));
    if (marks[i]->visible()) marks[i]->position->setCoords(marked->point.t, values[i]);
  }
}

// A series' ITL bucket counts: its requests' and the streaming request's.
std::vector<std::uint64_t> LatencyCharts::Impl::itlCounts(int s) const {
  const ChartSeries& data = series()[s];
  std::vector<std::uint64_t> counts = data.itl.counts();
  if (!data.running_itl.empty())
    for (int b = 0; b < kItlBuckets; ++b) counts[b] += data.running_itl.counts()[b];
  return counts;
}

// Bins shared by both series (see histogramBins); the samples beyond the last regular bin,
// if any, are one overflow bar explained by a note in the corner.
void LatencyCharts::Impl::updateHistogram() {
  std::vector<std::uint64_t> combined(kItlBuckets, 0);
  std::vector<std::vector<std::uint64_t>> counts_of(lines.size());
  for (int s = 0; s < seriesCount(); ++s) {
    counts_of[s] = itlCounts(s);
    if (lines[s].shown)
      for (int b = 0; b < kItlBuckets; ++b) combined[b] += counts_of[s][b];
  }
  const std::optional<HistogramBins> layout = histogramBins(combined);
  hist_note->setVisible(false);
  if (!layout) {
    for (SeriesPlot& line : lines) line.hist->data()->clear();
    plots[ItlHistogram]->xAxis->setRange(0, 50);
    plots[ItlHistogram]->yAxis->setRange(0, 10);
    hist_max = 0;
    empty_notes[ItlHistogram]->setVisible(true);
    return;
  }
  empty_notes[ItlHistogram]->setVisible(false);
  const double start = layout->start, width = layout->width;
  const std::size_t bar_count = layout->barCount();
  double max_count = 0;
  std::uint64_t overflow_total = 0;
  for (int s = 0; s < seriesCount(); ++s) {
    QCPBars* bars = lines[s].hist;
    if (!lines[s].shown) {
      bars->data()->clear();
      continue;
    }
    const std::vector<std::uint64_t> counts = binCounts(counts_of[s], *layout);
    QVector<QCPBarsData> data;
    data.reserve(static_cast<int>(bar_count));
    for (std::size_t i = 0; i < bar_count; ++i) {
      if (counts[i] == 0) continue;
      const auto count = static_cast<double>(counts[i]);
      data.append(QCPBarsData(start + (static_cast<double>(i) + 0.5) * width, count));
      max_count = std::max(max_count, count);
    }
    if (layout->overflow) overflow_total += counts[layout->bins];
    bars->setWidth(width);
    bars->data()->set(data, true);
  }
  if (layout->overflow && overflow_total > 0) {
    hist_note->setText(tr("last bar: ≥ %1 ms (%2 samples)")
                           .arg(formatMs(start + static_cast<double>(layout->bins) * width))
                           .arg(overflow_total));
    hist_note->setVisible(true);
  }
  plots[ItlHistogram]->xAxis->setRange(start, start + static_cast<double>(bar_count) * width);
  hist_max = max_count;
  fitHistogramRange();
}

// The note sits in the top right corner of the data area: the count axis leaves it a band of
// its own above the tallest bar (known once the plot is laid out, so again after each layout).
void LatencyCharts::Impl::fitHistogramRange() {
  if (hist_max <= 0) return;
  QCustomPlot* plot = plots[ItlHistogram];
  double top = std::max(hist_max * 1.1, 1.0);
  const double height = plot->axisRect()->height();
  const double band = QFontMetrics(hist_note->font()).height() + 12;  // padding and a gap
  if (hist_note->visible() && height > 2 * band) top = std::max(top, hist_max / (1 - band / height));
  plot->yAxis->setRange(0, top);
}

// Percentile labels sit in the right margin at their line's height, pushed apart so that
// labels of close values (or of both series) never overlap.
void LatencyCharts::Impl::placePercentileLabels() {
  QCustomPlot* plot = plots[TtftOverTime];
  if (lines.empty()) return;
  QFontMetrics fm(lines[0].pct_labels[0]->font());
  const double gap = fm.height();
  struct Label {
    PassiveText* item;
    double y;
  };
  std::vector<Label> labels;
  for (SeriesPlot& line : lines)
    for (PassiveText* item : line.pct_labels)
      if (item->visible())
        labels.push_back({item, plot->yAxis->coordToPixel(item->property("value").toDouble())});
  if (labels.empty()) return;
  // Highest value (smallest pixel y) first.
  std::sort(labels.begin(), labels.end(), [](const Label& a, const Label& b) { return a.y < b.y; });
  const QRect rect = plot->axisRect()->rect();
  std::vector<double> ys;
  for (const Label& l : labels) ys.push_back(l.y);
  spreadLabels(ys, gap, rect.top() + gap / 2, rect.bottom() - gap / 2);
  for (std::size_t i = 0; i < labels.size(); ++i)
    labels[i].item->position->setCoords(1, plot->yAxis->pixelToCoord(ys[i]));
}

}  // namespace anthro::widgets
