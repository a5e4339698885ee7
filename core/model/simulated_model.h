// The local endpoint's deterministic model: what to answer, and when, as pure functions.
// The endpoint does the sleeping, the sockets and the framing; faults that concern the
// connection (ALPN, close, cancel handling, CESU-8 text) it reads from config().faults.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "model/distribution.h"
#include "model/faults.h"
#include "protocol/body.h"

namespace anthro {

struct ModelConfig {
  Distribution ttft{150, 0};
  Distribution itl{10, 0};
  std::uint32_t tokens = 50;  // reply length before max_tokens
  std::uint64_t seed = 1;
  Faults faults;
};

struct ReplyRequest {
  std::string model;
  std::string prompt;  // all message contents and the system prompt, joined
  std::uint32_t max_tokens = 0;  // already resolved to the negotiated default when absent
  std::uint64_t request_number = 0;  // per endpoint, so rate faults vary between requests
  std::optional<std::string> probe;  // the checklist item a probe request feeds (metadata.anthro_probe)
};

struct TokenStep {
  std::string text;  // whole UTF-8 characters, never CESU-8 (see to_cesu8)
  double delay_ms = 0;  // gap before this token; 0 for the first (TTFT is separate)
};

struct ReplyPlan {
  double queue_ms = 0, context_wait_ms = 0, prefill_ms = 0;  // their sum is the TTFT to apply
  std::vector<TokenStep> tokens;  // capped by max_tokens (& 0xFFFF with max-tokens-u16)
  StopReason stop_reason = StopReason::EndTurn;  // max_tokens when capped
  std::uint32_t input_tokens = 0;
  // What the faults decided for this request. With `overload` the endpoint answers 429 and
  // the rest of the plan is unused.
  bool overload = false;
  std::uint32_t retry_after_ms = 0;
  std::optional<std::uint32_t> reset_after_token;  // RST after this many tokens
  std::optional<std::uint32_t> stall_before_token;  // pause stall_ms before this token index
  double stall_ms = 0;
  std::vector<std::uint32_t> skip_index_after;  // token_index jumps by one after these tokens
  std::vector<std::uint32_t> corrupt_token;  // flip a ciphertext bit in these token frames
  // A replayed stream's own end (ReplayModel), when it was not a reply: an error for the stream
  // once `after_tokens` tokens are out (0: after the TTFT, instead of any token), and a reset
  // (reset_after_token) may come once every token is out, as a recorded cut before any token.
  struct Error {
    std::uint16_t code = 500;
    std::uint32_t retry_after_ms = 0;
    std::string message;
    std::uint32_t after_tokens = 0;
  };
  std::optional<Error> error;
  // The recorded error is due once `sent` tokens are out.
  bool error_due(std::size_t sent) const { return error && sent >= error->after_tokens; }
  // The reset is due once `sent` tokens are out.
  bool reset_due(std::size_t sent) const { return reset_after_token && sent >= *reset_after_token; }
};

// When each token of a plan goes out. The gaps run from the first token's moment, not from when
// the previous token went out: a token sent late (a busy event loop, a full socket) does not
// push back every later one, as a real model keeps generating at its own pace, and streams
// made late together do not stay in step, bunching their tokens into bursts.
class TokenSchedule {
 public:
  using Clock = std::chrono::steady_clock;
  explicit TokenSchedule(const ReplyPlan& plan) : plan_(plan) {}
  // Token i's moment, given `now` as token 0 is about to go (its TTFT already waited); nothing
  // when the token goes at once (no stall before the first token, a gap of 0).
  std::optional<Clock::time_point> due(std::size_t i, Clock::time_point now);

 private:
  const ReplyPlan& plan_;
  Clock::time_point due_{};
};

class SimulatedModel {
 public:
  explicit SimulatedModel(ModelConfig config);

  // The text depends on (seed, prompt) only, so every transport and every request number gets
  // the same text; timing and fault decisions are seeded by (seed, prompt, request_number).
  ReplyPlan plan(const ReplyRequest& request) const;
  // The plan's tokens joined: the non-streaming `content`.
  std::string full_text(const ReplyRequest& request) const;
  const ModelConfig& config() const { return config_; }
  // The generator of one decision about one request (a format's own fault, say): seeded, as
  // the model's own decisions are, by (seed, prompt, request_number) and the decision's number,
  // so one decision never moves another. The model's own take 1..7.
  std::mt19937_64 decision_rng(const ReplyRequest& request, std::uint64_t decision) const;

 private:
  std::uint32_t reply_length(std::uint32_t max_tokens) const;
  void plan_ttft(ReplyPlan& plan, const ReplyRequest& request) const;
  void plan_gaps(ReplyPlan& plan, const ReplyRequest& request) const;
  void plan_faults(ReplyPlan& plan, const ReplyRequest& request) const;

  ModelConfig config_;
};

// What a reply's usage counts for a prompt: its whitespace-separated words, at least one.
std::uint32_t input_tokens_of(std::string_view prompt);

// Every text a reply token can have, each once, in a fixed order: a vocabulary for paths that
// send token ids.
std::vector<std::string> model_token_texts();

// utf8-surrogate: every 4-byte character becomes a CESU-8 surrogate pair (6 bytes), which strict
// UTF-8 decoders refuse. Other bytes, valid or not, are copied unchanged.
std::string to_cesu8(std::string_view utf8);

}  // namespace anthro
