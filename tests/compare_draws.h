// Sides of a comparison drawn from the simulated model's distributions (model/distribution.h),
// seeded: the requests `compare` judges, without a network. Used by the statistics suite.
#pragma once

#include <functional>
#include <random>

#include "model/distribution.h"
#include "rollout/compare.h"

namespace anthro::test {

struct DrawSpec {
  Distribution ttft{150, 6}, itl{10, 1};
  unsigned tokens = 10;
  double ttft_scale = 1;
  // Applied to each request's TTFT after the scale, with the request's index: a tail change.
  std::function<double(std::size_t, double)> ttft_change;
};

inline CompareInput draw_side(const DrawSpec& spec, std::size_t requests, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  CompareInput in;
  in.file = "drawn-" + std::to_string(seed);
  in.kind = "simulated";
  for (std::size_t i = 0; i < requests; ++i) {
    RequestResult r;
    r.end = RequestEnd::Response;
    double ttft = sample(spec.ttft, rng) * spec.ttft_scale;
    if (spec.ttft_change) ttft = spec.ttft_change(i, ttft);
    double decode = 0;
    for (unsigned t = 1; t < spec.tokens; ++t) {
      r.figures.itl_ms.push_back(sample(spec.itl, rng));
      decode += r.figures.itl_ms.back();
    }
    r.figures.ttft_ms = ttft;
    r.figures.e2e_ms = ttft + decode;
    r.figures.tokens_per_s = spec.tokens / ((ttft + decode) / 1000);
    in.add(r);
  }
  return in;
}

inline const FigureComparison* figure(const Comparison& c, const std::string& id) {
  for (const auto& f : c.figures)
    if (f.id == id) return &f;
  return nullptr;
}

}  // namespace anthro::test
