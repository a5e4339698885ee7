// The endpoint's fault catalogue (checklists.md "Endpoint faults"): one field per fault, each
// of which must make the diagnosis flag exactly its mapped checklist item.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace anthro {

// Rates are fractions 0..1, 0 meaning off. Faults the simulated model does not plan itself
// (ALPN, connection close, cancel handling, CESU-8 text) are read by the endpoint from here.
struct Faults {
  struct Stall {
    double ms = 0;
    std::uint32_t at_token = 0;
    bool operator==(const Stall&) const = default;
  };
  struct TailSpikes {
    double rate = 0;
    double ms = 0;
    bool operator==(const TailSpikes&) const = default;
  };

  bool alpn_downgrade = false;                 // select http/1.1 although anthro-v1 was offered
  bool close_after_response = false;           // one request per connection
  std::optional<double> context_wait_ms;       // timing.context_wait
  bool burst = false;                          // no gaps between tokens
  std::optional<Stall> stall;                  // pause before token `at_token`
  std::optional<double> slow_cancel_ms;        // delay before honouring CANCEL
  bool ignore_cancel = false;                  // never answer CANCEL
  double overload_rate = 0;                    // 429 with retry_after_ms, per request
  double corrupt_frames_rate = 0;              // flipped ciphertext bit, per token frame
  double skip_token_index_rate = 0;            // token_index jumps by one, per token
  std::optional<TailSpikes> tail_spikes;       // TTFT becomes `ms`, per request
  bool max_tokens_u16 = false;                 // the v0.35.1 bug: max_tokens & 0xFFFF
  bool utf8_surrogate = false;                 // 4-byte characters as CESU-8 on anthro-v1
  double reset_mid_stream_rate = 0;            // TCP RST mid-stream, per request
  // The faults a wire format registered from its own folder (register_fault), as given: name →
  // argument ("" for none; a RATE or MS written as the catalogue writes numbers), already
  // checked; its emulation reads them.
  std::map<std::string, std::string, std::less<>> own;

  bool operator==(const Faults&) const = default;
};

// Repeated `--fault NAME[=ARG]` values. Failures have reason "fault" and a detail that quotes
// the spec and says what is wrong (an unknown name lists the valid ones). A fault given twice
// is refused rather than silently overridden.
Result<Faults> parse_faults(const std::vector<std::string>& specs);

// A wire format's own fault, from its folder's registration (before the registry is first
// read): its name, its argument as documented ("" when it takes none; "RATE" and "MS" are kept
// written as the catalogue writes numbers), and what is wrong with a given argument (nullopt
// when nothing is). Listed after the built-in ones, in registration order.
using FaultCheck = std::optional<std::string> (*)(std::string_view argument);
void register_fault(std::string name, std::string syntax, FaultCheck check);
// The catalogue's RATE rule (a fraction 0..1) and MS rule (milliseconds, not negative), for a
// format's own fault that takes one.
std::optional<std::string> check_fault_rate(std::string_view argument);
std::optional<std::string> check_fault_ms(std::string_view argument);
// A format's own RATE fault as given (0 when off).
double own_fault_rate(const Faults& faults, std::string_view name);
// A format's own numeric fault (MS, say) as given; nullopt when off.
std::optional<double> own_fault_number(const Faults& faults, std::string_view name);

// The catalogue's names, in checklists.md order.
std::vector<std::string> fault_names();

// The active faults as they would be written on the command line, space-separated
// ("context-wait=30 stall=800@10"); empty when none is active. parse_faults reads it back.
std::string describe(const Faults& faults);

}  // namespace anthro
