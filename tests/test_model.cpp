// The simulated model and the fault catalogue: deterministic text, max_tokens capping, UTF-8
// content, the timing split, and fault decisions that hit their rates.
#include <QFloat16>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <set>

#include "model/distribution.h"
#include "model/faults.h"
#include "model/simulated_model.h"
#include "util/bytes.h"

using namespace anthro;

namespace {

ReplyRequest request(std::string prompt, std::uint32_t max_tokens = 4096,
                     std::uint64_t number = 0) {
  return ReplyRequest{"sim", std::move(prompt), max_tokens, number, {}};
}

bool has_four_byte_char(std::string_view text) {
  for (char c : text)
    if (static_cast<unsigned char>(c) >= 0xF0) return true;
  return false;
}

std::string joined(const ReplyPlan& plan) {
  std::string text;
  for (const auto& token : plan.tokens) text += token.text;
  return text;
}

double ttft_of(const ReplyPlan& plan) {
  return plan.queue_ms + plan.context_wait_ms + plan.prefill_ms;
}

struct Moments {
  double mean = 0, stddev = 0, min = 0;
};

Moments sample_moments(const Distribution& d, int n) {
  std::mt19937_64 rng(42);
  std::vector<double> xs;
  for (int i = 0; i < n; ++i) xs.push_back(sample(d, rng));
  double sum = 0, squares = 0;
  for (double x : xs) sum += x;
  double mean = sum / n;
  for (double x : xs) squares += (x - mean) * (x - mean);
  return {mean, std::sqrt(squares / (n - 1)), *std::min_element(xs.begin(), xs.end())};
}

Faults faults_of(std::vector<std::string> specs) {
  auto parsed = parse_faults(specs);
  if (!parsed) qFatal("%s", parsed.error().detail.c_str());
  return *parsed;
}

SimulatedModel model_with(std::vector<std::string> specs, std::uint32_t tokens = 50) {
  ModelConfig config;
  config.tokens = tokens;
  config.faults = faults_of(std::move(specs));
  return SimulatedModel(config);
}

// The fraction of `requests` plans (distinct request numbers) for which `hit` holds.
template <class Hit>
double request_rate(const SimulatedModel& model, int requests, Hit hit) {
  int hits = 0;
  for (int i = 0; i < requests; ++i) hits += hit(model.plan(request("rate", 4096, i))) ? 1 : 0;
  return double(hits) / requests;
}

std::string fault_error(std::vector<std::string> specs) {
  auto parsed = parse_faults(specs);
  if (parsed) return "(accepted)";
  return parsed.error().reason + ": " + parsed.error().detail;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

class TestModel : public QObject {
  Q_OBJECT
 private slots:
  void distributionForms() {
    QCOMPARE(*parse_distribution("150", "--ttft-ms"), (Distribution{150, 0, false}));
    QCOMPARE(*parse_distribution("150:30", "--ttft-ms"), (Distribution{150, 30, false}));
    QCOMPARE(*parse_distribution("0.5:0.25", "--itl-ms"), (Distribution{0.5, 0.25, false}));
    QCOMPARE(*parse_distribution("100:50:lognormal", "--ttft-ms"), (Distribution{100, 50, true}));
    QCOMPARE(*parse_distribution("0", "--itl-ms"), (Distribution{0, 0, false}));
  }

  void distributionErrors() {
    auto abc = parse_distribution("abc", "--ttft-ms");
    QVERIFY(!abc);
    QCOMPARE(abc.error().reason, std::string("option"));
    QCOMPARE(abc.error().detail, std::string("--ttft-ms \"abc\": not a number"));
    auto detail = [](std::string_view text) {
      auto d = parse_distribution(text, "--itl-ms");
      return d ? std::string("(accepted)") : d.error().detail;
    };
    QCOMPARE(detail("150:x"), std::string("--itl-ms \"150:x\": STDDEV \"x\" is not a number"));
    QVERIFY(contains(detail("-5"), "negative"));
    QVERIFY(contains(detail("150:-1"), "negative"));
    QVERIFY(contains(detail("1:2:normal"), "MEAN:STDDEV:lognormal"));
    QVERIFY(contains(detail("1:2:lognormal:4"), "expected"));
    QVERIFY(contains(detail("0:5:lognormal"), "MEAN > 0"));
    for (auto bad : {"", "150:", " 150", "150ms", "inf", "nan", "1e999"})
      QVERIFY2(contains(detail(bad), "not a number"), bad);
  }

  void normalSamplesHaveTheirMoments() {
    auto m = sample_moments({100, 20, false}, 20000);
    QVERIFY2(std::abs(m.mean - 100) < 1.0, qPrintable(QString::number(m.mean)));
    QVERIFY2(std::abs(m.stddev - 20) < 1.0, qPrintable(QString::number(m.stddev)));
  }

  void normalIsTruncatedAtZero() {
    auto m = sample_moments({0, 10, false}, 20000);
    QVERIFY(m.min >= 0);
    // Half-normal: mean = stddev * sqrt(2 / pi).
    double expected = 10 * std::sqrt(2 / std::numbers::pi);
    QVERIFY2(std::abs(m.mean - expected) < 0.3, qPrintable(QString::number(m.mean)));
    QVERIFY(sample_moments({5, 50, false}, 2000).min >= 0);
  }

  void lognormalSamplesHaveTheirMoments() {
    auto m = sample_moments({100, 50, true}, 20000);
    QVERIFY(m.min > 0);
    QVERIFY2(std::abs(m.mean - 100) < 2.0, qPrintable(QString::number(m.mean)));
    QVERIFY2(std::abs(m.stddev - 50) < 2.5, qPrintable(QString::number(m.stddev)));
  }

  void zeroStddevIsConstant() {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 100; ++i) QCOMPARE(sample({12.5, 0, false}, rng), 12.5);
    QCOMPARE(sample({12.5, 0, true}, rng), 12.5);
  }

  void faultNamesFollowTheCatalogue() {
    std::vector<std::string> expected{
        "alpn-downgrade", "close-after-response", "context-wait",     "burst",
        "stall",          "slow-cancel",          "ignore-cancel",    "overload",
        "corrupt-frames", "skip-token-index",     "tail-spikes",      "max-tokens-u16",
        "utf8-surrogate", "reset-mid-stream", "session-migrate", "hash-python",
        "slot-gc",        "strip-affinity-headers", "token-count-estimate", "ts-degraded",
        "ts-quota",       "ts-failover",    "lz-cut", "lz-resume-repeat", "lz-resume-skip", "lz-ignore-backpressure"};
    QCOMPARE(fault_names(), expected);
  }

  void everyFaultParses() {
    QCOMPARE(parse_faults({})->alpn_downgrade, false);
    QCOMPARE(describe(*parse_faults({})), std::string());
    QVERIFY(faults_of({"alpn-downgrade"}).alpn_downgrade);
    QVERIFY(faults_of({"close-after-response"}).close_after_response);
    QCOMPARE(faults_of({"context-wait=30"}).context_wait_ms, std::optional<double>(30));
    QVERIFY(faults_of({"burst"}).burst);
    QCOMPARE(faults_of({"stall=800@10"}).stall, (std::optional<Faults::Stall>({800, 10})));
    QCOMPARE(faults_of({"slow-cancel=50"}).slow_cancel_ms, std::optional<double>(50));
    QVERIFY(faults_of({"ignore-cancel"}).ignore_cancel);
    QCOMPARE(faults_of({"overload=0.2"}).overload_rate, 0.2);
    QCOMPARE(faults_of({"corrupt-frames=0.01"}).corrupt_frames_rate, 0.01);
    QCOMPARE(faults_of({"skip-token-index=0.01"}).skip_token_index_rate, 0.01);
    QCOMPARE(faults_of({"tail-spikes=0.03:3800"}).tail_spikes,
             (std::optional<Faults::TailSpikes>({0.03, 3800})));
    QVERIFY(faults_of({"max-tokens-u16"}).max_tokens_u16);
    QVERIFY(faults_of({"utf8-surrogate"}).utf8_surrogate);
    QCOMPARE(faults_of({"reset-mid-stream=0.05"}).reset_mid_stream_rate, 0.05);
    QCOMPARE(faults_of({"overload=0", "reset-mid-stream=1"}).reset_mid_stream_rate, 1.0);
    QCOMPARE(own_fault_rate(faults_of({"session-migrate=0.1"}), "session-migrate"), 0.1);
    QVERIFY(faults_of({"hash-python"}).own.contains("hash-python"));
    QCOMPARE(own_fault_number(faults_of({"slot-gc=250"}), "slot-gc"), std::optional<double>(250));
    QVERIFY(faults_of({"strip-affinity-headers"}).own.contains("strip-affinity-headers"));
    QVERIFY(faults_of({"token-count-estimate"}).own.contains("token-count-estimate"));
    // A format's own faults (register_fault) are kept as given, for its emulation to read.
    QCOMPARE(faults_of({"lz-cut=3"}).own, (std::map<std::string, std::string, std::less<>>{{"lz-cut", "3"}}));
    QCOMPARE(faults_of({"lz-resume-repeat", "lz-resume-skip"}).own.size(), std::size_t(2));
    QVERIFY(faults_of({"lz-ignore-backpressure"}).own.contains("lz-ignore-backpressure"));
  }

  void describeWritesTheCommandLine() {
    std::vector<std::string> all{"alpn-downgrade",   "close-after-response", "context-wait=30",
                                 "burst",            "stall=800@10",         "slow-cancel=50",
                                 "ignore-cancel",    "overload=0.2",         "corrupt-frames=0.01",
                                 "skip-token-index=0.01", "tail-spikes=0.03:3800", "max-tokens-u16",
                                 "utf8-surrogate",   "reset-mid-stream=0.05", "session-migrate=0.1",
                                 "hash-python",      "slot-gc=250",          "strip-affinity-headers",
                                 "token-count-estimate", "lz-cut=3", "lz-resume-repeat", "lz-resume-skip",
                                 "lz-ignore-backpressure"};
    std::string line;
    for (const auto& spec : all) line += (line.empty() ? "" : " ") + spec;
    Faults faults = faults_of(all);
    QCOMPARE(describe(faults), line);
    QCOMPARE(describe(faults_of({"stall=12.5@0", "burst"})), std::string("burst stall=12.5@0"));
    // A format's own RATE and MS are written back as the catalogue writes numbers; a rate of 0 is off.
    QCOMPARE(describe(faults_of({"slot-gc=250.0", "session-migrate=0.10", "overload=0"})),
             std::string("session-migrate=0.1 slot-gc=250"));
    QCOMPARE(describe(faults_of({"session-migrate=0"})), std::string());
    // Read back from the description, each spec gives the same faults.
    QStringList back = QString::fromStdString(describe(faults)).split(' ');
    std::vector<std::string> specs;
    for (const auto& spec : back) specs.push_back(spec.toStdString());
    QVERIFY(faults_of(specs) == faults);
  }

  void faultErrorsSayWhatIsWrong() {
    std::string unknown = fault_error({"burst", "slow-start"});
    QVERIFY(contains(unknown, "fault: --fault \"slow-start\": unknown fault"));
    for (const auto& name : fault_names()) QVERIFY2(contains(unknown, name), name.c_str());
    QVERIFY(contains(unknown, "stall=MS@TOKEN") && contains(unknown, "tail-spikes=RATE:MS"));
    QVERIFY(contains(fault_error({""}), "--fault \"\": unknown fault"));
    QVERIFY(contains(fault_error({"burst=1"}), "\"burst=1\": burst takes no argument"));
    QVERIFY(contains(fault_error({"max-tokens-u16="}), "takes no argument"));
    QVERIFY(contains(fault_error({"overload"}),
                     "\"overload\": overload needs an argument: overload=RATE"));
    QVERIFY(contains(fault_error({"context-wait"}), "context-wait=MS"));
    QVERIFY(contains(fault_error({"stall"}), "stall=MS@TOKEN"));
    QVERIFY(contains(fault_error({"tail-spikes"}), "tail-spikes=RATE:MS"));
    QVERIFY(contains(fault_error({"overload=1.5"}),
                     "RATE \"1.5\" is out of range (a fraction 0..1)"));
    QVERIFY(contains(fault_error({"reset-mid-stream=-0.1"}), "out of range"));
    QVERIFY(contains(fault_error({"corrupt-frames=often"}), "RATE \"often\" is not a number"));
    QVERIFY(contains(fault_error({"skip-token-index="}), "RATE \"\" is not a number"));
    QVERIFY(contains(fault_error({"context-wait=-3"}), "MS \"-3\" is negative"));
    QVERIFY(contains(fault_error({"slow-cancel=soon"}), "MS \"soon\" is not a number"));
    QVERIFY(contains(fault_error({"stall=800"}), "\"stall=800\": expected MS@TOKEN"));
    QVERIFY(contains(fault_error({"stall=x@10"}), "MS \"x\" is not a number"));
    QVERIFY(contains(fault_error({"stall=800@-1"}), "TOKEN \"-1\" is not a token index"));
    QVERIFY(contains(fault_error({"stall=800@4294967296"}), "is not a token index"));
    QVERIFY(contains(fault_error({"lz-cut=0"}), "N \"0\" is not a count of frames"));
    QVERIFY(contains(fault_error({"lz-cut=2x"}), "N \"2x\" is not a count of frames"));
    QVERIFY(contains(fault_error({"lz-cut"}), "lz-cut=N"));
    QVERIFY(contains(fault_error({"tail-spikes=0.03"}), "expected RATE:MS"));
    QVERIFY(contains(fault_error({"tail-spikes=3:3800"}), "RATE \"3\" is out of range"));
    QVERIFY(contains(fault_error({"tail-spikes=0.03:x"}), "MS \"x\" is not a number"));
    QVERIFY(contains(fault_error({"overload=0.1", "overload=0.2"}),
                     "\"overload=0.2\": overload is given twice"));
  }

  void textDependsOnSeedAndPromptOnly() {
    SimulatedModel model(ModelConfig{});
    std::string text = model.full_text(request("hello"));
    QVERIFY(!text.empty());
    for (std::uint64_t n : {0ull, 1ull, 2ull, 999ull, 1ull << 40}) {
      QCOMPARE(model.full_text(request("hello", 4096, n)), text);
      QCOMPARE(joined(model.plan(request("hello", 4096, n))), text);
    }
    QCOMPARE(SimulatedModel(ModelConfig{}).full_text(request("hello")), text);
    ModelConfig other_seed;
    other_seed.seed = 2;
    QVERIFY(SimulatedModel(other_seed).full_text(request("hello")) != text);
    QVERIFY(model.full_text(request("hello!")) != text);
    std::set<std::string> distinct;
    for (int i = 0; i < 50; ++i) distinct.insert(model.full_text(request("p" + std::to_string(i))));
    QCOMPARE(distinct.size(), std::size_t{50});
  }

  void faultsDoNotChangeText() {
    SimulatedModel clean(ModelConfig{});
    SimulatedModel faulty = model_with({"burst", "overload=0.5", "corrupt-frames=0.5",
                                        "skip-token-index=0.5", "reset-mid-stream=0.5",
                                        "tail-spikes=0.5:900", "stall=100@3", "utf8-surrogate"});
    for (int n = 0; n < 20; ++n)
      QCOMPARE(faulty.full_text(request("same", 4096, n)), clean.full_text(request("same")));
  }

  void shorterReplyIsAPrefix() {
    SimulatedModel model(ModelConfig{});
    std::string full = model.full_text(request("prefix"));
    for (std::uint32_t cap : {1u, 2u, 19u, 20u, 21u, 49u}) {
      auto plan = model.plan(request("prefix", cap));
      QCOMPARE(plan.tokens.size(), std::size_t{cap});
      QCOMPARE(plan.stop_reason, StopReason::MaxTokens);
      QVERIFY(full.rfind(joined(plan), 0) == 0);
    }
  }

  void maxTokensCapsTheReply() {
    SimulatedModel model(ModelConfig{});
    auto uncapped = model.plan(request("cap", 100));
    QCOMPARE(uncapped.tokens.size(), std::size_t{50});
    QCOMPARE(uncapped.stop_reason, StopReason::EndTurn);
    QCOMPARE(model.plan(request("cap", 50)).stop_reason, StopReason::EndTurn);
    QCOMPARE(model.plan(request("cap", 0xFFFFFFFFu)).tokens.size(), std::size_t{50});
    QCOMPARE(model.plan(request("cap", 65538)).tokens.size(), std::size_t{50});
  }

  void maxTokensIsAFullU32() {
    ModelConfig config;
    config.tokens = 70000;
    SimulatedModel model(config);
    auto plan = model.plan(request("long", 65538));
    QCOMPARE(plan.tokens.size(), std::size_t{65538});
    QCOMPARE(plan.stop_reason, StopReason::MaxTokens);
    QCOMPARE(model.plan(request("long", 0xFFFFFFFFu)).stop_reason, StopReason::EndTurn);
  }

  void maxTokensU16TruncatesOnlyWithTheFault() {
    auto model = model_with({"max-tokens-u16"});
    auto plan = model.plan(request("probe", 65538));
    QCOMPARE(plan.tokens.size(), std::size_t{2});
    QCOMPARE(plan.stop_reason, StopReason::MaxTokens);
    QCOMPARE(model.full_text(request("probe", 65538)),
             SimulatedModel(ModelConfig{}).full_text(request("probe", 2)));
    QCOMPARE(model.plan(request("probe", 65535)).tokens.size(), std::size_t{50});
    QCOMPARE(model.plan(request("probe", 30)).tokens.size(), std::size_t{30});
    QCOMPARE(SimulatedModel(ModelConfig{}).plan(request("probe", 65538)).tokens.size(),
             std::size_t{50});
  }

  void tokensAreWholeUtf8Characters() {
    SimulatedModel model(ModelConfig{});
    int with_non_ascii = 0;
    for (int i = 0; i < 200; ++i) {
      auto plan = model.plan(request("utf8 " + std::to_string(i), 50));
      QCOMPARE(plan.tokens.size(), std::size_t{50});
      for (const auto& token : plan.tokens) {
        QVERIFY2(!token.text.empty() && is_valid_utf8(as_bytes(token.text)), token.text.c_str());
        with_non_ascii += std::any_of(token.text.begin(), token.text.end(),
                                      [](char c) { return c & 0x80; });
      }
      QVERIFY(has_four_byte_char(joined(plan)));
    }
    QVERIFY(with_non_ascii > 200);
  }

  void everyReplyOfTwentyTokensHasAFourByteChar() {
    ModelConfig config;
    config.tokens = 20;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      config.seed = seed;
      SimulatedModel model(config);
      for (int i = 0; i < 50; ++i)
        QVERIFY(has_four_byte_char(model.full_text(request("q" + std::to_string(i)))));
    }
  }

  void corpusCoversEveryUtf8Width() {
    std::string all;
    SimulatedModel model(ModelConfig{});
    for (int i = 0; i < 100; ++i) all += model.full_text(request(std::to_string(i)));
    std::set<int> widths;
    for (unsigned char c : all) {
      if (c < 0x80) widths.insert(1);
      else if (c >= 0xF0) widths.insert(4);
      else if (c >= 0xE0) widths.insert(3);
      else if (c >= 0xC0) widths.insert(2);
    }
    QCOMPARE(widths, (std::set<int>{1, 2, 3, 4}));
  }

  void cesu8SplitsFourByteCharacters() {
    std::string cesu = to_cesu8("\xF0\x9F\x98\x80");  // U+1F600
    QCOMPARE(to_hex(as_bytes(cesu)), std::string("eda0bdedb880"));
    QVERIFY(!is_valid_utf8(as_bytes(cesu)));
    // U+1D11E, the musical symbol G clef.
    QCOMPARE(to_hex(as_bytes(to_cesu8("\xF0\x9D\x84\x9E"))), std::string("eda0b4edb49e"));
  }

  // Every invalid sequence is found wherever it sits among ASCII (the check reads ASCII sixteen
  // and eight bytes at a time, its last block overlapping the one before), and valid characters
  // are accepted there.
  void utf8CheckFindsEveryBadSequenceAtEveryOffset() {
    const std::vector<std::string> bad = {"\x80", "\xC0\x80", "\xC1\xBF", "\xE0\x80\x80", "\xED\xA0\x80",
                                          "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xE4\xBD", "\xFF"};
    const std::vector<std::string> good = {"\xC3\xA9", "\xE4\xBD\xA0", "\xF0\x9F\x98\x80", "\xEF\xBF\xBD"};
    for (std::size_t before = 0; before <= 40; ++before)
      for (std::size_t after : {0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 33}) {
        const std::string head(before, 'a'), tail(after, 'z');
        for (const auto& b : bad) QVERIFY2(!is_valid_utf8(as_bytes(head + b + tail)), (to_hex(as_bytes(b)) + " at " + std::to_string(before)).c_str());
        for (const auto& g : good) QVERIFY2(is_valid_utf8(as_bytes(head + g + tail)), (to_hex(as_bytes(g)) + " at " + std::to_string(before)).c_str());
      }
    QVERIFY(is_valid_utf8(as_bytes(std::string(64, 'q'))));
    QVERIFY(!is_valid_utf8(as_bytes(std::string(63, 'q') + "\xC3")));  // cut at the very end
  }

  void cesu8LeavesOtherTextAlone() {
    std::string text = "abc caf\xC3\xA9 \xE4\xBD\xA0\xE5\xA5\xBD";
    QCOMPARE(to_cesu8(text), text);
    std::string broken = "x\xF0\x9F\x98";  // a truncated sequence passes through
    QCOMPARE(to_cesu8(broken), broken);
    auto plan = SimulatedModel(ModelConfig{}).plan(request("emoji"));
    std::string reply = joined(plan);
    std::string cesu = to_cesu8(reply);
    QVERIFY(cesu.size() > reply.size());
    QVERIFY(!is_valid_utf8(as_bytes(cesu)));
  }

  void ttftIsSplitIntoStages() {
    SimulatedModel model(ModelConfig{});  // ttft 150:0, itl 10:0
    for (int n = 0; n < 100; ++n) {
      auto plan = model.plan(request("timing", 4096, n));
      QVERIFY(plan.queue_ms >= 0.1 && plan.queue_ms <= 1.0);
      QVERIFY(plan.context_wait_ms > 0 && plan.context_wait_ms < 1.0);
      QVERIFY(std::abs(ttft_of(plan) - 150) < 1e-9);
      QCOMPARE(plan.tokens.front().delay_ms, 0.0);
      for (std::size_t i = 1; i < plan.tokens.size(); ++i) QCOMPARE(plan.tokens[i].delay_ms, 10.0);
    }
  }

  void timingIsReproduciblePerRequest() {
    ModelConfig config;
    config.ttft = {150, 40};
    config.itl = {10, 3};
    SimulatedModel model(config);
    auto first = model.plan(request("again", 4096, 7));
    auto second = SimulatedModel(config).plan(request("again", 4096, 7));
    QCOMPARE(ttft_of(first), ttft_of(second));
    for (std::size_t i = 0; i < first.tokens.size(); ++i)
      QCOMPARE(first.tokens[i].delay_ms, second.tokens[i].delay_ms);
    QVERIFY(ttft_of(model.plan(request("again", 4096, 8))) != ttft_of(first));
    std::vector<double> ttfts;
    for (int n = 0; n < 2000; ++n) ttfts.push_back(ttft_of(model.plan(request("again", 4096, n))));
    double mean = std::accumulate(ttfts.begin(), ttfts.end(), 0.0) / ttfts.size();
    QVERIFY2(std::abs(mean - 150) < 4, qPrintable(QString::number(mean)));
  }

  void contextWaitFault() {
    auto plan = model_with({"context-wait=30"}).plan(request("ctx"));
    QCOMPARE(plan.context_wait_ms, 30.0);
    QVERIFY(std::abs(ttft_of(plan) - 150) < 1e-9);
    auto slow = model_with({"context-wait=400"}).plan(request("ctx"));
    QCOMPARE(slow.prefill_ms, 0.0);  // the wait is longer than the TTFT: it wins
    QVERIFY(ttft_of(slow) > 400);
  }

  void burstAndStall() {
    auto burst = model_with({"burst"}).plan(request("b"));
    for (const auto& token : burst.tokens) QCOMPARE(token.delay_ms, 0.0);
    auto stall = model_with({"stall=800@10"}).plan(request("s"));
    QCOMPARE(stall.stall_before_token, std::optional<std::uint32_t>(10));
    QCOMPARE(stall.stall_ms, 800.0);
  }

  // The gaps run from token 0's moment: when a token is asked for late, the next is still due
  // at its own moment, not a whole gap after the late one.
  void scheduleKeepsTheModelsPace() {
    using namespace std::chrono_literals;
    ReplyPlan plan;
    for (double gap : {0.0, 10.0, 10.0, 0.0, 10.0, -5.0}) plan.tokens.push_back({"x", gap});
    plan.stall_before_token = 2;
    plan.stall_ms = 5;
    TokenSchedule schedule(plan);
    const auto t0 = TokenSchedule::Clock::now();
    QVERIFY(!schedule.due(0, t0));                         // token 0 goes at once
    QCOMPARE(schedule.due(1, t0 + 3ms), t0 + 10ms);        // `now` only anchors token 0
    QCOMPARE(schedule.due(2, t0 + 30ms), t0 + 25ms);       // asked late: due in the past, not at 40
    QVERIFY(!schedule.due(3, t0 + 31ms));                  // a gap of 0 goes at once
    QCOMPARE(schedule.due(4, t0 + 31ms), t0 + 35ms);
    QVERIFY(!schedule.due(5, t0 + 36ms));                  // a negative gap is none
    plan.stall_before_token = 0;
    TokenSchedule stalled(plan);
    QCOMPARE(stalled.due(0, t0), t0 + 5ms);                // a stall before the first token delays it
    QCOMPARE(stalled.due(1, t0 + 5ms), t0 + 15ms);
  }

  void cleanPlanHasNoFaults() {
    SimulatedModel model(ModelConfig{});
    for (int n = 0; n < 200; ++n) {
      auto plan = model.plan(request("clean", 4096, n));
      QVERIFY(!plan.overload && plan.retry_after_ms == 0);
      QVERIFY(!plan.reset_after_token && !plan.stall_before_token);
      QVERIFY(plan.skip_index_after.empty() && plan.corrupt_token.empty());
      QVERIFY(ttft_of(plan) < 200);
    }
  }

  void tailSpikesHitTheirRate() {
    auto model = model_with({"tail-spikes=0.03:3800"});
    double rate = request_rate(model, 10000, [](const ReplyPlan& p) {
      return std::abs(ttft_of(p) - 3800) < 1e-6;
    });
    QVERIFY2(std::abs(rate - 0.03) < 0.006, qPrintable(QString::number(rate)));
  }

  void overloadHitsItsRate() {
    auto model = model_with({"overload=0.2"});
    double rate = request_rate(model, 10000, [](const ReplyPlan& p) {
      if (p.overload && (p.retry_after_ms < 50 || p.retry_after_ms > 500))
        qFatal("retry_after_ms out of range");
      return p.overload;
    });
    QVERIFY2(std::abs(rate - 0.2) < 0.015, qPrintable(QString::number(rate)));
    std::set<std::uint32_t> estimates;
    for (int n = 0; n < 200; ++n) {
      auto plan = model.plan(request("o", 4096, n));
      if (!plan.overload) continue;
      estimates.insert(plan.retry_after_ms);
      QCOMPARE(model.plan(request("o", 4096, n)).retry_after_ms, plan.retry_after_ms);
    }
    QVERIFY(estimates.size() > 10);  // an estimate per request, not a fixed back-off
  }

  void resetMidStreamHitsItsRate() {
    auto model = model_with({"reset-mid-stream=0.05"});
    double rate = request_rate(model, 10000, [](const ReplyPlan& p) {
      auto at = p.reset_after_token;
      if (at && (*at < 1 || *at >= p.tokens.size())) qFatal("reset outside the stream");
      return p.reset_after_token.has_value();
    });
    QVERIFY2(std::abs(rate - 0.05) < 0.008, qPrintable(QString::number(rate)));
  }

  void perTokenFaultsHitTheirRate() {
    auto model = model_with({"skip-token-index=0.01", "corrupt-frames=0.02"});
    std::size_t skipped = 0, corrupted = 0, requests = 4000;
    for (std::size_t n = 0; n < requests; ++n) {
      auto plan = model.plan(request("tokens", 4096, n));
      for (auto i : plan.skip_index_after) QVERIFY(i + 1 < plan.tokens.size());
      for (auto i : plan.corrupt_token) QVERIFY(i < plan.tokens.size());
      skipped += plan.skip_index_after.size();
      corrupted += plan.corrupt_token.size();
    }
    double skip_rate = double(skipped) / (requests * 49);
    double corrupt_rate = double(corrupted) / (requests * 50);
    QVERIFY2(std::abs(skip_rate - 0.01) < 0.001, qPrintable(QString::number(skip_rate)));
    QVERIFY2(std::abs(corrupt_rate - 0.02) < 0.0015, qPrintable(QString::number(corrupt_rate)));
  }

  void inputTokensCountPromptWords() {
    SimulatedModel model(ModelConfig{});
    QCOMPARE(model.plan(request("one two  three\nfour")).input_tokens, 4u);
    QCOMPARE(model.plan(request("")).input_tokens, 1u);
  }
};

QTEST_GUILESS_MAIN(TestModel)
#include "test_model.moc"
