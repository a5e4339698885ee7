// Seeded latency distributions for the simulated model: `--ttft-ms` and `--itl-ms`.
#pragma once

#include <optional>
#include <random>
#include <string_view>

#include "util/result.h"

namespace anthro {

// Normal (truncated at 0) unless `lognormal`; both are described by their own mean and stddev.
struct Distribution {
  double mean_ms = 0;
  double stddev_ms = 0;
  bool lognormal = false;
  bool operator==(const Distribution&) const = default;
};

// `MEAN[:STDDEV]` or `MEAN:STDDEV:lognormal`, in milliseconds; `option` names the flag in
// errors (`--ttft-ms "abc": not a number`). Negative values are refused. Reason: "option".
Result<Distribution> parse_distribution(std::string_view text, std::string_view option);

// Never negative. Uses the generator's raw output only (no std:: distributions, whose results
// differ between standard libraries), so a seed gives the same samples everywhere.
double sample(const Distribution& distribution, std::mt19937_64& rng);

// A uniform double in [0, 1) from the generator's raw output.
double unit_uniform(std::mt19937_64& rng);

// The whole text as a finite decimal number, or nullopt (no spaces, no "inf" or "nan").
std::optional<double> parse_number(std::string_view text);

}  // namespace anthro
