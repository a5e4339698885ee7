#include "metrics/slo.h"

#include <charconv>
#include <cmath>
#include <string>

namespace anthro {
namespace {

Error slo_error(std::string_view part, std::string_view what) {
  return make_error(ErrorClass::Usage, "\"" + std::string(part) + "\": " + std::string(what));
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// from_chars, unlike strtod, ignores the locale and accepts no trailing junk.
std::optional<double> parse_ms(std::string_view s) {
  double value = 0;
  const char* end = s.data() + s.size();
  auto [stop, ec] = std::from_chars(s.data(), end, value);
  if (ec != std::errc() || stop != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<double>* objective(Slo& slo, std::string_view name) {
  if (name == "ttft") return &slo.ttft_ms;
  if (name == "tpot") return &slo.tpot_ms;
  if (name == "e2e") return &slo.e2e_ms;
  return nullptr;
}

std::optional<Error> parse_part(Slo& slo, std::string_view part) {
  std::size_t colon = part.find(':');
  if (colon == std::string_view::npos) return slo_error(part, "expected NAME:MS");
  std::optional<double>* target = objective(slo, trim(part.substr(0, colon)));
  if (!target) return slo_error(part, "unknown figure (expected ttft, tpot or e2e)");
  if (*target) return slo_error(part, "given twice");
  std::optional<double> ms = parse_ms(trim(part.substr(colon + 1)));
  if (!ms) return slo_error(part, "not a number");
  if (*ms < 0) return slo_error(part, "negative milliseconds");
  *target = ms;
  return std::nullopt;
}

bool within(std::optional<double> figure, std::optional<double> limit) {
  return !limit || (figure && *figure <= *limit);
}

}  // namespace

Result<Slo> parse_slo(std::string_view text) {
  Slo slo;
  for (;;) {
    std::size_t comma = text.find(',');
    if (std::optional<Error> bad = parse_part(slo, text.substr(0, comma))) return *bad;
    if (comma == std::string_view::npos) return slo;
    text.remove_prefix(comma + 1);
  }
}

bool meets_slo(const RequestFigures& figures, const Slo& slo) {
  // A null TPOT never fails its objective: it is null only when N < 2 or when every token
  // came at the same instant, so no token waited after the first. vLLM bench serve does the
  // same (serve.py calculate_metrics: "if output_len <= 1, we regard tpot as 0 for goodput").
  // A null TTFT or E2E does fail: the event the objective bounds never came.
  bool tpot_ok = !figures.tpot_ms || within(figures.tpot_ms, slo.tpot_ms);
  return tpot_ok && within(figures.ttft_ms, slo.ttft_ms) && within(figures.e2e_ms, slo.e2e_ms);
}

}  // namespace anthro
