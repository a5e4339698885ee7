// Rollout rehearsals on live endpoints: each fault the plan guards against fails its stage, thin
// data pauses with the trials still needed, results survive JSON and resume, the rollback leaves
// no socket behind, and the CLI's exit codes and messages are cli.md's. `compare` (the same judge
// over two saved runs or captures) on live bench runs and their captures.
#include <QByteArray>
#include <QFile>
#include <QFloat16>
#include <QObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "affinity/serve.h"
#include "endpoint_fixture.h"
#include "english_text.h"
#include "lo_capture.h"
#include "rollout/rollout.h"
#include "cli_run.h"
#include "test_paths.h"
#include "util/files.h"
#include "util/process_fds.h"

using namespace anthro;
using anthro::test::EndpointFixture;
using anthro::test::LoCapture;

namespace {

// A fast model with some spread, so latency gates compare distributions rather than constants.
std::unique_ptr<EndpointFixture> endpoint(std::vector<std::string> faults = {}, double ttft_ms = 20, std::uint64_t seed = 1) {
  auto e = std::make_unique<EndpointFixture>(std::move(faults), ttft_ms, 1, 12);
  e->config().model.ttft = {ttft_ms, ttft_ms / 5};
  e->config().model.seed = seed;
  e->start();
  return e;
}

RolloutPlan anthro_v1_plan() {
  auto plan = find_plan("anthro-v1-five-stages");
  if (!plan) qFatal("%s", plan.error().detail.c_str());
  return *plan;
}

RolloutConfig config(const RolloutPlan& plan, const std::string& baseline, const std::string& candidate, std::size_t stage,
                     std::uint64_t requests) {
  RolloutConfig c;
  c.plan = plan;
  c.plan_origin = "test";
  c.session.insecure = true;  // two endpoints, two self-signed certificates
  c.session.timeout_s = 20;
  c.baseline = baseline;
  c.candidate = candidate;
  c.first_stage = c.last_stage = stage;
  c.requests_per_stage = requests;
  c.concurrency = 8;
  return c;
}

RolloutResult run(const RolloutConfig& c) {
  auto r = run_rollout(c);
  if (!r) qFatal("rollout: %s", r.error().detail.c_str());
  return *r;
}

const GateOutcome* gate(const StageResult& s, const std::string& id) {
  for (const auto& g : s.gates)
    if (g.id == id) return &g;
  return nullptr;
}

struct Cli {
  int code;
  QByteArray out, err;
};

Cli cli(const QStringList& args) {
  static QTemporaryDir data;  // the embedded endpoint's certificate
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("XDG_DATA_HOME", data.path());
  p.setProcessEnvironment(env);
  p.start(ANTHRO_WB, args);
  p.closeWriteChannel();
  if (!p.waitForFinished(120000)) p.kill();
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(), p.readAllStandardError()};
}

}  // namespace

class TestRollout : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { clean_ = endpoint(); }

  // checklists.md: corrupt-frames → stage 1, utf8-surrogate → 2, max-tokens-u16 → 3 (a
  // context-wait → 4 is in test_rollout_timing, with the other stage-4 cases).
  void faultsFailTheirStage_data() {
    QTest::addColumn<QString>("fault");
    QTest::addColumn<int>("stage");
    QTest::addColumn<QString>("failing");
    QTest::newRow("corrupt-frames") << "corrupt-frames=0.01" << 0 << "frame-drop";
    QTest::newRow("utf8-surrogate") << "utf8-surrogate" << 1 << "utf8";
    QTest::newRow("max-tokens-u16") << "max-tokens-u16" << 2 << "max-tokens";
  }
  void faultsFailTheirStage() {
    QFETCH(QString, fault);
    QFETCH(int, stage);
    QFETCH(QString, failing);
    auto faulty = endpoint({fault.toStdString()});
    RolloutConfig c = config(anthro_v1_plan(), https_baseline(), faulty->endpoint().url("anthro"), stage, 300);
    RolloutResult r = run(c);
    QCOMPARE(r.state, RolloutState::Failed);
    QCOMPARE(r.stopped_at, std::optional<std::size_t>(stage));
    QCOMPARE(r.stages.back().verdict, Verdict::Fail);
    const GateOutcome* g = gate(r.stages.back(), failing.toStdString());
    QVERIFY(g);
    QCOMPARE(g->result.verdict, Verdict::Fail);
    QVERIFY2(r.message.find("failed") != std::string::npos, r.message.c_str());
    QVERIFY(r.rollback);
    QCOMPARE(r.rollback->candidate_sockets_after, 0);

    // The same stage against a clean candidate does not fail.
    RolloutResult ok = run(config(anthro_v1_plan(), https_baseline(), clean_->endpoint().url("anthro"), stage, 300));
    QVERIFY2(ok.stages.back().verdict != Verdict::Fail, rollout_text(ok).c_str());
  }

  // The session-affinity plan against the endpoint emulating session affinity, stage by stage: the
  // candidate's clients hold conversations; the migration gate counts the 409s they followed,
  // the slot gate reads the endpoint's /metrics. With session-migrate on, the migration gate
  // fails; without it, no stage fails and the slot gate passes.
  void sessionAffinityPlanGatesMigration() {
    auto plan = find_plan("session-affinity-four-stages");
    QVERIFY(plan.ok());
    auto affinity_endpoint = [](std::vector<std::string> faults) {
      auto e = std::make_unique<EndpointFixture>(std::move(faults), 20, 1, 12);
      emulate_affinity(e->config()).slot_count = 256;
      e->start();
      return e;
    };
    for (std::size_t stage = 0; stage < plan->stages.size(); ++stage) {
      auto clean = affinity_endpoint({});
      std::string messages = clean->endpoint().url("http") + "/v1/messages";
      RolloutConfig c = config(*plan, messages, messages, stage, 200);
      c.candidate_metrics = [&clean] { return clean->endpoint().metrics_text(); };
      RolloutResult r = run(c);
      QVERIFY2(r.stages.back().verdict != Verdict::Fail, rollout_text(r).c_str());
      const GateOutcome* slot_use = gate(r.stages.back(), "slot-utilisation");
      QVERIFY(slot_use);
      QCOMPARE(slot_use->result.verdict, Verdict::Pass);
      QVERIFY2(slot_use->result.statistic < 0.85, rollout_text(r).c_str());
      if (plan->stages[stage].split >= 0.05) QVERIFY2(slot_use->result.statistic > 0, rollout_text(r).c_str());
      const GateOutcome* migration = gate(r.stages.back(), "migration");
      QVERIFY(migration);
      QVERIFY2(migration->result.verdict != Verdict::Fail, rollout_text(r).c_str());
    }
    // Stage 3 (region, 50 %): a fifth of the sessions migrate; the client follows each 409.
    auto faulty = affinity_endpoint({"session-migrate=0.2"});
    std::string messages = faulty->endpoint().url("http") + "/v1/messages";
    RolloutConfig c = config(*plan, messages, messages, 2, 300);
    c.candidate_metrics = [&faulty] { return faulty->endpoint().metrics_text(); };
    RolloutResult r = run(c);
    QCOMPARE(r.state, RolloutState::Failed);
    const GateOutcome* migration = gate(r.stages.back(), "migration");
    QVERIFY(migration);
    QCOMPARE(migration->result.verdict, Verdict::Fail);
    QVERIFY2(migration->result.statistic > 0.05, rollout_text(r).c_str());
    // Every migrated request was answered in the end: the resend under the new id.
    const GateOutcome* ttft = gate(r.stages.back(), "ttft-p99");
    QVERIFY(ttft && ttft->result.n > 100);
  }

  // 1,000 clean trials cannot prove 99.99 %: one-sided 95 % Wilson with no failure needs 27,053
  // trials in all (checklists.md), so 26,053 more; never a pass.
  void thinDataIsInconclusive() {
    RolloutPlan plan = anthro_v1_plan();
    plan.stages[0].inconclusive_limit = 0;
    RolloutResult r = run(config(plan, https_baseline(), clean_->endpoint().url("anthro"), 0, 1000));
    const GateOutcome* g = gate(r.stages[0], "connection-success");
    QVERIFY(g);
    QCOMPARE(g->result.n, std::size_t{1000});
    QCOMPARE(g->result.statistic, 1.0);
    QCOMPARE(g->result.verdict, Verdict::Inconclusive);
    QCOMPARE(g->result.need_more, std::optional<std::uint64_t>(26053));
    QCOMPARE(r.state, RolloutState::Paused);
    QVERIFY2(r.message.rfind("paused at stage 1 (shadow), need ", 0) == 0, r.message.c_str());
    QVERIFY2(r.message.find("26053 more trials") != std::string::npos, r.message.c_str());
  }

  // The built-in plans' old ids (named after the articles they came from) still find the same
  // plans; an id that is neither a plan nor a file is still refused.
  void oldPlanIdsAreAliases() {
    for (auto [old_id, id] : {std::pair{"seed000-five-stages", "anthro-v1-five-stages"},
                              std::pair{"seed004-four-stages", "session-affinity-four-stages"}}) {
      auto by_old = find_plan(old_id);
      auto by_new = find_plan(id);
      QVERIFY(by_old.ok() && by_new.ok());
      QCOMPARE(by_old->id, std::string(id));
      QCOMPARE(by_old->title.en, by_new->title.en);
      QCOMPARE(by_old->stages.size(), by_new->stages.size());
      QCOMPARE(current_plan_id(old_id), std::string(id));
    }
    QCOMPARE(current_plan_id("my-plan"), std::string("my-plan"));
    auto unknown = find_plan("seed001-five-stages");
    QVERIFY(!unknown.ok());
    QCOMPARE(unknown.error().kind, ErrorClass::Input);
  }

  // A paused stage resumed without promotion pools more samples into the same stage; promoted,
  // the rollout moves on. Both from the JSON a first run wrote, saved under the plan's old id.
  void resumePoolsOrPromotes() {
    RolloutPlan plan = anthro_v1_plan();
    plan.stages[0].inconclusive_limit = 0;
    RolloutConfig c = config(plan, https_baseline(), clean_->endpoint().url("anthro"), 0, 60);
    c.last_stage = 1;
    RolloutResult first = run(c);
    QCOMPARE(first.state, RolloutState::Paused);
    auto saved = nlohmann::json::parse(rollout_json(first));
    saved["plan"]["id"] = "seed000-five-stages";
    auto reread = parse_rollout_result(saved.dump(), "first.json");
    QVERIFY2(reread.ok(), reread.ok() ? "" : reread.error().detail.c_str());
    QCOMPARE(reread->plan_id, std::string("anthro-v1-five-stages"));
    QCOMPARE(reread->stages[0].samples.requests, first.stages[0].samples.requests);
    QCOMPARE(reread->stages[0].samples.ttft_candidate_ms, first.stages[0].samples.ttft_candidate_ms);
    QCOMPARE(reread->stopped_at, std::optional<std::size_t>(0));

    c.resume = *reread;
    RolloutResult pooled = run(c);
    QCOMPARE(pooled.stages.size(), std::size_t{1});
    QCOMPARE(pooled.stages[0].samples.workload, std::uint64_t{120});
    QCOMPARE(gate(pooled.stages[0], "connection-success")->result.n, std::size_t{120});
    QCOMPARE(pooled.state, RolloutState::Paused);

    c.resume = pooled;
    c.promote = true;
    RolloutResult promoted = run(c);
    QCOMPARE(promoted.stages.size(), std::size_t{2});
    QVERIFY(promoted.stages[0].promoted);
    QCOMPARE(promoted.stages[1].name, std::string("canary-read"));

    RolloutControl control;  // rolling back a paused rollout runs nothing more
    control.roll_back = true;
    c.control = &control;
    c.resume = pooled;
    c.promote = false;
    RolloutResult rolled = run(c);
    QCOMPARE(rolled.state, RolloutState::RolledBack);
    QCOMPARE(rolled.stages.back().samples.workload, pooled.stages.back().samples.workload);
    QVERIFY(rolled.rollback);
    QCOMPARE(rolled.rollback->candidate_sockets_after, 0);
    c.control = nullptr;

    c.resume = first;
    c.resume->state = RolloutState::Failed;
    QCOMPARE(run_rollout(c).error().kind, ErrorClass::Usage);  // nothing to resume
  }

  // Stage 5's rehearsal: load on the candidate, switched to the baseline while it runs.
  void rollbackLeavesNothingOpen() {
    RollbackRehearsal r = rehearse_rollback(session(), https_baseline(), clean_->endpoint().url("anthro"), 6, 0.5);
    QCOMPARE(r.sessions, 6u);
    QCOMPARE(r.candidate_sockets_after, 0);
    QVERIFY2(r.fds_after <= r.fds_before, qPrintable(QString("%1 → %2").arg(r.fds_before).arg(r.fds_after)));
    QVERIFY(r.requests_after > 0);
    QCOMPARE(r.failed_after, std::uint64_t{0});
    QVERIFY(r.seconds > 0);
    QVERIFY(r.clean());
  }

  // The leak detector sees a socket left open, and stops seeing it once closed.
  void socketCountSeesALeak() {
    std::string url = clean_->endpoint().url("anthro");
    auto port = static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
    int before = open_fd_count();
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    QCOMPARE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    auto seen = sockets_to_port(port);
    QCOMPARE(seen.size(), std::size_t{1});
    QVERIFY(open_fd_count() > before);  // ours, and the in-process endpoint's accepted side
    ::close(fd);
    QCOMPARE(still_open(seen), std::size_t{0});
  }

  // Each bad input named in the interface's words, no CLI option among them (the CLI adds its
  // own: test_cli), with the input as the error's reason.
  void badInputsAreNamed() {
    const std::string anthro = clean_->endpoint().url("anthro");
    auto refused = [](const RolloutConfig& c, const char* input, const std::string& starts) {
      auto bad = run_rollout(c);
      QVERIFY(!bad.ok());
      QCOMPARE(bad.error().kind, ErrorClass::Usage);
      QCOMPARE(bad.error().reason, std::string(input));
      QVERIFY2(bad.error().detail.rfind(starts, 0) == 0, bad.error().detail.c_str());
      QVERIFY2(bad.error().detail.find("--") == std::string::npos, bad.error().detail.c_str());
    };
    refused(config(anthro_v1_plan(), "ftp://x", anthro, 0, 10), "baseline", "baseline: \"ftp://x\": unknown scheme");
    refused(config(anthro_v1_plan(), https_baseline(), "http://", 0, 10), "candidate", "candidate: \"http://\": no host");
    RolloutConfig c = config(anthro_v1_plan(), https_baseline(), anthro, 0, 10);
    c.regions["eu"] = "gopher://x";
    refused(c, "region", "region eu: \"gopher://x\": unknown scheme");
    c = config(anthro_v1_plan(), https_baseline(), anthro, 7, 10);
    refused(c, "stage", "stage 8: the plan has 5 stages");
    QCOMPARE(run_rollout(c).error().detail, std::string("stage 8: the plan has 5 stages"));
    c = config(anthro_v1_plan(), https_baseline(), anthro, 0, 10);
    c.resume = RolloutResult{};
    c.resume->plan_id = "another-plan";
    refused(c, "resume", "resume: the result is of plan \"another-plan\"");
    c.resume->plan_id = c.plan.id;
    c.resume->state = RolloutState::Passed;
    refused(c, "resume", "resume: nothing to resume, the rollout passed");
    auto json = nlohmann::json::parse(rollout_json(RolloutResult{}));
    json["stages"] = nlohmann::json::array({{{"stage", 1}, {"name", "x"}}});
    auto parsed = parse_rollout_result(json.dump(), "r.json");
    QVERIFY(!parsed.ok());
    QVERIFY2(parsed.error().detail.rfind("r.json: stage 1: field ", 0) == 0, parsed.error().detail.c_str());
    QVERIFY(!parse_rollout_result("{\"kind\": \"rollout\", \"schema_version\": 1, \"plan\": 5}", "r.json").ok());
    QVERIFY(!parse_rollout_result("[", "r.json").ok());
  }

  // cli.md: exit 4 with "paused at stage N, need …", resumable from the --output file; exit 1
  // when a stage fails; 2 for bad usage.
  void cliExitCodes() {
    QTemporaryDir dir;
    QString out = dir.filePath("r.json");
    Cli paused = cli({"rollout", "--stage", "1", "--requests-per-stage", "50", "--output", out, "--quiet"});
    QCOMPARE(paused.code, 4);
    QVERIFY2(paused.err.contains("paused at stage 1 (shadow), need "), paused.err.constData());
    auto saved = parse_rollout_result(read_file(out.toStdString(), file_limit::kResult).value(), "r.json");
    QVERIFY(saved.ok());
    QVERIFY(saved->embedded_endpoint);
    // Its arms compared: the two TTFT samples of stage 1; a stage it does not have is refused.
    Cli arms = cli({"compare", out + "#stage=1,arm=baseline", out + "#stage=1,arm=candidate", "--format", "json"});
    QVERIFY2(arms.code == 0 || arms.code == 1 || arms.code == 4, arms.err.constData());
    auto arms_doc = nlohmann::json::parse(arms.out.toStdString());
    QCOMPARE(arms_doc["figures"].size(), std::size_t(1));
    QCOMPARE(arms_doc["figures"][0]["id"], "ttft_ms");
    QCOMPARE(arms_doc["base"]["requests"], saved->stages[0].samples.ttft_baseline_ms.size());
    Cli no_stage = cli({"compare", out + "#stage=3,arm=baseline", out + "#stage=1,arm=candidate"});
    QCOMPARE(no_stage.code, 2);
    QVERIFY2(no_stage.err.contains("r.json: no stage 3 in this rollout result"), no_stage.err.constData());
    Cli resumed = cli({"rollout", "--resume", out, "--promote", "--format", "json", "--quiet"});
    QCOMPARE(resumed.code, 0);  // stage 1 alone was asked for, and a person let it through
    auto doc = nlohmann::json::parse(resumed.out.toStdString());
    QCOMPARE(doc["state"], "passed");
    QCOMPARE(doc["stages"][0]["promoted"], true);
    QCOMPARE(doc["stages"][0]["gates"][0]["verdict"], "inconclusive");

    auto faulty = endpoint({"corrupt-frames=0.02"});
    Cli failed = cli({"rollout", "--baseline", QString::fromStdString(https_baseline()), "--candidate",
                      QString::fromStdString(faulty->endpoint().url("anthro")), "--insecure", "--stage", "1",
                      "--requests-per-stage", "100", "--plan", "seed000-five-stages", "--format", "json", "--quiet"});
    QCOMPARE(failed.code, 1);
    auto failed_doc = nlohmann::json::parse(failed.out.toStdString());
    QCOMPARE(failed_doc["state"], "failed");
    QCOMPARE(failed_doc["plan"]["id"], "anthro-v1-five-stages");  // an old id names its renamed plan
    QCOMPARE(cli({"rollout", "--stage", "9"}).code, 2);
    QCOMPARE(cli({"rollout", "--promote"}).code, 2);
    QCOMPARE(cli({"rollout", "--plan", "seed001-five-stages"}).code, 2);  // no such plan, old-style or not
    Cli missing = cli({"rollout", "--resume", dir.filePath("none.json")});
    QCOMPARE(missing.code, 2);
    QVERIFY(missing.err.contains("none.json"));

    // The session-affinity plan on the embedded endpoint, its migration fault named on the
    // command line.
    Cli migrated = cli({"rollout", "--plan", "session-affinity-four-stages", "--stage", "3", "--requests-per-stage",
                        "300", "--endpoint-fault", "session-migrate=0.2", "--format", "json", "--quiet"});
    QCOMPARE(migrated.code, 1);
    auto m = nlohmann::json::parse(migrated.out.toStdString());
    QCOMPARE(m["stages"][0]["gates"][0]["id"], "migration");
    QCOMPARE(m["stages"][0]["gates"][0]["verdict"], "fail");
    Cli bad_fault = cli({"rollout", "--endpoint-fault", "session-migrate=2"});
    QCOMPARE(bad_fault.code, 2);
    QVERIFY2(bad_fault.err.contains("session-migrate=2") && bad_fault.err.contains("out of range"), bad_fault.err.constData());
  }

  // Issue 41: a failed stage in 简体中文 — `rollout --lang zh_CN`'s text (gate reasons, the
  // rollback, the outcome) and the zh_CN report of its result — has no English sentence; the
  // result read back keeps the messages beside the English `reason` and `message`.
  void aChineseRolloutHasNoEnglishReason() {
    QTemporaryDir dir;
    const QString out = dir.filePath("r.json");
    auto faulty = endpoint({"corrupt-frames=0.02"});
    Cli failed = cli({"rollout", "--baseline", QString::fromStdString(https_baseline()), "--candidate",
                      QString::fromStdString(faulty->endpoint().url("anthro")), "--insecure", "--stage", "1",
                      "--requests-per-stage", "100", "--lang", "zh_CN", "--output", out});
    QCOMPARE(failed.code, 1);
    // Its event lines on stderr too: the stage's start and verdict, the rollback.
    int events = 0;
    for (const QString& line : QString::fromUtf8(failed.err).split('\n')) {
      if (!line.startsWith("rollout: ")) continue;
      ++events;
      const std::string english = test::english_run(line.mid(9).toStdString());
      QVERIFY2(english.empty(), qPrintable(QString::fromStdString(english) + " in: " + line));
    }
    QVERIFY2(events >= 3, failed.err.constData());
    const QString text = QString::fromUtf8(failed.out);
    QVERIFY2(text.contains(QString::fromUtf8("已回滚")) && text.contains(QString::fromUtf8("回滚：")), failed.out.constData());
    int gates = 0;
    for (const QString& line : text.split('\n')) {
      gates += line.contains(QString::fromUtf8(" — "));
      const std::string english = test::english_run(line.toStdString());
      QVERIFY2(english.empty(), qPrintable(QString::fromStdString(english) + " in: " + line));
    }
    QVERIFY2(gates >= 2, failed.out.constData());

    auto saved = parse_rollout_result(read_file(out.toStdString(), file_limit::kResult).value(), "r.json");
    QVERIFY(saved.ok());
    QVERIFY(!saved->message_text.empty());
    QCOMPARE(render(saved->message_text), saved->message);
    QVERIFY(saved->message.find("failed") != std::string::npos);  // the English stays as it was
    for (const auto& g : saved->stages.at(0).gates) {
      QVERIFY2(!g.result.reason_text.empty(), g.id.c_str());
      QCOMPARE(render(g.result.reason_text), g.result.reason);
      QVERIFY(text.contains(QString::fromStdString(render(g.result.reason_text, "zh_CN"))));
    }

    Cli report = cli({"report", "--lang", "zh_CN", "--to", "md", out, "--output", dir.filePath("r.md")});
    QVERIFY2(report.code == 0, report.err.constData());
    QFile md(dir.filePath("r.md"));
    QVERIFY(md.open(QIODevice::ReadOnly));
    int rows = 0;
    for (const QString& line : QString::fromUtf8(md.readAll()).split('\n')) {
      if (!line.startsWith("| `")) continue;  // the gates' table rows, with their reasons
      ++rows;
      const std::string english = test::english_run(line.toStdString());
      QVERIFY2(english.empty(), qPrintable(QString::fromStdString(english) + " in: " + line));
    }
    QVERIFY(rows >= 2);
  }

  // Two live bench runs at once against two endpoints of the same model (A/A) and one against an
  // endpoint whose TTFT is 1.5 times theirs, each captured on lo. Saved results and captures both:
  // the slower run is worse on ttft_ms (exit 1); the A/A pair is never worse (0, or 4 when the
  // runs are too short to prove it). Run at the same moment, the three share the machine's load.
  void compareLiveRunsAndTheirCaptures() {
    QTemporaryDir dir;
    std::vector<std::unique_ptr<EndpointFixture>> endpoints;
    for (double ttft : {40.0, 40.0, 60.0}) {
      endpoints.push_back(std::make_unique<EndpointFixture>(std::vector<std::string>{}, ttft, 5, 10));
      endpoints.back()->config().model.ttft = {ttft, 4};
      endpoints.back()->start();
    }
    const QStringList names = {"a", "b", "slow"};
    std::vector<std::unique_ptr<LoCapture>> captures;
    std::vector<std::unique_ptr<QProcess>> benches;
    for (int i = 0; i < 3; ++i) {
      const std::string url = endpoints[i]->endpoint().url("anthro");
      const QString keylog = dir.filePath(names[i] + ".keylog");
      captures.push_back(std::make_unique<LoCapture>(url, dir.filePath(names[i] + ".pcapng").toStdString(), keylog.toStdString()));
      QVERIFY2(captures.back()->start(), captures.back()->error().c_str());
      benches.push_back(std::make_unique<QProcess>());
      benches.back()->start(ANTHRO_WB, {"bench", "--target", QString::fromStdString(url), "--insecure", "--keylog", keylog,
                                        "--requests", "120", "--concurrency", "4", "--format", "json"});
    }
    for (int i = 0; i < 3; ++i) {
      QVERIFY(anthro::test::ended_normally(*benches[i], 120000));
      QCOMPARE(benches[i]->exitCode(), 0);
      QFile f(dir.filePath(names[i] + ".json"));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(benches[i]->readAllStandardOutput());
      QVERIFY2(captures[i]->stop().ok(), captures[i]->error().c_str());
    }
    for (const QString& ext : {QString(".json"), QString(".pcapng")}) {
      QStringList keys = {"--keylog", dir.filePath("a.keylog"), "--keylog", dir.filePath("b.keylog"), "--keylog",
                          dir.filePath("slow.keylog")};
      Cli aa = cli(QStringList{"compare", dir.filePath("a" + ext), dir.filePath("b" + ext), "--format", "json"} + keys);
      QVERIFY2(aa.code == 0 || aa.code == 4, qPrintable(ext + ": " + aa.out.left(3000) + aa.err));
      auto aa_doc = nlohmann::json::parse(aa.out.toStdString());
      QCOMPARE(aa_doc["base"]["requests"], 120);
      QVERIFY(aa_doc["figures"].size() >= 6);  // a capture adds the checklist's statistics
      Cli worse = cli(QStringList{"compare", dir.filePath("a" + ext), dir.filePath("slow" + ext)} + keys);
      QVERIFY2(worse.code == 1, qPrintable(ext + ": " + worse.out + worse.err));
      QVERIFY2(worse.out.contains("verdict: worse (ttft_ms"), worse.out.constData());
    }
  }

  // Bad inputs: exit 2 naming the file and what is wrong.
  void compareRefusesBadInputs() {
    QTemporaryDir dir;
    auto write = [&](const char* name, const char* text) {
      QFile f(dir.filePath(name));
      f.open(QIODevice::WriteOnly);
      f.write(text);
      return dir.filePath(name);
    };
    const QString plan = write("plan.json", "{\"id\": \"x\", \"stages\": []}");
    const QString typo = write("typo.json", "{\"kind\": \"session\", \"schema_version\": 1, \"requests\": [{\"ttft_ms\": \"9\"}]}");
    const QString truncated = write("cut.json", "{\"kind\": \"bench\", ");
    const QString missing = dir.filePath("none.json");
    struct Case {
      QStringList args;
      QString says;
    } cases[] = {{{missing, typo}, "none.json"},
                 {{plan, typo}, "plan.json: field kind: expected a saved result"},
                 {{typo, typo}, "typo.json: requests[0].ttft_ms: expected a number or null"},
                 {{truncated, typo}, "cut.json: "},
                 {{plan + "#stage=x,arm=baseline", typo}, "stage: expected a stage number from 1"},
                 {{typo}, "expects two inputs"},
                 {{typo, typo, "--margin", "2"}, "--margin"}};
    for (const Case& c : cases) {
      Cli r = cli(QStringList{"compare"} + c.args);
      QVERIFY2(r.code == 2, qPrintable(c.args.join(' ') + ": " + QString::number(r.code)));
      QVERIFY2(r.err.startsWith("anthro-wb compare: ") && r.err.contains(c.says.toUtf8()), r.err.constData());
    }
  }

 private:
  std::string https_baseline() const { return clean_->endpoint().url("https") + "/v1/messages"; }
  SessionConfig session() const {
    SessionConfig s;
    s.insecure = true;
    s.timeout_s = 20;
    return s;
  }

  std::unique_ptr<EndpointFixture> clean_;
};

QTEST_GUILESS_MAIN(TestRollout)
#include "test_rollout.moc"
