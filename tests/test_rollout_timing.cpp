// Stage 4's latency judge on live endpoints: an A/A rehearsal fails at most at its α, a slower
// candidate fails, a candidate worse only in its tail fails where a median-only judge passes,
// and a GPU context wait fails its checklist gate. Verdicts rest on timing: Release only
// (label "timing").
#include <QFloat16>
#include <QObject>
#include <QString>
#include <QTest>

#include "endpoint_fixture.h"
#include "rollout/rollout.h"

using namespace anthro;
using anthro::test::EndpointFixture;

namespace {

// The configured TTFT (its spread a fifth of it): far above the few ms a loaded machine (ctest
// -j2 beside a build) adds to any request, so the arms differ by what they were configured
// with, not by when the CPU was free.
constexpr double kTtftMs = 80;

std::unique_ptr<EndpointFixture> endpoint(std::vector<std::string> faults, double ttft_ms, std::uint64_t seed) {
  auto e = std::make_unique<EndpointFixture>(std::move(faults), ttft_ms, 1, 8);
  e->config().model.ttft = {ttft_ms, ttft_ms / 5};
  e->config().model.seed = seed;
  e->start();
  return e;
}

// Stage 4 of anthro-v1's plan: P99 TTFT not worse by 5 % and gpu-context-wait passing.
RolloutConfig stage4(const std::string& baseline, const std::string& candidate, std::uint64_t requests, std::size_t min_n) {
  RolloutConfig c;
  auto plan = find_plan("anthro-v1-five-stages");
  if (!plan) qFatal("%s", plan.error().detail.c_str());
  c.plan = *plan;
  c.plan.stages[3].gates[0].min_n = min_n;
  c.session.insecure = true;
  c.session.timeout_s = 20;
  c.baseline = baseline;
  c.candidate = candidate;
  c.first_stage = c.last_stage = 3;
  c.requests_per_stage = requests;
  c.concurrency = 4;
  return c;
}

GateResult ttft_gate(const RolloutConfig& c) {
  auto r = run_rollout(c);
  if (!r) qFatal("rollout: %s", r.error().detail.c_str());
  return r->stages.back().gates[0].result;
}

}  // namespace

class TestRolloutTiming : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { baseline_ = endpoint({}, kTtftMs, 1); }

  // Baseline and candidate: endpoints with the same settings, seeded differently. The gate's
  // two tests each run at α = 0.05 one-sided, so about 5 of 100 fail by chance, and more than
  // 5 does a quarter of the time. 13 or more has a probability of 0.15 % (binomial, n = 100,
  // p = 0.05): that many means the judge is biased, not unlucky.
  void aaFailsAtMostAlpha() {
    auto twin = endpoint({}, kTtftMs, 2);
    int failed = 0, passed = 0;
    for (std::uint64_t i = 0; i < 100; ++i) {
      RolloutConfig c = stage4(baseline_->endpoint().url("anthro"), twin->endpoint().url("anthro"), 40, 20);
      c.seed = 1000 + i;
      GateResult g = ttft_gate(c);
      failed += g.verdict == Verdict::Fail;
      passed += g.verdict == Verdict::Pass;
    }
    qInfo("A/A: %d of 100 failed, %d passed, the rest inconclusive", failed, passed);
    QVERIFY2(failed <= 12, qPrintable(QString("%1 of 100 A/A rehearsals failed").arg(failed)));
  }

  // TTFT × 1.3 fails on the shift test and the P99 interval.
  void slowerCandidateFails() {
    auto slower = endpoint({}, 1.3 * kTtftMs, 3);
    GateResult g = ttft_gate(stage4(baseline_->endpoint().url("anthro"), slower->endpoint().url("anthro"), 300, 100));
    QCOMPARE(g.verdict, Verdict::Fail);
    // The P99 ratio is 1.3 as configured on a quiet machine; a busy one adds its outliers to
    // both arms' P99, so only the gate's own limit (5 %) is a bound that holds.
    QVERIFY2(g.statistic > 1.05, g.reason.c_str());
    QVERIFY2(*g.p_value < 0.05, g.reason.c_str());
  }

  // 3 % of requests 10× slower: the medians agree (the Mann-Whitney shift test finds nothing,
  // as a median-only judge would), the bootstrap interval of the P99 ratio does not.
  void tailOnlyCandidateFails() {
    auto spiky = endpoint({"tail-spikes=0.03:" + std::to_string(int(10 * kTtftMs))}, kTtftMs, 4);
    GateResult g = ttft_gate(stage4(baseline_->endpoint().url("anthro"), spiky->endpoint().url("anthro"), 400, 100));
    QCOMPARE(g.verdict, Verdict::Fail);
    QVERIFY2(*g.p_value >= 0.05, g.reason.c_str());
    QVERIFY2(g.interval.low > 1.05, g.reason.c_str());
  }

  void contextWaitFailsStage4() {
    auto waiting = endpoint({"context-wait=30"}, kTtftMs, 5);
    auto r = run_rollout(stage4(baseline_->endpoint().url("anthro"), waiting->endpoint().url("anthro"), 100, 100));
    QVERIFY(r.ok());
    QCOMPARE(r->state, RolloutState::Failed);
    QCOMPARE(r->stages.back().gates[1].id, std::string("gpu-context-wait"));
    QCOMPARE(r->stages.back().gates[1].result.verdict, Verdict::Fail);
  }

 private:
  std::unique_ptr<EndpointFixture> baseline_;
};

QTEST_GUILESS_MAIN(TestRolloutTiming)
#include "test_rollout_timing.moc"
