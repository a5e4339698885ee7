#include "metrics/request_figures.h"

#include <algorithm>
#include <iterator>
#include <span>

#include "metrics/stats.h"

namespace anthro {
namespace {

constexpr double kMsPerS = 1000;
constexpr std::size_t kKeptScratch = 64u << 10;  // samples

std::optional<double> ms_between(std::optional<double> from, std::optional<double> to) {
  if (!from || !to) return std::nullopt;
  return (*to - *from) * kMsPerS;
}

// A zero-count frame would open a gap with no token to split it over; it is no token frame.
// The arrivals themselves when none is one (`kept` holds the others).
std::span<const TokenArrival> token_frames(const std::vector<TokenArrival>& arrivals, std::vector<TokenArrival>& kept) {
  auto no_token = [](const TokenArrival& a) { return a.count == 0; };
  if (std::none_of(arrivals.begin(), arrivals.end(), no_token)) return arrivals;
  std::remove_copy_if(arrivals.begin(), arrivals.end(), std::back_inserter(kept), no_token);
  return kept;
}

std::uint64_t count_tokens(std::span<const TokenArrival> frames) {
  std::uint64_t n = 0;
  for (const TokenArrival& f : frames) n += f.count;
  return n;
}

std::optional<double> first_visible(std::span<const TokenArrival> frames) {
  auto it = std::find_if(frames.begin(), frames.end(),
                         [](const TokenArrival& f) { return f.visible; });
  if (it == frames.end()) return std::nullopt;
  return it->t;
}

// Spec §6: a frame of k tokens shares the gap before it evenly, so a batching server that
// sends 4 tokens per frame is not mistaken for one that is 4 times slower per token.
void split_itl_ms(std::span<const TokenArrival> frames, std::uint64_t tokens, std::vector<double>& samples) {
  samples.clear();
  if (frames.size() < 2) return;
  samples.reserve(tokens - frames.front().count);
  for (std::size_t i = 1; i < frames.size(); ++i) {
    double share = (frames[i].t - frames[i - 1].t) * kMsPerS / frames[i].count;
    if (frames[i].count == 1) samples.push_back(share);
    else samples.insert(samples.end(), frames[i].count, share);
  }
}

// The stall is the whole gap, not its per-token share: a reader waited that long.
std::optional<double> max_gap_ms(std::span<const TokenArrival> frames) {
  std::optional<double> widest;
  for (std::size_t i = 1; i < frames.size(); ++i) {
    double gap = (frames[i].t - frames[i - 1].t) * kMsPerS;
    if (!widest || gap > *widest) widest = gap;
  }
  return widest;
}

// summarize()'s mean, p99 and stddev of `samples`, the p99 by a selection rather than its whole
// sort; `samples` is reordered.
void set_itl_figures(RequestFigures& f, std::vector<double>& samples) {
  if (samples.empty()) return;
  f.mean_itl_ms = mean_of(samples);
  f.jitter_ms = population_stddev(samples, *f.mean_itl_ms);
  f.p99_itl_ms = percentile_unsorted(samples, 99);
}

// The ITL figures from samples in a reused per-thread buffer (`fill` puts them there): a
// capture's analysis computes figures for every stream, and a fresh vector apiece cost a malloc
// of over 1 KiB (past glibc's per-thread cache) each time. Not kept past a large one.
template <class Fill>
void itl_figures_in_scratch(RequestFigures& f, Fill fill) {
  thread_local std::vector<double> scratch;
  fill(scratch);
  set_itl_figures(f, scratch);
  if (scratch.capacity() > kKeptScratch) std::vector<double>().swap(scratch);
}

// N counts tokens, not frames: a single frame carrying 3 tokens has N = 3 but last == first.
// A rate over no time is no rate, so token rate and TPOT stay null then, as for N < 2.
void set_rate(RequestFigures& f, std::span<const TokenArrival> frames) {
  if (f.tokens < 2) return;
  double span = frames.back().t - frames.front().t;
  if (!(span > 0)) return;
  auto after_first = static_cast<double>(f.tokens - 1);
  f.tpot_ms = span * kMsPerS / after_first;
  f.tokens_per_s = after_first / span;
}

}  // namespace

RequestFigures compute_figures(const RequestTimeline& timeline, ItlSamples samples) {
  RequestFigures f;
  std::vector<TokenArrival> kept;
  std::span<const TokenArrival> frames = token_frames(timeline.tokens, kept);
  std::optional<double> written = timeline.request_written;
  f.tokens = count_tokens(frames);
  if (!frames.empty()) f.ttft_ms = ms_between(written, frames.front().t);
  f.ttfot_ms = ms_between(written, first_visible(frames));
  f.ttfb_ms = ms_between(written, timeline.first_byte);
  f.time_to_message_start_ms = ms_between(written, timeline.message_start);
  f.e2e_ms = ms_between(written, timeline.end);
  f.cancel_latency_ms = ms_between(timeline.cancel_written, timeline.cancelled_response);
  f.max_gap_ms = max_gap_ms(frames);
  if (samples == ItlSamples::Kept) {
    split_itl_ms(frames, f.tokens, f.itl_ms);
    itl_figures_in_scratch(f, [&](std::vector<double>& s) { s.assign(f.itl_ms.begin(), f.itl_ms.end()); });
  } else {
    itl_figures_in_scratch(f, [&](std::vector<double>& s) { split_itl_ms(frames, f.tokens, s); });
  }
  set_rate(f, frames);
  f.usage_output_tokens = timeline.usage_output_tokens;
  f.usage_mismatch = f.usage_output_tokens && *f.usage_output_tokens != f.tokens;
  return f;
}

// Other tools' conventions. Each definition below was read in that tool's source (stored
// copies of the public repositories, commit named); none was run here. All four read an
// OpenAI-compatible stream, so a "chunk" is one of our token frames, and "content" means
// delta.content, i.e. a visible frame. All four start their clock just before they send the
// request, which this timeline does not see: the reproductions start at request_written,
// so a tool's own TTFT would read higher by the request's send time (and connect, if any).
namespace {

constexpr const char* kClockCaveat =
    " Its clock starts before the request is sent; this starts at request_written.";

// ray-project/llmperf, src/llmperf/ray_clients/openai_chat_completions_client.py @0451d33:
// ttft at the first chunk whose delta.content is non-empty; time_to_next_token holds ttft
// and then each gap between content chunks, and INTER_TOKEN_LAT = their sum.
// token_benchmark_ray.py @004d3af divides that sum by the output token count (its tokenizer
// on the generated text). So its ITL is (last content chunk - start) / N: TTFT included,
// not (e2e - ttft) / (N - 1). requests.post makes a throwaway Session per call (psf/requests
// src/requests/api.py: "with sessions.Session() as session"), so each request opens its own
// connection and its TTFT also holds TCP connect and TLS handshake.
constexpr const char* kLlmperfNote =
    "TTFT to the first chunk with non-empty content. ITL = (TTFT + gaps between content "
    "chunks) / output tokens = (last content chunk - start) / N, so TTFT is inside it; N is "
    "its tokenizer's count of the text, here the visible tokens of the frames. requests.post "
    "opens a new connection per request, so its TTFT also holds connect and TLS handshake.";

// vllm-project/vllm, vllm/benchmarks/lib/endpoint_request_func.py @02cfb53 (openai-chat):
// ttft at the first chunk whose JSON has "choices" - the role-only first chunk qualifies,
// though it carries no token - then one unsplit itl sample per later chunk with "choices"
// (reasoning and finish_reason chunks too). vllm/benchmarks/serve.py @009e6d4
// calculate_metrics pools the itl samples of all requests; TPOT = (latency - ttft) /
// (output_len - 1), output_len from usage.completion_tokens, else its tokenizer.
constexpr const char* kVllmNote =
    "TTFT to the first chunk carrying 'choices': on OpenAI-compatible servers the role-only "
    "chunk (message_start here) although it holds no token. ITL: one unsplit sample per gap "
    "between such chunks, reasoning chunks included; shown is this request's mean, vLLM pools "
    "the samples of all requests. A server that ends with a token-less chunk carrying 'choices' "
    "(finish_reason only) adds one more gap there, which this timeline does not hold. Its TPOT "
    "= (latency - TTFT) / (output tokens - 1).";

// triton-inference-server/perf_analyzer, genai-perf/genai_perf/profile_data_parser/
// llm_profile_data_parser.py @00168fe: responses with empty content are dropped first;
// ttft = first response - request timestamp; inter_token_latency = (request latency - ttft)
// / (output tokens - 1) with request latency ending at the last response, tokens from its
// tokenizer, none for fewer than 2. The older per-response definition (gap / tokens of the
// later response, the README metric table @00afbed) lives on as chunked_inter_token_latency.
constexpr const char* kGenaiPerfNote =
    "TTFT to the first response with non-empty content (the role chunk is dropped). ITL = "
    "(last response - first response) / (output tokens - 1), tokens by its tokenizer, here the "
    "visible tokens of the frames; none for fewer than 2. Older releases defined ITL per "
    "response as the gap / tokens of the later response, as spec 6 does.";

// vllm-project/guidellm, src/guidellm/schemas/request_stats.py @06cef29: TTFT =
// first_token_iteration - request_start; inter_token_latency_ms = (last_token_iteration -
// first_token_iteration) / (output_tokens - 1), none for output_tokens <= 1; output_tokens is
// the server's usage when sent, else token_iterations (one per content line). Its
// time_per_output_token_ms = (last - request_start) / output_tokens includes TTFT.
// backends/openai/http.py @03358ed sets request_start = time.time() just before the stream
// opens. What counts as content was read in backends/response_handlers.py @4398538 (non-empty
// delta.content); later releases moved it to request_handlers.py, not re-checked for
// reasoning or tool-call deltas.
constexpr const char* kGuidellmNote =
    "TTFT to the first line with non-empty content. ITL = (last content chunk - first) / "
    "(output tokens - 1), output tokens = usage when the server sent it, else the number of "
    "content chunks (one token each assumed). Its TPOT = (last - start) / output tokens, TTFT "
    "included. Whether newer releases also count reasoning deltas as content is unchecked.";

struct Chunks {
  std::vector<double> times;
  std::uint64_t tokens = 0;
};

Chunks content_chunks(const RequestTimeline& timeline) {
  Chunks c;
  for (const TokenArrival& a : timeline.tokens) {
    if (a.count == 0 || !a.visible) continue;
    c.times.push_back(a.t);
    c.tokens += a.count;
  }
  return c;
}

ConventionFigures start(const char* tool, const RequestTimeline& timeline,
                        const std::vector<double>& times, const char* note) {
  ConventionFigures f{tool, std::nullopt, std::nullopt, std::string(note) + kClockCaveat};
  if (!times.empty()) f.ttft_ms = (times.front() - timeline.request_written) * kMsPerS;
  return f;
}

// (last - first) / (n - 1), the form GenAI-Perf and GuideLLM share; null for n < 2.
std::optional<double> spread_per_token(const std::vector<double>& times, std::uint64_t n) {
  if (n < 2 || times.empty()) return std::nullopt;
  return (times.back() - times.front()) * kMsPerS / static_cast<double>(n - 1);
}

ConventionFigures llmperf(const RequestTimeline& timeline) {
  Chunks c = content_chunks(timeline);
  ConventionFigures f = start("llmperf", timeline, c.times, kLlmperfNote);
  if (c.tokens == 0) return f;
  double since_written = c.times.back() - timeline.request_written;
  f.itl_ms = since_written * kMsPerS / static_cast<double>(c.tokens);
  return f;
}

ConventionFigures vllm_bench_serve(const RequestTimeline& timeline) {
  std::vector<double> times;
  if (timeline.message_start) times.push_back(*timeline.message_start);
  for (const TokenArrival& a : timeline.tokens)
    if (a.count > 0) times.push_back(a.t);
  ConventionFigures f = start("vLLM bench serve", timeline, times, kVllmNote);
  // The mean of the unsplit gaps telescopes to (last - first) / gaps.
  f.itl_ms = spread_per_token(times, times.size());
  return f;
}

ConventionFigures genai_perf(const RequestTimeline& timeline) {
  Chunks c = content_chunks(timeline);
  ConventionFigures f = start("GenAI-Perf", timeline, c.times, kGenaiPerfNote);
  f.itl_ms = spread_per_token(c.times, c.tokens);
  return f;
}

ConventionFigures guidellm(const RequestTimeline& timeline) {
  Chunks c = content_chunks(timeline);
  ConventionFigures f = start("GuideLLM", timeline, c.times, kGuidellmNote);
  f.itl_ms = spread_per_token(c.times, timeline.usage_output_tokens.value_or(c.times.size()));
  return f;
}

}  // namespace

std::vector<ConventionFigures> other_conventions(const RequestTimeline& timeline) {
  return {llmperf(timeline), vllm_bench_serve(timeline), genai_perf(timeline),
          guidellm(timeline)};
}

}  // namespace anthro
