#include "model/distribution.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

namespace anthro {
namespace {

constexpr double kTwoPi = 6.283185307179586;

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

Error option_error(std::string_view option, std::string_view text, std::string_view problem) {
  return make_error("option", std::string(option) + " \"" + std::string(text) + "\": " +
                                  std::string(problem));
}

// Box-Muller on our own uniforms: std::normal_distribution is not the same on every platform.
double standard_normal(std::mt19937_64& rng) {
  double u1 = 1.0 - unit_uniform(rng);  // (0, 1], so the log is finite
  double u2 = unit_uniform(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
}

// Resampling rather than clamping keeps a spike of zero delays out of the histograms.
// With mean >= 0 at least half of the draws are accepted, so the loop ends quickly.
double truncated_normal(double mean, double stddev, std::mt19937_64& rng) {
  for (int attempt = 0; attempt < 64; ++attempt) {
    double x = mean + stddev * standard_normal(rng);
    if (x >= 0) return x;
  }
  return mean;
}

double lognormal_with_moments(double mean, double stddev, std::mt19937_64& rng) {
  double sigma2 = std::log1p((stddev * stddev) / (mean * mean));
  double mu = std::log(mean) - sigma2 / 2;
  return std::exp(mu + std::sqrt(sigma2) * standard_normal(rng));
}

}  // namespace

std::optional<double> parse_number(std::string_view text) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

Result<Distribution> parse_distribution(std::string_view text, std::string_view option) {
  auto parts = split(text, ':');
  if (parts.size() > 3 || (parts.size() == 3 && parts[2] != "lognormal"))
    return option_error(option, text, "expected MEAN[:STDDEV] or MEAN:STDDEV:lognormal");
  auto mean = parse_number(parts[0]);
  if (!mean) return option_error(option, text, "not a number");
  Distribution d{*mean, 0, parts.size() == 3};
  if (parts.size() >= 2) {
    auto stddev = parse_number(parts[1]);
    if (!stddev)
      return option_error(option, text, "STDDEV \"" + std::string(parts[1]) + "\" is not a number");
    d.stddev_ms = *stddev;
  }
  if (d.mean_ms < 0 || d.stddev_ms < 0)
    return option_error(option, text, "negative values are refused");
  if (d.lognormal && d.mean_ms == 0)
    return option_error(option, text, "lognormal needs MEAN > 0");
  return d;
}

double unit_uniform(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

double sample(const Distribution& d, std::mt19937_64& rng) {
  if (d.stddev_ms <= 0) return std::max(d.mean_ms, 0.0);
  if (d.lognormal && d.mean_ms > 0) return lognormal_with_moments(d.mean_ms, d.stddev_ms, rng);
  return truncated_normal(d.mean_ms, d.stddev_ms, rng);
}

}  // namespace anthro
