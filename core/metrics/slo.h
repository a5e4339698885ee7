// Service-level objectives of `--slo ttft:MS,tpot:MS,e2e:MS` and whether a request met them
// (goodput, spec §6: requests meeting every SLO ÷ duration).
#pragma once

#include <optional>
#include <string_view>

#include "metrics/request_figures.h"
#include "util/result.h"

namespace anthro {

// Milliseconds; an unset objective is not judged.
struct Slo {
  std::optional<double> ttft_ms, tpot_ms, e2e_ms;
  bool operator==(const Slo&) const = default;
};

// Any subset of ttft, tpot, e2e in any order, comma-separated, each NAME:MS with MS a finite
// number ≥ 0; spaces around names and numbers are allowed. Errors (reason "usage") name the
// bad part in no interface's words (`"tpot:abc": not a number`): the CLI puts `--slo: ` before
// it, the GUI marks its SLO field.
Result<Slo> parse_slo(std::string_view text);

// Timing only: a failed request (ERROR, or no RESPONSE) is not good whatever its figures, and
// callers count it out before asking. A figure equal to its objective meets it. A null TTFT
// or E2E fails its objective; a null TPOT (N < 2, or every token at one instant) never does.
bool meets_slo(const RequestFigures& figures, const Slo& slo);

}  // namespace anthro
