// The rollout judge's statistics against independent values: SciPy (Debian's python3-scipy),
// computed in the same run from the same samples, and the figures the issue and checklists.md
// state. No expected value comes from this code.
#include <QByteArray>
#include <QFloat16>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QStringLiteral>
#include <QTest>

#include <random>

#include <nlohmann/json.hpp>

#include "compare_draws.h"
#include "scale_suite.h"
#include "test_paths.h"
#include "util/files.h"

#include "rollout/gates.h"
#include "rollout/plan.h"
#include "rollout/statistics.h"
#include "metrics/stats.h"

using namespace anthro;

namespace {

QString list(const std::vector<double>& v) {
  QStringList parts;
  for (double d : v) parts << QString::number(d, 'g', 17);
  return "[" + parts.join(",") + "]";
}

// Runs a Python expression with scipy.stats as `st` and returns the numbers it prints.
std::vector<double> scipy(const QString& code) {
  QProcess p;
  p.start("/usr/bin/python3", {"-c", "import scipy.stats as st, numpy as np\n" + code});  // Debian's, with python3-scipy
  if (!p.waitForFinished(60000) || p.exitCode() != 0) qFatal("python3 scipy: %s", p.readAllStandardError().constData());
  std::vector<double> out;
  for (const QByteArray& word : p.readAllStandardOutput().simplified().split(' ')) out.push_back(word.toDouble());
  return out;
}

std::vector<double> lognormal(std::size_t n, double mu, double sigma, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(mu, sigma);
  std::vector<double> v(n);
  for (double& x : v) x = d(rng);
  return v;
}

}  // namespace

class TestRolloutStatistics : public QObject {
  Q_OBJECT

 private slots:
  // SciPy has Wilson intervals for proportions: binomtest(k, n).proportion_ci(method="wilson"),
  // one-sided bounds being the two-sided interval at confidence 0.90.
  void wilsonMatchesScipy() {
    for (auto [k, n] : std::vector<std::pair<int, int>>{{0, 20}, {19, 20}, {1000, 1000}, {997, 1000}, {5, 7}}) {
      auto ref = scipy(QString("ci=st.binomtest(%1,%2).proportion_ci(confidence_level=0.90,method='wilson')\n"
                               "print(ci.low, ci.high)").arg(k).arg(n));
      Interval w = wilson(k, n);
      QVERIFY2(std::abs(w.low - ref[0]) < 1e-12 && std::abs(w.high - ref[1]) < 1e-12,
               qPrintable(QString("%1/%2: %3 %4 vs %5 %6").arg(k).arg(n).arg(w.low).arg(w.high).arg(ref[0]).arg(ref[1])));
    }
  }

  // The issue's own figures: a 99.99 % gate after 1,000 clean trials needs 26,053 more
  // (27,053 in all); checklists.md: 0 failures in n ⇒ upper bound of the failure rate ≈ 3/n.
  void thinDataNeedsMoreTrials() {
    QCOMPARE(trials_needed(1000, 1000, 0.9999), std::optional<std::uint64_t>(26053));
    QCOMPARE(trials_needed(27053, 27053, 0.9999), std::optional<std::uint64_t>(0));
    QCOMPARE(trials_needed(27052, 27052, 0.9999), std::optional<std::uint64_t>(1));
    QVERIFY(!trials_needed(10, 10, 1.0));
    for (std::uint64_t n : {1000u, 30000u, 300000u}) {
      double failure_upper = 1 - wilson(n, n).low;
      QVERIFY(std::abs(failure_upper * n - 2.706) < 0.01);  // z² = 2.706: the "≈ 3/n" rule
    }
    // A failure costs many more trials: the bound must climb past it.
    QVERIFY(*trials_needed(999, 1000, 0.999) > *trials_needed(1000, 1000, 0.999));
  }

  // Order-statistic bounds of a quantile: the upper bound is x(u) for the least u with
  // binom.cdf(u − 1, n, q) ≥ 0.95, i.e. u = binom.ppf(0.95, n, q) + 1 in SciPy; the lower one
  // x(l) for the largest l with binom.sf(l − 1, n, q) ≥ 0.95. With no room above the sample
  // the bound is infinite: for P99, n ≥ ln 0.05 / ln 0.99 = 298.07 (1 − 0.99ⁿ ≥ 0.95).
  void quantileBoundsMatchScipy() {
    for (int n : {50, 299, 1000, 5000}) {
      std::vector<double> sorted(n);
      for (int i = 0; i < n; ++i) sorted[i] = i + 1;  // x(i) = i: a bound is its rank
      auto ref = scipy(QString("n=%1\nu=st.binom.ppf(0.95,n,0.99)+1\n"
                               "l=max([k for k in range(1,n+1) if st.binom.sf(k-1,n,0.99)>=0.95] or [0])\n"
                               "print(u if u<=n else -1, l)").arg(n));
      Interval b = quantile_bounds(sorted, 0.99);
      double upper = ref[0] < 0 ? std::numeric_limits<double>::infinity() : ref[0];
      double lower = ref[1] < 1 ? -std::numeric_limits<double>::infinity() : ref[1];
      QVERIFY2(b.high == upper && b.low == lower,
               qPrintable(QString("n=%1: [%2, %3] vs [%4, %5]").arg(n).arg(b.low).arg(b.high).arg(lower).arg(upper)));
    }
    std::vector<double> v298(298, 1.0), v299(299, 1.0);
    QVERIFY(std::isinf(quantile_bounds(v298, 0.99).high));
    QCOMPARE(quantile_bounds(v299, 0.99).high, 1.0);
    // The absolute P99 gate follows: 100 fast samples cannot prove "P99 < 350 ms"; 299 can.
    GateResult thin = judge_p99_below(std::vector<double>(100, 100.0), 350);
    QCOMPARE(thin.verdict, Verdict::Inconclusive);
    QCOMPARE(thin.need_more, std::optional<std::uint64_t>(199));
    QCOMPARE(judge_p99_below(v299, 350).verdict, Verdict::Pass);
    std::vector<double> slow(300, 400.0);
    QCOMPARE(judge_p99_below(slow, 350).verdict, Verdict::Fail);
  }

  void mannWhitneyAsymptoticMatchesScipy() {
    auto base = lognormal(200, 5, 0.3, 1), cand = lognormal(180, 5.05, 0.3, 2);
    for (double& v : cand) v = std::round(v);  // ties, so the tie correction is exercised
    for (double& v : base) v = std::round(v);
    for (auto [alt, name] : {std::pair{Alternative::Greater, "greater"}, std::pair{Alternative::Less, "less"}}) {
      auto ref = scipy(QString("r=st.mannwhitneyu(%1,%2,alternative='%3',method='asymptotic',use_continuity=True)\n"
                               "print(r.statistic, r.pvalue)").arg(list(cand), list(base), name));
      MannWhitney m = mann_whitney(cand, base, alt);
      QVERIFY(!m.exact);
      QCOMPARE(m.u, ref[0]);
      QVERIFY2(std::abs(m.p - ref[1]) < 1e-9 * std::max(1.0, ref[1]), qPrintable(QString("%1 vs %2").arg(m.p).arg(ref[1])));
    }
  }

  void mannWhitneyExactMatchesScipy() {
    std::vector<double> x = {12.5, 14.1, 11.9, 15.3, 13.8}, y = {10.2, 11.1, 12.0, 9.8, 10.9, 13.0};
    for (auto [alt, name] : {std::pair{Alternative::Greater, "greater"}, std::pair{Alternative::Less, "less"}}) {
      auto ref = scipy(QString("r=st.mannwhitneyu(%1,%2,alternative='%3',method='exact')\nprint(r.statistic, r.pvalue)")
                           .arg(list(x), list(y), name));
      MannWhitney m = mann_whitney(x, y, alt);
      QVERIFY(m.exact);
      QCOMPARE(m.u, ref[0]);
      QVERIFY2(std::abs(m.p - ref[1]) < 1e-12, qPrintable(QString("%1 vs %2").arg(m.p).arg(ref[1])));
    }
  }

  // D as SciPy's ks_2samp computes it; the p-value from Kolmogorov's limiting distribution
  // (SciPy's kstwobign) at D √(mn/(m+n)).
  void kolmogorovSmirnovMatchesScipy() {
    auto a = lognormal(300, 5, 0.3, 3), b = lognormal(250, 5.1, 0.35, 4);
    auto ref = scipy(QString("a=%1\nb=%2\nd=st.ks_2samp(a,b).statistic\n"
                             "print(d, st.kstwobign.sf(d*np.sqrt(len(a)*len(b)/(len(a)+len(b)))))")
                         .arg(list(a), list(b)));
    KolmogorovSmirnov ks = kolmogorov_smirnov(a, b);
    QVERIFY(std::abs(ks.d - ref[0]) < 1e-12);
    QVERIFY2(std::abs(ks.p - ref[1]) < 1e-9, qPrintable(QString("%1 vs %2").arg(ks.p).arg(ref[1])));
    auto same = kolmogorov_smirnov(a, a);
    QCOMPARE(same.d, 0.0);
    QCOMPARE(same.p, 1.0);
  }

  // The bootstrap has no external reference value (its generator is its own), so it is held to
  // what it must show: the same seed gives the same interval, an A/A comparison covers 1, and a
  // candidate whose tail alone is 30 % worse is seen, where the medians agree.
  void bootstrapSeesAWorseTail() {
    auto base = lognormal(2000, 5, 0.2, 5), same = lognormal(2000, 5, 0.2, 6);
    Interval aa = bootstrap_p99_ratio(same, base, 42);
    QVERIFY2(aa.low < 1 && aa.high > 1, qPrintable(QString("%1..%2").arg(aa.low).arg(aa.high)));
    Interval again = bootstrap_p99_ratio(same, base, 42);
    QCOMPARE(again.low, aa.low);
    QCOMPARE(again.high, aa.high);
    auto tail = same;
    std::sort(tail.begin(), tail.end());
    for (std::size_t i = tail.size() * 97 / 100; i < tail.size(); ++i) tail[i] *= 1.3;  // the slowest 3 % only
    Interval worse = bootstrap_p99_ratio(tail, base, 42);
    QVERIFY2(worse.low > 1.1, qPrintable(QString("%1..%2").arg(worse.low).arg(worse.high)));
    MannWhitney median_view = mann_whitney(tail, base, Alternative::Greater);
    QVERIFY2(median_view.p > 0.05, "a rank test should not see a 3 % tail");
  }

  // A gate never passes on thin data (the issue: 1,000 clean trials of a 99.99 % gate).
  void rateGatesPassOnlyOnEnoughTrials() {
    GateResult thin = judge_rate(1000, 1000, 0.9999);
    QCOMPARE(thin.verdict, Verdict::Inconclusive);
    QCOMPARE(thin.need_more, std::optional<std::uint64_t>(26053));
    QVERIFY(thin.reason.find("need 26053 more trials") != std::string::npos);
    QCOMPARE(judge_rate(27053, 27053, 0.9999).verdict, Verdict::Pass);
    QCOMPARE(judge_rate(9900, 10000, 0.9999).verdict, Verdict::Fail);
    QCOMPARE(judge_rate(0, 0, 0.99).verdict, Verdict::Inconclusive);
  }

  // A/A: the same distribution on both sides, 100 rehearsals seeded differently, fails the
  // latency gate in at most 5 (α = 0.05); a candidate 30 % slower fails; one whose P99 alone is
  // worse fails on the bootstrap, where a rank test alone would pass it.
  void latencyGatesAreTailAware() {
    int failed = 0;
    for (std::uint64_t k = 0; k < 100; ++k) {
      auto a = lognormal(120, 5, 0.25, 1000 + 2 * k), b = lognormal(120, 5, 0.25, 1001 + 2 * k);
      failed += judge_latency(a, b, 0.05, k).verdict == Verdict::Fail;
    }
    QVERIFY2(failed <= 5, qPrintable(QString("%1 of 100 A/A rehearsals failed").arg(failed)));
    auto base = lognormal(300, 5, 0.25, 7), slow = lognormal(300, 5, 0.25, 8);
    for (double& v : slow) v *= 1.3;
    QCOMPARE(judge_latency(slow, base, 0.05, 1).verdict, Verdict::Fail);
    auto tail = lognormal(2000, 5, 0.2, 9);
    auto base2 = lognormal(2000, 5, 0.2, 10);
    std::sort(tail.begin(), tail.end());
    for (std::size_t i = tail.size() * 97 / 100; i < tail.size(); ++i) tail[i] *= 1.5;
    GateResult g = judge_latency(tail, base2, 0.05, 1);
    QCOMPARE(g.verdict, Verdict::Fail);
    QVERIFY(*g.p_value > 0.05);  // the rank test alone saw nothing
    QCOMPARE(judge_latency(std::vector<double>(10, 1.0), base, 0.05, 1).verdict, Verdict::Inconclusive);
  }

  // Holm's adjustment worked by hand from its definition (sorted 0.005, 0.01, 0.03, 0.04 times
  // 4, 3, 2, 1, never falling), and Newcombe's interval against his 1998 paper (method 10,
  // example (a): 56/70 against 48/80, 95 % two-sided: 0.0524 to 0.3339).
  void holmAndNewcombeMatchTheirReferences() {
    const std::vector<double> p = {0.01, 0.04, 0.03, 0.005};
    const std::vector<double> adjusted = holm_adjusted(p);
    const std::vector<double> r_holm = {0.03, 0.06, 0.06, 0.02};
    for (std::size_t i = 0; i < p.size(); ++i) QVERIFY2(std::abs(adjusted[i] - r_holm[i]) < 1e-12, qPrintable(QString::number(i)));
    Interval d = proportion_difference(56, 70, 48, 80, 1.959963984540054);
    QVERIFY2(std::abs(d.low - 0.0524) < 5e-5 && std::abs(d.high - 0.3339) < 5e-5, qPrintable(QString("%1..%2").arg(d.low).arg(d.high)));
    QVERIFY(std::abs(normal_upper_quantile(0.05) - kZ95) < 1e-9);
    // The bootstrap's partial selection gives the sorted percentile's very value.
    for (std::size_t n : {1, 2, 7, 300, 1001}) {
      auto v = lognormal(n, 5, 0.3, n);
      for (double q : {0.0, 1.0, 50.0, 99.0, 100.0}) {
        std::vector<double> copy = v;
        QCOMPARE(percentile_unsorted(copy, q), percentile(v, q));
      }
    }
  }

  // A candidate whose TTFT is 1.2 times the base's is worse on ttft_ms; its ITL is not.
  void compareSeesASlowerTtft() {
    test::DrawSpec base, slow;
    base.ttft = slow.ttft = {150, 30};  // a noisier workload than the A/A one
    slow.ttft_scale = 1.2;
    Comparison c = compare_results(test::draw_side(base, 300, 11), test::draw_side(slow, 300, 12));
    QCOMPARE(c.verdict, CompareVerdict::Worse);
    QCOMPARE(test::figure(c, "ttft_ms")->verdict, CompareVerdict::Worse);
    QVERIFY(test::figure(c, "itl_ms")->verdict != CompareVerdict::Worse);
    QCOMPARE(comparison_exit_code(c), 1);
  }

  // 3 % of the streams 200 ms later and nothing else, 1,000 requests a side (at 300 the 9 slow
  // streams leave the bootstrap's P99 too often to survive the family's correction): the medians
  // agree, the rank test sees nothing, and the figure is worse through the P99 interval alone.
  void compareSeesATailOnlyChange() {
    test::DrawSpec base, tail;
    tail.ttft_change = [](std::size_t i, double v) { return i % 100 < 3 ? v + 200 : v; };
    Comparison c = compare_results(test::draw_side(base, 1000, 21), test::draw_side(tail, 1000, 22));
    const FigureComparison* f = test::figure(c, "ttft_ms");
    QVERIFY2(std::abs(f->ratio_p50 - 1) < 0.02, qPrintable(QString::number(f->ratio_p50)));
    QVERIFY2(*f->judged.p_value > 0.05, "the shrunk rank test alone should see no shift");
    QVERIFY2(f->judged.interval.low > 1.05, qPrintable(QString::number(f->judged.interval.low)));
    QCOMPARE(f->verdict, CompareVerdict::Worse);
    QCOMPARE(c.verdict, CompareVerdict::Worse);
  }

  // The shipped plans hold to their schema (checked by Python's jsonschema), and anthro-v1's
  // holds checklists.md's rollout table.
  void plansMatchTheirSchemaAndTheSpec() {
    const QString dir = QString(ANTHRO_SOURCE_DIR) + "/resources/rollout-plans/";
    QProcess p;
    p.start("/usr/bin/python3", {"-c",
                                 "import json,sys,jsonschema\n"
                                 "s=json.load(open(sys.argv[1]))\njsonschema.Draft202012Validator.check_schema(s)\n"
                                 "[jsonschema.Draft202012Validator(s).validate(json.load(open(f))) for f in sys.argv[2:]]\n"
                                 "print('valid')",
                                 dir + "rollout-plan.schema.json", dir + "anthro-v1-five-stages.json",
                                 dir + "session-affinity-four-stages.json"});
    QVERIFY(p.waitForFinished(30000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    auto plan = nlohmann::json::parse(read_file((dir + "anthro-v1-five-stages.json").toStdString(), file_limit::kPlan).value());
    const auto& stages = plan["stages"];
    QCOMPARE(stages.size(), std::size_t{5});
    QCOMPARE(stages[0]["mode"], "mirror");
    QCOMPARE(stages[0]["gates"][0]["threshold"].get<double>(), 0.9999);  // connection success ≥ 99.99 %
    QCOMPARE(stages[0]["gates"][1]["threshold"].get<double>(), 0.00001);  // frame drop ≤ 0.001 %
    QCOMPARE(stages[1]["split"].get<double>(), 0.01);
    QCOMPARE(stages[1]["gates"][0]["threshold"].get<double>(), 0.999);   // response match ≥ 99.9 %
    QCOMPARE(stages[2]["gates"][0]["threshold"].get<double>(), 0.9995);  // write consistency ≥ 99.95 %
    QCOMPARE(stages[3]["gates"][0]["margin"].get<double>(), 0.05);       // P99 TTFT not worse, 5 %
    auto affinity_plan =
        nlohmann::json::parse(read_file((dir + "session-affinity-four-stages.json").toStdString(), file_limit::kPlan).value());
    QCOMPARE(affinity_plan["stages"].size(), std::size_t{4});
    QCOMPARE(affinity_plan["stages"][0]["gates"][0]["status"].get<int>(), 409);
    QCOMPARE(affinity_plan["stages"][0]["gates"][2]["metric"].get<std::string>(), std::string("slot-utilisation"));
    QCOMPARE(affinity_plan["stages"][0]["gates"][2]["threshold"].get<double>(), 0.85);
    QCOMPARE(affinity_plan["stages"][0]["gates"][3]["threshold"].get<double>(), 350.0);
  }

  void plansLoadAndBadOnesAreNamed() {
    const std::string dir = std::string(ANTHRO_SOURCE_DIR) + "/resources/rollout-plans/";
    auto plan = load_plan(dir + "anthro-v1-five-stages.json");
    QVERIFY2(plan.ok(), plan.ok() ? "" : plan.error().detail.c_str());
    QCOMPARE(plan->stages.size(), std::size_t{5});
    QCOMPARE(plan->stages[3].gates[1].item, std::optional<std::string>("gpu-context-wait"));
    QVERIFY(load_plan(dir + "session-affinity-four-stages.json").ok());
    auto doc = nlohmann::json::parse(read_file(dir + "anthro-v1-five-stages.json", file_limit::kPlan).value());
    doc["stages"][1]["gates"][0].erase("threshold");
    auto missing = parse_plan(doc.dump(), "mine.json");
    QVERIFY(!missing.ok());
    QCOMPARE(missing.error().detail, std::string("mine.json: stage 2 (\"canary-read\"): gate 1 (\"response-match\"): "
                                                 "field threshold: missing: comparison >= needs one"));
    doc = nlohmann::json::parse(read_file(dir + "anthro-v1-five-stages.json", file_limit::kPlan).value());
    doc["stages"][0]["split"] = 1.5;
    QVERIFY(parse_plan(doc.dump(), "mine.json").error().detail.find("field split") != std::string::npos);
    doc = nlohmann::json::parse(read_file(dir + "anthro-v1-five-stages.json", file_limit::kPlan).value());
    doc["stages"][3]["gates"][1]["item"] = "no-such-item";
    QVERIFY(!parse_plan(doc.dump(), "mine.json").ok());
    doc = nlohmann::json::parse(read_file(dir + "anthro-v1-five-stages.json", file_limit::kPlan).value());
    doc["stages"][0]["gates"][0]["threshold"] = 99.99;  // a percentage where a fraction belongs
    QVERIFY(parse_plan(doc.dump(), "mine.json").error().detail.find("field threshold: a rate is a fraction from 0 to 1") !=
            std::string::npos);
    doc = nlohmann::json::parse(read_file(dir + "anthro-v1-five-stages.json", file_limit::kPlan).value());
    doc["stages"][3]["gates"][0]["margin"] = -0.05;
    QVERIFY(parse_plan(doc.dump(), "mine.json").error().detail.find("field margin: expected 0 or more") != std::string::npos);
    doc["stages"][3]["failureLimit"] = "many";
    QVERIFY(!parse_plan(doc.dump(), "mine.json").ok());  // never a crash on a wrong type
    QVERIFY(!parse_plan("[1,2", "broken.json").ok());
  }
};

// The comparisons judged many times over (the A/A family rate, the thin-data estimate): the
// optimised pass only, as `scale` (hundreds of seeded bootstraps take minutes under ASan; the
// single comparisons above run in both passes).
class TestCompareTrials : public QObject {
  Q_OBJECT
 private slots:
  // A/A: both sides drawn from the simulated model's TTFT N(150, 6) ms and ITL N(10, 1) ms, 10
  // tokens, 300 requests a side: "no worse" in at least 95 of 100 seeded pairs, never "worse"
  // more than 5 times (the family-wise α). (No worse needs each P99 ratio's interval inside the
  // 5 % margin: at 300 requests that holds for a TTFT spread of a few per cent; a noisier
  // workload is inconclusive there, and says how many more requests it needs, as below.)
  void compareAaIsNoWorse() {
    int no_worse = 0, worse = 0;
    for (std::uint64_t k = 0; k < 100; ++k) {
      test::DrawSpec spec;
      Comparison c = compare_results(test::draw_side(spec, 300, 2 * k + 1), test::draw_side(spec, 300, 2 * k + 2), {.seed = k});
      no_worse += c.verdict == CompareVerdict::NoWorse;
      worse += c.verdict == CompareVerdict::Worse;
    }
    qInfo("A/A: %d of 100 no worse, %d worse", no_worse, worse);
    QVERIFY2(no_worse >= 95 && worse <= 5, qPrintable(QString("%1 of 100 no worse, %2 worse").arg(no_worse).arg(worse)));
  }

  // 30 against 30 with TTFT +10 % (TTFT N(150, 30)): inconclusive on ttft_ms with a number of
  // requests still needed; drawing that many per side makes ttft_ms conclusive in most pairs
  // (the estimate rests on 30 requests' effect, itself uncertain: not in every pair).
  void compareThinDataSaysHowManyMore() {
    test::DrawSpec base, slow;
    base.ttft = slow.ttft = {150, 30};
    slow.ttft_scale = 1.1;
    int inconclusive = 0, conclusive_after = 0, tried = 0;
    for (std::uint64_t k = 0; k < 20; ++k) {
      Comparison thin = compare_results(test::draw_side(base, 30, 100 + 2 * k), test::draw_side(slow, 30, 101 + 2 * k), {.seed = k});
      const FigureComparison* f = test::figure(thin, "ttft_ms");
      if (f->verdict != CompareVerdict::Inconclusive) continue;
      ++inconclusive;
      QCOMPARE(thin.verdict, CompareVerdict::Inconclusive);
      QVERIFY(f->need_more && *f->need_more > 0);
      QVERIFY(thin.need.find("more requests on each side") != std::string::npos);
      if (*f->need_more > 1500) continue;  // a draw that hid the effect: more than this test draws
      ++tried;
      std::size_t n = 30 + *f->need_more;
      Comparison more = compare_results(test::draw_side(base, n, 500 + 2 * k), test::draw_side(slow, n, 501 + 2 * k), {.seed = k});
      conclusive_after += test::figure(more, "ttft_ms")->verdict != CompareVerdict::Inconclusive;
    }
    qInfo("30 against 30: %d of 20 inconclusive; %d of %d conclusive with the estimate", inconclusive, conclusive_after, tried);
    QVERIFY2(inconclusive >= 15, qPrintable(QString("%1 of 20 thin pairs inconclusive").arg(inconclusive)));
    QVERIFY2(tried >= 10 && conclusive_after * 2 > tried,
             qPrintable(QString("%1 of %2 conclusive with the estimated number").arg(conclusive_after).arg(tried)));
  }

};

ANTHRO_TEST_MAIN_WITH_SCALE(TestRolloutStatistics, TestCompareTrials)
#include "test_rollout_statistics.moc"
