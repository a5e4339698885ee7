// Timing figures of spec §6: exact percentiles (numpy's default), per-request figures from
// event times, other tools' conventions, and SLO parsing and judging.
#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QFloat16>
#include <QIODevice>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QStringLiteral>
#include <QTest>

#include <cmath>

#include <QTemporaryDir>

#include "metrics/prometheus_text.h"
#include "metrics/pushgateway.h"
#include "metrics/request_figures.h"
#include "metrics/request_json.h"
#include "prometheus_parse.h"
#include "metrics/slo.h"
#include "metrics/stats.h"
#include "util/json.h"
#include "vectors.h"

using namespace anthro;

namespace {

// Figures come from differences of binary fractions (0.20 - 0.18), so compare to a nanosecond.
bool near(std::optional<double> got, double want, double tolerance = 1e-6) {
  return got && std::abs(*got - want) <= tolerance;
}

#define QVERIFY_NEAR(got, want)                                                            \
  QVERIFY2(near(got, want), qPrintable(QStringLiteral("%1 is %2, want %3")                 \
                                           .arg(#got)                                      \
                                           .arg((got) ? QString::number(*(got), 'g', 17)   \
                                                      : QStringLiteral("null"))            \
                                           .arg(want)))

TokenArrival frame(double t, std::uint32_t count = 1, bool visible = true) {
  return {t, count, visible};
}

// The lab pcap conversation of the spec vectors: 4 single-token frames, 20 ms apart.
RequestTimeline lab_conversation(double epoch = 0) {
  RequestTimeline tl;
  tl.request_written = epoch;
  for (double t : {0.18, 0.20, 0.22, 0.24}) tl.tokens.push_back(frame(epoch + t));
  tl.end = epoch + 0.26;
  tl.usage_output_tokens = 4;
  return tl;
}

const ConventionFigures& convention(const std::vector<ConventionFigures>& all, const char* tool) {
  for (const ConventionFigures& c : all)
    if (c.tool == tool) return c;
  throw std::runtime_error(std::string("no convention for ") + tool);
}

std::string slo_error(std::string_view text) {
  Result<Slo> slo = parse_slo(text);
  return slo ? std::string("(accepted)") : slo.error().detail;
}

}  // namespace

class TestMetrics : public QObject {
  Q_OBJECT
 private slots:
  void percentileMatchesNumpyLinear() {
    const std::vector<double> s{1, 2, 3, 4};
    QCOMPARE(percentile(s, 50), 2.5);
    QCOMPARE(percentile(s, 90), 3.7);
    QCOMPARE(percentile(s, 99), 3.97);
    QCOMPARE(percentile(s, 25), 1.75);
    QCOMPARE(percentile(s, 0), 1.0);
    QCOMPARE(percentile(s, 100), 4.0);
    QCOMPARE(percentile({7}, 0), 7.0);
    QCOMPARE(percentile({7}, 99), 7.0);
    QCOMPARE(percentile({4, 1, 3, 2}, 50), 2.5);  // unsorted input
    QCOMPARE(percentile({10, 0, 5}, 30), 3.0);     // rank 0.6 between 0 and 5
  }

  void percentileWithoutAnAnswerIsNaN() {
    QVERIFY(std::isnan(percentile({}, 50)));
    QVERIFY(std::isnan(percentile({1, 2}, -1)));
    QVERIFY(std::isnan(percentile({1, 2}, 100.5)));
    QVERIFY(std::isnan(percentile({1, 2}, std::nan(""))));
    QVERIFY(std::isnan(percentile({1, std::nan(""), 3}, 50)));
  }

  void summaryIsPopulationStatistics() {
    const std::vector<double> s{2, 4, 4, 4, 5, 5, 7, 9};
    Summary sum = summarize(s);
    QCOMPARE(sum.n, std::size_t{8});
    QCOMPARE(sum.mean, 5.0);
    QCOMPARE(sum.stddev, 2.0);  // ddof 1 would give 2.138...
    QCOMPARE(sum.min, 2.0);
    QCOMPARE(sum.max, 9.0);
    QCOMPARE(sum.p50, 4.5);
    QCOMPARE(sum.p90, 7.6);   // rank 6.3 between 7 and 9
    QCOMPARE(sum.p95, 8.3);   // rank 6.65
    QCOMPARE(sum.p99, 8.86);  // rank 6.93

    Summary four = summarize(std::vector<double>{1, 2, 3, 4});
    QCOMPARE(four.stddev, std::sqrt(1.25));
    QCOMPARE(four.p95, 3.85);
  }

  void emptySummaryIsAllNaN() {
    Summary sum = summarize({});
    QCOMPARE(sum.n, std::size_t{0});
    for (double v : {sum.p50, sum.p90, sum.p95, sum.p99, sum.mean, sum.stddev, sum.min, sum.max})
      QVERIFY(std::isnan(v));
  }

  void labConversationGivesTheVectorFigures() {
    const auto& expected = test::vectors()["conversation"]["expected"];
    RequestFigures f = compute_figures(lab_conversation());
    QVERIFY_NEAR(f.ttft_ms, expected["ttft_ms"].get<double>());
    QVERIFY_NEAR(f.ttfot_ms, 180.0);
    QVERIFY_NEAR(f.e2e_ms, expected["e2e_ms"].get<double>());
    QVERIFY_NEAR(f.mean_itl_ms, expected["mean_itl_ms"].get<double>());
    QCOMPARE(f.tokens, expected["tokens"].get<std::uint64_t>());
    QVERIFY_NEAR(f.tokens_per_s, 50.0);  // README: 50 tokens/s from packet timestamps
    QVERIFY_NEAR(f.tpot_ms, 20.0);
    QVERIFY_NEAR(f.p99_itl_ms, 20.0);
    QVERIFY_NEAR(f.max_gap_ms, 20.0);
    QVERIFY_NEAR(f.jitter_ms, 0.0);
    QCOMPARE(f.itl_ms.size(), std::size_t{3});
    for (double itl : f.itl_ms) QVERIFY_NEAR(std::optional<double>(itl), 20.0);
    QCOMPARE(f.usage_output_tokens, std::optional<std::uint64_t>(4));
    QVERIFY(!f.usage_mismatch);
    QVERIFY(!f.ttfb_ms && !f.time_to_message_start_ms && !f.cancel_latency_ms);
  }

  void anyEpochWorks() {
    // Packet times are Unix seconds: at 1.7e9 a double resolves ~0.24 µs, far below a ms.
    RequestFigures f = compute_figures(lab_conversation(1700000000.0));
    QVERIFY(near(f.ttft_ms, 180.0, 1e-3));
    QVERIFY(near(f.e2e_ms, 260.0, 1e-3));
    QVERIFY(near(f.mean_itl_ms, 20.0, 1e-3));
    QVERIFY(near(f.tokens_per_s, 50.0, 1e-2));
  }

  void multiTokenFramesSplitTheirGap() {
    RequestTimeline tl;
    tl.tokens = {frame(0.10, 1), frame(0.13, 3), frame(0.23, 2)};
    RequestFigures f = compute_figures(tl);
    QCOMPARE(f.tokens, std::uint64_t{6});
    QCOMPARE(f.itl_ms.size(), std::size_t{5});  // k samples per frame after the first
    const double want[] = {10, 10, 10, 50, 50};
    for (std::size_t i = 0; i < 5; ++i) QVERIFY_NEAR(std::optional<double>(f.itl_ms[i]), want[i]);
    QVERIFY_NEAR(f.mean_itl_ms, 26.0);
    QVERIFY_NEAR(f.p99_itl_ms, 50.0);
    QVERIFY_NEAR(f.jitter_ms, std::sqrt(384.0));
    QVERIFY_NEAR(f.max_gap_ms, 100.0);  // the stall is the whole gap, not its share
    QVERIFY_NEAR(f.tpot_ms, 130.0 / 5);
    QVERIFY_NEAR(f.tokens_per_s, 5 / 0.13);
    QVERIFY(!f.e2e_ms);  // no RESPONSE seen
  }

  // A capture's analysis keeps no ITL samples: its figures must be those of a record that
  // keeps them, bit for bit, only without the samples.
  void figuresWithoutTheirSamplesAreTheSame() {
    RequestTimeline many;
    many.request_written = 1;
    for (int i = 0; i < 300; ++i) many.tokens.push_back(frame(1.05 + i * 0.013 + (i % 7) * 0.002, 1 + i % 3));
    many.tokens.push_back(frame(6.0, 0));  // not a token frame
    for (const RequestTimeline& tl : {lab_conversation(), many}) {
      const RequestFigures kept = compute_figures(tl, ItlSamples::Kept), dropped = compute_figures(tl, ItlSamples::Dropped);
      QVERIFY(!kept.itl_ms.empty());
      QVERIFY(dropped.itl_ms.empty());
      for (auto figure : {&RequestFigures::mean_itl_ms, &RequestFigures::p99_itl_ms, &RequestFigures::jitter_ms,
                          &RequestFigures::ttft_ms, &RequestFigures::tpot_ms, &RequestFigures::max_gap_ms}) {
        QVERIFY(kept.*figure && dropped.*figure);
        QCOMPARE(std::bit_cast<std::uint64_t>(*(dropped.*figure)), std::bit_cast<std::uint64_t>(*(kept.*figure)));
      }
      QCOMPARE(dropped.tokens, kept.tokens);
    }
  }

  void oneTokenGivesNullRates() {
    RequestTimeline tl;
    tl.tokens = {frame(0.1)};
    tl.end = 0.12;
    RequestFigures f = compute_figures(tl);
    QCOMPARE(f.tokens, std::uint64_t{1});
    QVERIFY_NEAR(f.ttft_ms, 100.0);
    QVERIFY_NEAR(f.e2e_ms, 120.0);
    QVERIFY(f.itl_ms.empty());
    QVERIFY(!f.tpot_ms && !f.tokens_per_s && !f.mean_itl_ms && !f.p99_itl_ms);
    QVERIFY(!f.jitter_ms && !f.max_gap_ms);
  }

  void oneFrameOfManyTokensGivesNullRates() {
    RequestTimeline tl;
    tl.tokens = {frame(0.1, 3)};
    RequestFigures f = compute_figures(tl);
    QCOMPARE(f.tokens, std::uint64_t{3});  // N counts tokens...
    QVERIFY(!f.tpot_ms && !f.tokens_per_s);  // ...but last == first: no span to divide
    QVERIFY(f.itl_ms.empty() && !f.max_gap_ms);
  }

  void noTokensLeavesTokenFiguresNull() {
    RequestTimeline tl;
    tl.request_written = 5;
    tl.end = 5.3;  // ERROR before any token
    RequestFigures f = compute_figures(tl);
    QCOMPARE(f.tokens, std::uint64_t{0});
    QVERIFY(!f.ttft_ms && !f.ttfot_ms && !f.tpot_ms && !f.mean_itl_ms);
    QVERIFY_NEAR(f.e2e_ms, 300.0);
  }

  void ttfotWaitsForVisibleText() {
    RequestTimeline tl;
    tl.first_byte = 0.05;
    tl.message_start = 0.09;
    tl.tokens = {frame(0.10, 2, false), frame(0.15, 1, true)};
    RequestFigures f = compute_figures(tl);
    QVERIFY_NEAR(f.ttfb_ms, 50.0);
    QVERIFY_NEAR(f.time_to_message_start_ms, 90.0);
    QVERIFY_NEAR(f.ttft_ms, 100.0);  // thinking is a generated token
    QVERIFY_NEAR(f.ttfot_ms, 150.0);
    QCOMPARE(f.tokens, std::uint64_t{3});

    tl.tokens = {frame(0.10, 1, false)};
    QVERIFY(!compute_figures(tl).ttfot_ms);
  }

  void zeroCountFramesAreNotTokenFrames() {
    RequestTimeline tl;
    tl.tokens = {frame(0.05, 0), frame(0.10), frame(0.30, 0), frame(0.12)};
    RequestFigures f = compute_figures(tl);
    QVERIFY_NEAR(f.ttft_ms, 100.0);
    QCOMPARE(f.tokens, std::uint64_t{2});
    QVERIFY_NEAR(f.max_gap_ms, 20.0);
  }

  void usageMismatchIsFlaggedNotChosen() {
    RequestTimeline tl = lab_conversation();
    tl.usage_output_tokens = 5;
    RequestFigures f = compute_figures(tl);
    QVERIFY(f.usage_mismatch);
    QCOMPARE(f.tokens, std::uint64_t{4});
    QCOMPARE(f.usage_output_tokens, std::optional<std::uint64_t>(5));
    QVERIFY_NEAR(f.tokens_per_s, 50.0);  // still from the frames

    tl.usage_output_tokens.reset();
    f = compute_figures(tl);
    QVERIFY(!f.usage_mismatch && !f.usage_output_tokens);
  }

  void cancelLatency() {
    RequestTimeline tl = lab_conversation();
    tl.cancel_written = 0.21;
    QVERIFY(!compute_figures(tl).cancel_latency_ms);  // no cancelled RESPONSE yet
    tl.cancelled_response = 0.222;
    QVERIFY_NEAR(compute_figures(tl).cancel_latency_ms, 12.0);
  }

  void otherConventionsOnTheLabConversation() {
    auto all = other_conventions(lab_conversation());
    QCOMPARE(all.size(), std::size_t{4});
    QCOMPARE(all[0].tool, std::string("llmperf"));
    for (const ConventionFigures& c : all) {
      QVERIFY_NEAR(c.ttft_ms, 180.0);
      QVERIFY(c.note.find("request_written") != std::string::npos);
    }
    // llmperf divides (last content chunk - start) by N: TTFT is inside its ITL.
    QVERIFY_NEAR(convention(all, "llmperf").itl_ms, 240.0 / 4);
    QVERIFY_NEAR(convention(all, "vLLM bench serve").itl_ms, 20.0);
    QVERIFY_NEAR(convention(all, "GenAI-Perf").itl_ms, 20.0);
    QVERIFY_NEAR(convention(all, "GuideLLM").itl_ms, 20.0);
  }

  void otherConventionsSeeDifferentEvents() {
    RequestTimeline tl = lab_conversation();
    tl.message_start = 0.09;                            // the role-only chunk
    tl.tokens.insert(tl.tokens.begin(), frame(0.10, 1, false));  // a reasoning delta
    tl.usage_output_tokens = 5;
    auto all = other_conventions(tl);
    // vLLM starts at the role chunk and averages unsplit gaps over every chunk.
    QVERIFY_NEAR(convention(all, "vLLM bench serve").ttft_ms, 90.0);
    QVERIFY_NEAR(convention(all, "vLLM bench serve").itl_ms, 150.0 / 5);
    // The others wait for content.
    QVERIFY_NEAR(convention(all, "llmperf").ttft_ms, 180.0);
    QVERIFY_NEAR(convention(all, "llmperf").itl_ms, 240.0 / 4);
    QVERIFY_NEAR(convention(all, "GenAI-Perf").itl_ms, 60.0 / 3);
    // GuideLLM divides by the server's usage (5) when it has it.
    QVERIFY_NEAR(convention(all, "GuideLLM").itl_ms, 60.0 / 4);
    tl.usage_output_tokens.reset();
    QVERIFY_NEAR(convention(other_conventions(tl), "GuideLLM").itl_ms, 60.0 / 3);
  }

  void otherConventionsWithoutContent() {
    RequestTimeline tl;
    tl.tokens = {frame(0.10, 1, false)};
    auto all = other_conventions(tl);
    for (const char* tool : {"llmperf", "GenAI-Perf", "GuideLLM"}) {
      QVERIFY(!convention(all, tool).ttft_ms);
      QVERIFY(!convention(all, tool).itl_ms);
    }
    QVERIFY_NEAR(convention(all, "vLLM bench serve").ttft_ms, 100.0);
    QVERIFY(!convention(all, "vLLM bench serve").itl_ms);
  }

  void sloParsesAnySubsetInAnyOrder() {
    Result<Slo> all = parse_slo("ttft:200,tpot:50,e2e:1000");
    QVERIFY(all);
    QCOMPARE(all->ttft_ms, std::optional<double>(200));
    QCOMPARE(all->tpot_ms, std::optional<double>(50));
    QCOMPARE(all->e2e_ms, std::optional<double>(1000));

    Result<Slo> some = parse_slo("tpot:20.5, ttft : 100");
    QVERIFY(some);
    QCOMPARE(some->tpot_ms, std::optional<double>(20.5));
    QCOMPARE(some->ttft_ms, std::optional<double>(100));
    QVERIFY(!some->e2e_ms);

    Result<Slo> one = parse_slo("e2e:1e3");
    QVERIFY(one && !one->ttft_ms && one->e2e_ms == 1000);
  }

  void sloErrorsNameTheBadPart() {
    Result<Slo> bad = parse_slo("ttft:100,tpot:abc");
    QVERIFY(!bad);
    QCOMPARE(bad.error().reason, std::string("usage"));
    QCOMPARE(bad.error().detail, std::string("\"tpot:abc\": not a number"));
    QCOMPARE(slo_error("ttft"), std::string("\"ttft\": expected NAME:MS"));
    QCOMPARE(slo_error("p50:3"),
             std::string("\"p50:3\": unknown figure (expected ttft, tpot or e2e)"));
    QCOMPARE(slo_error("ttft:1,ttft:2"), std::string("\"ttft:2\": given twice"));
    QCOMPARE(slo_error("e2e:-5"), std::string("\"e2e:-5\": negative milliseconds"));
    QCOMPARE(slo_error("ttft:10ms"), std::string("\"ttft:10ms\": not a number"));
    QCOMPARE(slo_error("ttft:inf"), std::string("\"ttft:inf\": not a number"));
    QCOMPARE(slo_error("ttft:"), std::string("\"ttft:\": not a number"));
    QCOMPARE(slo_error("ttft:1,"), std::string("\"\": expected NAME:MS"));
    QCOMPARE(slo_error(""), std::string("\"\": expected NAME:MS"));
  }

  void meetsSloJudgesEverySetObjective() {
    RequestFigures lab = compute_figures(lab_conversation());
    QVERIFY(meets_slo(lab, Slo{}));
    QVERIFY(meets_slo(lab, Slo{200.0, 21.0, 300.0}));
    QVERIFY(meets_slo(lab, Slo{180.0, std::nullopt, 260.0}));  // equal meets
    QVERIFY(!meets_slo(lab, Slo{179.9, std::nullopt, std::nullopt}));
    QVERIFY(!meets_slo(lab, Slo{std::nullopt, 19.0, std::nullopt}));
    QVERIFY(!meets_slo(lab, Slo{std::nullopt, std::nullopt, 250.0}));
  }

  void meetsSloWithNullFigures() {
    RequestTimeline one;
    one.tokens = {frame(0.1)};
    one.end = 0.12;
    RequestFigures single = compute_figures(one);
    QVERIFY(meets_slo(single, Slo{std::nullopt, 1.0, std::nullopt}));  // N < 2: no TPOT to miss
    QVERIFY(meets_slo(single, Slo{150.0, 1.0, 150.0}));

    RequestTimeline silent;
    silent.end = 0.3;  // no token came
    QVERIFY(!meets_slo(compute_figures(silent), Slo{1000.0, std::nullopt, std::nullopt}));

    RequestTimeline unfinished = lab_conversation();
    unfinished.end.reset();
    QVERIFY(!meets_slo(compute_figures(unfinished), Slo{std::nullopt, std::nullopt, 1e9}));
  }

  // Label values with every character the format escapes, and numbers of every kind, read back
  // by Prometheus's own Python parser as they were written.
  void prometheusTextReadsBackInTheOfficialParser() {
    const std::string hostile = "a\\b \"quoted\"\nnext line {x=\"y\"}, 中文";
    PrometheusText out;
    out.family("anthro_test_seconds", MetricType::Gauge, "Help with a backslash \\ and\na newline.");
    out.sample("anthro_test_seconds", {{"target", hostile}, {"path", "anthro-v1"}}, 0.1);
    out.sample("anthro_test_seconds", {{"target", "nan"}}, std::nan(""));
    out.sample("anthro_test_seconds", {{"target", "inf"}}, HUGE_VAL);
    out.sample("anthro_test_seconds", {{"target", "-inf"}}, -HUGE_VAL);
    out.sample("anthro_test_seconds", {{"target", "count"}}, 20);
    out.sample("anthro_test_seconds", {{"target", "tiny"}}, 1.5e-9);
    QVERIFY(out.text().find("2e+01") == std::string::npos);  // counts as digits
    auto parsed = parse_prometheus(out.text());
    QVERIFY2(parsed.is_array() && parsed.size() == 1, parsed.dump().c_str());
    const auto& family = parsed[0];
    QCOMPARE(family["type"], "gauge");
    QCOMPARE(family["samples"].size(), 6u);
    QCOMPARE(family["samples"][0]["labels"]["target"].get<std::string>(), hostile);
    QCOMPARE(family["samples"][0]["labels"]["path"], "anthro-v1");
    QCOMPARE(family["samples"][0]["value"].get<double>(), 0.1);
    QCOMPARE(family["samples"][1]["value"], "nan");
    QCOMPARE(family["samples"][2]["value"], "inf");
    QCOMPARE(family["samples"][3]["value"], "-inf");
    QCOMPARE(family["samples"][4]["value"].get<double>(), 20.0);
    QCOMPARE(family["samples"][5]["value"].get<double>(), 1.5e-9);
  }

  // A summary in seconds from one kept in milliseconds: quantiles, sum and count.
  void secondsSummaryFromMilliseconds() {
    std::vector<double> ms = {100, 200, 300, 400};
    Summary s = summarize(ms);
    PrometheusText out;
    write_seconds_summary(out, "anthro_test_ttft_seconds", "TTFT.", {{"target", "t"}}, s);
    write_seconds_summary(out, "anthro_test_empty_seconds", "None.", {}, summarize(std::vector<double>{}));
    auto parsed = parse_prometheus(out.text());
    QVERIFY2(parsed.is_array() && parsed.size() == 2, parsed.dump().c_str());
    QCOMPARE(parsed[0]["type"], "summary");
    std::map<std::string, double> got;
    for (const auto& sample : parsed[0]["samples"])
      got[sample["name"].get<std::string>() + sample["labels"].value("quantile", "")] = sample["value"].get<double>();
    QCOMPARE(got["anthro_test_ttft_seconds0.5"], s.p50 / 1000);
    QCOMPARE(got["anthro_test_ttft_seconds0.99"], s.p99 / 1000);
    QVERIFY(std::abs(got["anthro_test_ttft_seconds_sum"] - 1.0) < 1e-12);
    QCOMPARE(got["anthro_test_ttft_seconds_count"], 4.0);
    for (const auto& sample : parsed[1]["samples"])
      if (sample["labels"].contains("quantile")) QCOMPARE(sample["value"], "nan");
  }

  // A histogram in seconds from samples in milliseconds: cumulative buckets whose bound is
  // inclusive (a sample on a bound counts in it), +Inf holding every sample, _sum and _count.
  void secondsHistogramFromMilliseconds() {
    PrometheusText out;
    write_seconds_histogram(out, "anthro_test_ttft_seconds", "TTFT.", {{"target", "t"}}, {100, 100.5, 250, 200000});
    auto parsed = parse_prometheus(out.text());
    QVERIFY2(parsed.is_array() && parsed.size() == 1, parsed.dump().c_str());
    QCOMPARE(parsed[0]["type"], "histogram");
    std::map<std::string, double> got;
    for (const auto& sample : parsed[0]["samples"])
      got[sample["name"].get<std::string>() + sample["labels"].value("le", "")] = sample["value"].get<double>();
    QCOMPARE(got["anthro_test_ttft_seconds_bucket0.075"], 0.0);
    QCOMPARE(got["anthro_test_ttft_seconds_bucket0.1"], 1.0);
    QCOMPARE(got["anthro_test_ttft_seconds_bucket0.15"], 2.0);
    QCOMPARE(got["anthro_test_ttft_seconds_bucket0.3"], 3.0);
    QCOMPARE(got["anthro_test_ttft_seconds_bucket120"], 3.0);  // 200 s is past every bound
    QCOMPARE(got["anthro_test_ttft_seconds_bucket+Inf"], 4.0);
    QCOMPARE(got["anthro_test_ttft_seconds_count"], 4.0);
    QVERIFY(std::abs(got["anthro_test_ttft_seconds_sum"] - 200.4505) < 1e-9);
    QCOMPARE(got.size(), kLatencyBucketsSeconds.size() + 3);
  }

  void prometheusNamesAreChecked() {
    QVERIFY(valid_metric_name("anthro_wb_bench_ttft_seconds"));
    QVERIFY(valid_metric_name("a:b_c1"));
    QVERIFY(!valid_metric_name("1abc"));
    QVERIFY(!valid_metric_name("a-b"));
    QVERIFY(!valid_metric_name(""));
    QVERIFY(valid_label_name("target"));
    QVERIFY(!valid_label_name("a:b"));
    QVERIFY(!valid_label_name("__name__"));
    PrometheusText out;
    QVERIFY_THROWS_EXCEPTION(std::logic_error, out.family("bad-name", MetricType::Gauge, ""));
    QVERIFY_THROWS_EXCEPTION(std::logic_error, out.sample("ok", {{"bad label", "x"}}, 1));
  }

  // Whole or not at all, and only where node_exporter's textfile collector looks.
  void metricsFileIsAtomicAndEndsInProm() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("bench.prom").toStdString();
    auto refused = write_metrics_file(dir.filePath("bench.txt").toStdString(), "x 1\n");
    QVERIFY(!refused);
    QVERIFY(refused.error().detail.find(".prom") != std::string::npos);
    QVERIFY(!QFile::exists(dir.filePath("bench.txt")));
    QVERIFY(write_metrics_file(path, "x 1\n"));
    QVERIFY(write_metrics_file(path, "x 2\n"));
    QFile f(QString::fromStdString(path));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("x 2\n"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"bench.prom"});  // no temporary left
    QVERIFY(!write_metrics_file(dir.filePath("missing/bench.prom").toStdString(), "x 1\n"));
  }

  // Grouping values become base64url path segments, so a URL with slashes stays one segment.
  // A record line is written member by member, not through nlohmann: it must be the bytes
  // dump_json writes for request_json, the text last, for every member set and unset.
  void requestJsonLineIsTheRecordAsDumpJsonWritesIt() {
    auto expected = [](const RequestResult& r, std::string_view text, bool itl) {
      std::string out = dump_json(request_json(r, {false, itl}));
      out.pop_back();
      return out + ",\"text\":" + dump_json(nlohmann::json(std::string(text))) + "}";
    };
    RequestResult unset;
    RequestResult full;
    full.stream_id = 4294967295u;
    full.end = RequestEnd::Error;
    full.timeline.request_written = 1700000000.009;
    RequestFigures& f = full.figures;
    f.ttft_ms = 0.1 + 0.2;
    f.ttfot_ms = 1e-7;
    f.ttfb_ms = 123456789.125;
    f.time_to_message_start_ms = -0.0;
    f.e2e_ms = 2.5e300;
    f.mean_itl_ms = 0.007741122066226464;
    f.p99_itl_ms = std::nan("");  // not finite: null
    f.max_gap_ms = 3.0;
    f.jitter_ms = 1.0 / 3;
    f.tokens_per_s = 129180.23917525774;
    f.tpot_ms = 5e-324;
    f.cancel_latency_ms = 42;
    f.tokens = 18446744073709551615ull;
    f.usage_output_tokens = 0;
    f.usage_mismatch = true;
    f.itl_ms = {0.1, 2.5e-5, 1e21, 0};
    full.stop_reason = StopReason::Cancelled;
    full.error = "429: \"overloaded\"\n\x01 try later \xc3\xa9";
    full.error_code = -3;
    full.retry_after_ms = 500;
    full.server_timing = Timing{1, 2, 3, 18446744073709551615ull};
    full.invalid_utf8_frames = 1;
    full.token_gaps = 2;
    full.token_duplicates = 3;
    full.auth_failures = 4;
    full.probe = "ttft_tail";
    full.max_tokens = 240;
    full.packets = std::pair<std::uint64_t, std::uint64_t>{181, 219};
    full.worker = "w\\1.json";
    const std::string texts[] = {"", "plain words of a token stream, over eight bytes",
                                 "\"quoted\" \\ back\tslash\n\x1f\x7f caf\xc3\xa9 \xe2\x82\xac"};
    for (const RequestResult* r : {&unset, &full})
      for (bool itl : {false, true})
        for (const auto& text : texts) QCOMPARE(request_json_line(*r, text, itl), expected(*r, text, itl));
    // What only nlohmann writes the same way: a member not UTF-8 (replaced), a text not UTF-8
    // (hex, among the members), a format's part.
    RequestResult bad_error = full;
    bad_error.error = "cut \xc3";
    QCOMPARE(request_json_line(bad_error, "ok", false), expected(bad_error, "ok", false));
    nlohmann::json hex = request_json(full, {false, false});
    hex.update(text_fields(as_bytes(std::string_view("\xff")), true));
    QCOMPARE(request_json_line(full, "\xff", false), dump_json(hex));
    nlohmann::json with_part = request_json(full);
    with_part["toy_format"] = {{"a", 1}};
    auto read = request_from_json(with_part);
    QVERIFY(read.ok());
    QCOMPARE(request_json_line(*read, read->text, false), expected(*read, read->text, false));
    QVERIFY(request_json_line(*read, read->text, false).find("\"toy_format\":{\"a\":1}") != std::string::npos);
  }

  // The escape of a text's bytes, sixteen and eight at a time, against nlohmann's own: each byte
  // that needs one, at every place in and across sixteen- and eight-byte blocks.
  void textsEscapeAsNlohmannEscapes() {
    const std::string specials[] = {"\"", "\\", "\b", "\f", "\n", "\r", "\t", std::string(1, '\0'), "\x01", "\x1f",
                                    " ", "\x7f", "\xc3\xa9", "!", "#", "[", "]"};
    for (const auto& special : specials)
      for (std::size_t before = 0; before <= 40; ++before)
        for (std::size_t after : {0, 1, 7, 8, 9, 15, 16, 17, 33}) {
          std::string text = std::string(before, 'a') + special + std::string(after, 'b') + special;
          std::string ours;
          append_json_escaped(ours, text);
          std::string theirs = nlohmann::json(text).dump();
          QCOMPARE(ours, theirs.substr(1, theirs.size() - 2));
        }
  }

  void pushgatewayGroupUrl() {
    auto url = pushgateway_group_url("http://127.0.0.1:9091/", "anthro_wb_bench", {{"target", "anthro://h:1/x"}});
    QVERIFY(url);
    auto b64 = [](const char* s) { return QString::fromLatin1(QByteArray(s).toBase64(QByteArray::Base64UrlEncoding)); };
    QCOMPARE(QString::fromStdString(*url), "http://127.0.0.1:9091/metrics/job@base64/" + b64("anthro_wb_bench") +
                                               "/target@base64/" + b64("anthro://h:1/x"));
    for (const char* odd : {"a", "ab", "abc", "\xff\xfe"}) {  // every padding length, bytes above 0x7f
      auto u = pushgateway_group_url("http://gw", odd, {});
      QVERIFY(u);
      QCOMPARE(QString::fromStdString(*u), "http://gw/metrics/job@base64/" + b64(odd));
    }
    auto empty = pushgateway_group_url("https://gw", "j", {{"target", ""}});
    QVERIFY(empty);
    QVERIFY(QString::fromStdString(*empty).endsWith("/target@base64/="));
    auto bad = pushgateway_group_url("ftp://gw", "j", {});
    QVERIFY(!bad);
    QVERIFY(bad.error().detail.find("ftp://gw") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestMetrics)
#include "test_metrics.moc"
