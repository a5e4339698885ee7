#include "model/simulated_model.h"

#include <algorithm>
#include <random>
#include <set>
#include <utility>

namespace anthro {
namespace {

// Mixed scripts on purpose: replies must exercise 1-, 2-, 3- and 4-byte UTF-8 so that a path which
// mangles any of them (the rollout's stage 2, canary read) shows up in the response-match gate.
constexpr std::string_view kCorpus = R"(
The first token is the one a person waits for, so the time to first token matters more than
the token rate. A request waits in a queue, then for a GPU context, then for prefill; only
after that does decoding start. Each stage hides latency of its own 🕒 and each one can be
measured if the server reports it. Connections should be reused: a new TLS handshake on the hot
path costs round trips 🐢 that no faster model can win back. When the client reads slowly its
ring buffer fills, the TCP window closes, and tokens arrive in bursts instead of a steady
stream. A cancel that is never sent keeps the GPU busy for nothing 💸 and a cancel honoured
late is almost as bad. Retry after the time the scheduler asks for, not sooner. Le café est
prêt, la réponse arrive déjà: naïve clients ignore the résumé of timings. Über die Leitung
fließen Tokens, señor, mañana también. Ελληνικά γράμματα και русский текст проходят тоже.
你好， 世界！ 模型 正在 生成 回答。 日本語の テキストも 流れます。 한국어 문장도 있습니다.
Arrows → and euros € and ellipses … are three bytes wide. Emoji such as 😀 🚀 🎉 🌍 🤖 🔥 👍
are four bytes, as are the musical symbol 𝄞 and the rare ideograph 𠜎. A rollout moves traffic in stages 📈
and rolls back the moment a gate fails ✅ or stays inconclusive. Tail latency is where users
notice trouble: the ninety-ninth percentile, not the mean, decides whether the service feels
fast 🏁 and a histogram tells more than an average. Frames are encrypted, authenticated and
counted; a single flipped bit is a dropped frame 🧩 and a gap in the token index is a loss the
client can prove. Deterministic replies make two paths comparable byte for byte.
)";

constexpr std::uint32_t kBlock = 20;  // every run of this many tokens holds a 4-byte character

bool has_four_byte(std::string_view word) {
  return std::any_of(word.begin(), word.end(),
                     [](char c) { return static_cast<unsigned char>(c) >= 0xF0; });
}

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  std::size_t start = 0;
  while ((start = text.find_first_not_of(" \n", start)) != std::string_view::npos) {
    std::size_t end = text.find_first_of(" \n", start);
    words.emplace_back(text.substr(start, end - start));
    start = end;
  }
  return words;
}

const std::vector<std::string>& corpus() {
  static const std::vector<std::string> words = split_words(kCorpus);
  return words;
}

const std::vector<std::string>& four_byte_words() {
  static const std::vector<std::string> words = [] {
    std::vector<std::string> out;
    for (const auto& word : corpus())
      if (has_four_byte(word)) out.push_back(word);
    return out;
  }();
  return words;
}

// splitmix64's finaliser: spreads nearby inputs (request 1, 2, 3) over the whole range.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// FNV-1a rather than std::hash, whose values differ between standard libraries.
std::uint64_t hash_text(std::string_view text) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001B3ull;
  return h;
}

// Each decision has its own generator, so switching one fault on does not move the others.
// A format's own decisions take numbers past these (decision_rng).
enum class Draw : std::uint64_t { Timing = 1, Gaps, Spike, Overload, Reset, Skip, Corrupt };

std::uint64_t text_key(std::uint64_t seed, std::string_view prompt) {
  return mix(mix(seed) ^ hash_text(prompt));
}

std::mt19937_64 decision_rng(std::uint64_t seed, const ReplyRequest& request, std::uint64_t decision) {
  std::uint64_t key = mix(text_key(seed, request.prompt) ^ mix(request.request_number));
  return std::mt19937_64(mix(key ^ decision));
}

std::mt19937_64 request_rng(std::uint64_t seed, const ReplyRequest& request, Draw draw) {
  return decision_rng(seed, request, static_cast<std::uint64_t>(draw));
}

std::string separator(std::uint32_t token) { return token == 0 ? "" : " "; }

// One of n (n > 0); the modulo bias is below 2^-32 for the small n used here.
std::size_t pick(std::mt19937_64& rng, std::size_t n) { return rng() % n; }

// Runs of consecutive corpus words with random jumps read like text yet vary per prompt.
// Drawing strictly in token order makes a shorter reply a prefix of a longer one.
std::vector<std::string> reply_tokens(std::uint64_t seed, std::string_view prompt,
                                     std::uint32_t count) {
  std::mt19937_64 rng(text_key(seed, prompt));
  const auto& words = corpus();
  std::vector<std::string> out;
  out.reserve(count);
  std::size_t cursor = pick(rng, words.size());
  std::size_t wide_at = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    if (i % kBlock == 0) wide_at = i + pick(rng, kBlock);
    if (i == wide_at) {
      out.push_back(separator(i) + four_byte_words()[pick(rng, four_byte_words().size())]);
      continue;
    }
    if (pick(rng, 6) == 0) cursor = pick(rng, words.size());
    out.push_back(separator(i) + words[cursor]);
    cursor = (cursor + 1) % words.size();
  }
  return out;
}

std::uint32_t count_words(std::string_view text) {
  std::uint32_t n = 0;
  bool in_word = false;
  for (char c : text) {
    bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (!space && !in_word) ++n;
    in_word = !space;
  }
  return n;
}

void append_three_byte(std::string& out, std::uint32_t unit) {
  out.push_back(static_cast<char>(0xE0 | unit >> 12));
  out.push_back(static_cast<char>(0x80 | (unit >> 6 & 0x3F)));
  out.push_back(static_cast<char>(0x80 | (unit & 0x3F)));
}

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Indices in [0, n) each chosen with probability `rate`.
std::vector<std::uint32_t> pick_tokens(std::mt19937_64 rng, std::uint32_t n, double rate) {
  std::vector<std::uint32_t> picked;
  if (rate <= 0) return picked;
  for (std::uint32_t i = 0; i < n; ++i)
    if (unit_uniform(rng) < rate) picked.push_back(i);
  return picked;
}

}  // namespace

SimulatedModel::SimulatedModel(ModelConfig config) : config_(std::move(config)) {}

std::uint32_t SimulatedModel::reply_length(std::uint32_t max_tokens) const {
  std::uint32_t cap = config_.faults.max_tokens_u16 ? (max_tokens & 0xFFFF) : max_tokens;
  return std::min(config_.tokens, cap);
}

ReplyPlan SimulatedModel::plan(const ReplyRequest& request) const {
  ReplyPlan plan;
  std::uint32_t count = reply_length(request.max_tokens);
  plan.stop_reason = count < config_.tokens ? StopReason::MaxTokens : StopReason::EndTurn;
  plan.input_tokens = input_tokens_of(request.prompt);
  for (auto& text : reply_tokens(config_.seed, request.prompt, count))
    plan.tokens.push_back({std::move(text), 0});
  plan_ttft(plan, request);
  plan_gaps(plan, request);
  plan_faults(plan, request);
  return plan;
}

std::string SimulatedModel::full_text(const ReplyRequest& request) const {
  std::string text;
  std::uint32_t count = reply_length(request.max_tokens);
  for (const auto& token : reply_tokens(config_.seed, request.prompt, count)) text += token;
  return text;
}

void SimulatedModel::plan_ttft(ReplyPlan& plan, const ReplyRequest& request) const {
  auto rng = request_rng(config_.seed, request, Draw::Timing);
  double ttft = sample(config_.ttft, rng);
  plan.queue_ms = 0.1 + 0.9 * unit_uniform(rng);
  double small_wait = 0.05 + 0.45 * unit_uniform(rng);
  plan.context_wait_ms = config_.faults.context_wait_ms.value_or(small_wait);
  if (const auto& spikes = config_.faults.tail_spikes) {
    auto spike_rng = request_rng(config_.seed, request, Draw::Spike);
    if (unit_uniform(spike_rng) < spikes->rate) ttft = spikes->ms;
  }
  plan.prefill_ms = std::max(0.0, ttft - plan.queue_ms - plan.context_wait_ms);
}

void SimulatedModel::plan_gaps(ReplyPlan& plan, const ReplyRequest& request) const {
  if (config_.faults.burst) return;  // every delay stays 0
  auto rng = request_rng(config_.seed, request, Draw::Gaps);
  for (std::size_t i = 1; i < plan.tokens.size(); ++i)
    plan.tokens[i].delay_ms = sample(config_.itl, rng);
}

void SimulatedModel::plan_faults(ReplyPlan& plan, const ReplyRequest& request) const {
  const Faults& faults = config_.faults;
  auto n = static_cast<std::uint32_t>(plan.tokens.size());
  if (auto rng = request_rng(config_.seed, request, Draw::Overload);
      unit_uniform(rng) < faults.overload_rate) {
    plan.overload = true;
    plan.retry_after_ms = 50 + static_cast<std::uint32_t>(pick(rng, 451));  // 50..500 ms
  }
  // Mid-stream means after the first token and before the last, when there is room; a reply of
  // no token has no middle.
  if (auto rng = request_rng(config_.seed, request, Draw::Reset);
      unit_uniform(rng) < faults.reset_mid_stream_rate && n > 0)
    plan.reset_after_token = n <= 1 ? 0 : 1 + static_cast<std::uint32_t>(pick(rng, n - 1));
  if (faults.stall) {
    plan.stall_before_token = faults.stall->at_token;
    plan.stall_ms = faults.stall->ms;
  }
  // A jump after the last token would never be seen, so only the others are eligible.
  plan.skip_index_after = pick_tokens(request_rng(config_.seed, request, Draw::Skip),
                                      n == 0 ? 0 : n - 1, faults.skip_token_index_rate);
  plan.corrupt_token = pick_tokens(request_rng(config_.seed, request, Draw::Corrupt), n,
                                   faults.corrupt_frames_rate);
}

// Whitespace-separated words, and at least one: every message has some framing.
std::uint32_t input_tokens_of(std::string_view prompt) { return std::max<std::uint32_t>(1, count_words(prompt)); }

std::mt19937_64 SimulatedModel::decision_rng(const ReplyRequest& request, std::uint64_t decision) const {
  return anthro::decision_rng(config_.seed, request, decision);
}

std::vector<std::string> model_token_texts() {
  std::vector<std::string> texts;
  std::set<std::string_view> seen;
  for (const auto& word : corpus()) {
    if (!seen.insert(word).second) continue;
    texts.push_back(word);  // a reply's first token has no separator
    texts.push_back(separator(1) + word);
  }
  return texts;
}

std::string to_cesu8(std::string_view utf8) {
  std::string out;
  out.reserve(utf8.size());
  for (std::size_t i = 0; i < utf8.size(); ++i) {
    auto lead = static_cast<unsigned char>(utf8[i]);
    bool four_byte = lead >= 0xF0 && lead <= 0xF4 && i + 3 < utf8.size() &&
                     is_continuation(utf8[i + 1]) && is_continuation(utf8[i + 2]) &&
                     is_continuation(utf8[i + 3]);
    if (!four_byte) {
      out.push_back(utf8[i]);
      continue;
    }
    std::uint32_t cp = (lead & 0x07u) << 18 | (utf8[i + 1] & 0x3Fu) << 12 |
                       (utf8[i + 2] & 0x3Fu) << 6 | (utf8[i + 3] & 0x3Fu);
    append_three_byte(out, 0xD800 + ((cp - 0x10000) >> 10));
    append_three_byte(out, 0xDC00 + ((cp - 0x10000) & 0x3FF));
    i += 3;
  }
  return out;
}

std::optional<TokenSchedule::Clock::time_point> TokenSchedule::due(std::size_t i, Clock::time_point now) {
  double ms = i == 0 ? 0 : std::max(plan_.tokens[i].delay_ms, 0.0);
  if (plan_.stall_before_token && *plan_.stall_before_token == i) ms += plan_.stall_ms;
  if (i == 0) due_ = now;
  due_ += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(ms));
  if (ms <= 0) return std::nullopt;
  return due_;
}

}  // namespace anthro
