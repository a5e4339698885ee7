// Per-request timing figures of spec §6, from event timestamps in seconds (any epoch: live
// sessions pass a monotonic clock, captures pass packet times), and what other load tools
// would report for the same events.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace anthro {

// One STREAM_TOKEN frame, or one content_block_delta / content chunk on the HTTP path.
struct TokenArrival {
  double t;
  std::uint32_t count;   // tokens this frame carries; a frame with 0 is not a token frame
  bool visible = true;   // false for thinking or tool-input deltas (TTFOT skips them)
  std::uint32_t text_bytes = 0;  // what it added to the record's text, so a replay can send it again
};

struct RequestTimeline {
  // Last byte of REQUEST written (live) / REQUEST complete (capture).
  double request_written = 0;
  std::optional<double> first_byte;          // HTTP only: time to first byte
  std::optional<double> message_start;       // HTTP only: message_start event / role chunk
  std::vector<TokenArrival> tokens;          // in arrival order
  std::optional<double> end;                 // RESPONSE or ERROR decoded
  std::optional<double> cancel_written;
  std::optional<double> cancelled_response;  // RESPONSE with stop_reason cancelled
  std::optional<std::uint64_t> usage_output_tokens;
};

// Durations in milliseconds; a figure whose events were not seen is nullopt (JSON null).
struct RequestFigures {
  std::optional<double> ttft_ms, ttfot_ms, ttfb_ms, time_to_message_start_ms, e2e_ms, tpot_ms,
      tokens_per_s, mean_itl_ms, p99_itl_ms, max_gap_ms, jitter_ms, cancel_latency_ms;
  std::uint64_t tokens = 0;  // N, counted from the frames
  std::optional<std::uint64_t> usage_output_tokens;
  bool usage_mismatch = false;  // usage differs from N: reported, never silently chosen
  std::vector<double> itl_ms;   // the ITL samples
};

// Whether the figures keep their ITL samples (`itl_ms`) or only what is computed from them: a
// capture's analysis computes figures for every stream and keeps no samples unless asked.
enum class ItlSamples { Kept, Dropped };
RequestFigures compute_figures(const RequestTimeline& timeline, ItlSamples samples = ItlSamples::Kept);

// What another tool would report for this request, by that tool's own definitions.
struct ConventionFigures {
  std::string tool;
  std::optional<double> ttft_ms, itl_ms;
  std::string note;  // the definition used, and what this reproduction cannot see
};

// llmperf, vLLM bench serve, GenAI-Perf, GuideLLM, in that order.
std::vector<ConventionFigures> other_conventions(const RequestTimeline& timeline);

}  // namespace anthro
