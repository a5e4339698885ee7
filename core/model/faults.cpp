#include "model/faults.h"

#include <charconv>
#include <algorithm>
#include <deque>
#include <set>
#include <stdexcept>
#include <string_view>

#include "model/distribution.h"
#include "profile/profile.h"

namespace anthro {
namespace {

using Problem = std::optional<std::string>;  // what is wrong with an argument, if anything
using Argument = std::optional<std::string>;  // a fault's argument as written, if it is active

std::string quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

std::string number_text(double value) {
  char buffer[32];
  auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  return std::string(buffer, end);
}

Problem read_ms(std::string_view text, double& out) {
  auto value = parse_number(text);
  if (!value) return "MS " + quoted(text) + " is not a number";
  if (*value < 0) return "MS " + quoted(text) + " is negative";
  out = *value;
  return std::nullopt;
}

Problem read_rate(std::string_view text, double& out) {
  auto value = parse_number(text);
  if (!value) return "RATE " + quoted(text) + " is not a number";
  if (*value < 0 || *value > 1)
    return "RATE " + quoted(text) + " is out of range (a fraction 0..1)";
  out = *value;
  return std::nullopt;
}

Problem read_token_index(std::string_view text, std::uint32_t& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    return "TOKEN " + quoted(text) + " is not a token index (0..4294967295)";
  return std::nullopt;
}

Problem read_stall(std::string_view arg, Faults::Stall& out) {
  auto at = arg.find('@');
  if (at == std::string_view::npos) return "expected MS@TOKEN";
  if (auto problem = read_ms(arg.substr(0, at), out.ms)) return problem;
  return read_token_index(arg.substr(at + 1), out.at_token);
}

Problem read_spikes(std::string_view arg, Faults::TailSpikes& out) {
  auto colon = arg.find(':');
  if (colon == std::string_view::npos) return "expected RATE:MS";
  if (auto problem = read_rate(arg.substr(0, colon), out.rate)) return problem;
  return read_ms(arg.substr(colon + 1), out.ms);
}

Argument flag(bool active) { return active ? Argument("") : std::nullopt; }
Argument rate(double value) { return value > 0 ? Argument(number_text(value)) : std::nullopt; }
Argument ms(const std::optional<double>& value) {
  return value ? Argument(number_text(*value)) : std::nullopt;
}

struct Entry {
  const char* name;
  const char* syntax;  // the argument as documented; empty when the fault takes none
  Problem (*set)(Faults&, std::string_view argument);
  Argument (*get)(const Faults&);
};

// Lambdas without captures, so the catalogue stays one table in checklists.md order.
// (emplace(Stall{}), not emplace(): clang 14 judges a nested struct with member initialisers
// not default-constructible, having asked while Faults was still incomplete.)
const Entry kCatalogue[] = {
    {"alpn-downgrade", "",
     [](Faults& f, std::string_view) -> Problem { f.alpn_downgrade = true; return {}; },
     [](const Faults& f) { return flag(f.alpn_downgrade); }},
    {"close-after-response", "",
     [](Faults& f, std::string_view) -> Problem { f.close_after_response = true; return {}; },
     [](const Faults& f) { return flag(f.close_after_response); }},
    {"context-wait", "MS",
     [](Faults& f, std::string_view a) { return read_ms(a, f.context_wait_ms.emplace()); },
     [](const Faults& f) { return ms(f.context_wait_ms); }},
    {"burst", "",
     [](Faults& f, std::string_view) -> Problem { f.burst = true; return {}; },
     [](const Faults& f) { return flag(f.burst); }},
    {"stall", "MS@TOKEN",
     [](Faults& f, std::string_view a) { return read_stall(a, f.stall.emplace(Faults::Stall{})); },
     [](const Faults& f) {
       if (!f.stall) return Argument();
       return Argument(number_text(f.stall->ms) + "@" + std::to_string(f.stall->at_token));
     }},
    {"slow-cancel", "MS",
     [](Faults& f, std::string_view a) { return read_ms(a, f.slow_cancel_ms.emplace()); },
     [](const Faults& f) { return ms(f.slow_cancel_ms); }},
    {"ignore-cancel", "",
     [](Faults& f, std::string_view) -> Problem { f.ignore_cancel = true; return {}; },
     [](const Faults& f) { return flag(f.ignore_cancel); }},
    {"overload", "RATE",
     [](Faults& f, std::string_view a) { return read_rate(a, f.overload_rate); },
     [](const Faults& f) { return rate(f.overload_rate); }},
    {"corrupt-frames", "RATE",
     [](Faults& f, std::string_view a) { return read_rate(a, f.corrupt_frames_rate); },
     [](const Faults& f) { return rate(f.corrupt_frames_rate); }},
    {"skip-token-index", "RATE",
     [](Faults& f, std::string_view a) { return read_rate(a, f.skip_token_index_rate); },
     [](const Faults& f) { return rate(f.skip_token_index_rate); }},
    {"tail-spikes", "RATE:MS",
     [](Faults& f, std::string_view a) { return read_spikes(a, f.tail_spikes.emplace(Faults::TailSpikes{})); },
     [](const Faults& f) {
       if (!f.tail_spikes) return Argument();
       return Argument(number_text(f.tail_spikes->rate) + ":" + number_text(f.tail_spikes->ms));
     }},
    {"max-tokens-u16", "",
     [](Faults& f, std::string_view) -> Problem { f.max_tokens_u16 = true; return {}; },
     [](const Faults& f) { return flag(f.max_tokens_u16); }},
    {"utf8-surrogate", "",
     [](Faults& f, std::string_view) -> Problem { f.utf8_surrogate = true; return {}; },
     [](const Faults& f) { return flag(f.utf8_surrogate); }},
    {"reset-mid-stream", "RATE",
     [](Faults& f, std::string_view a) { return read_rate(a, f.reset_mid_stream_rate); },
     [](const Faults& f) { return rate(f.reset_mid_stream_rate); }},
};

struct OwnEntry {
  std::string name, syntax;
  FaultCheck check;
};

// A deque: the catalogue holds its names' C strings.
std::deque<OwnEntry>& own_entries() {
  static std::deque<OwnEntry> entries;
  return entries;
}

// The built-in catalogue, then the formats' own faults (read once they registered theirs).
const std::vector<Entry>& catalogue() {
  static const std::vector<Entry> all = [] {
    (void)profiles();
    std::vector<Entry> out(std::begin(kCatalogue), std::end(kCatalogue));
    for (const OwnEntry& e : own_entries()) out.push_back({e.name.c_str(), e.syntax.c_str(), nullptr, nullptr});
    return out;
  }();
  return all;
}

const Entry* find_entry(std::string_view name) {
  for (const auto& entry : catalogue())
    if (name == entry.name) return &entry;
  return nullptr;
}

std::string valid_faults() {
  std::string out;
  for (const auto& entry : catalogue()) {
    if (!out.empty()) out += ", ";
    out += entry.name;
    if (*entry.syntax) out += std::string("=") + entry.syntax;
  }
  return out;
}

// A format's own fault, kept as given once its check passed; a number (RATE, MS) as the
// catalogue keeps its own (written back the same way, a rate of 0 off), so describe reads the
// same for either.
Problem set_own(const Entry& entry, Faults& faults, std::string_view argument) {
  const auto& own = own_entries();
  const auto it = std::ranges::find(own, std::string_view(entry.name), &OwnEntry::name);
  if (auto problem = it->check(argument)) return problem;
  if (it->syntax != "RATE" && it->syntax != "MS") {
    faults.own.emplace(entry.name, argument);
    return std::nullopt;
  }
  const double value = parse_number(argument).value_or(0);
  if (it->syntax == "MS" || value > 0) faults.own.emplace(entry.name, number_text(value));
  return std::nullopt;
}

Argument get_own(const Entry& entry, const Faults& faults) {
  const auto it = faults.own.find(std::string_view(entry.name));
  return it == faults.own.end() ? Argument() : Argument(it->second);
}

Problem apply(std::string_view spec, Faults& faults, std::set<std::string_view>& seen) {
  auto equals = spec.find('=');
  std::string_view name = spec.substr(0, equals);
  const Entry* entry = find_entry(name);
  if (!entry) return "unknown fault; valid faults: " + valid_faults();
  bool has_argument = equals != std::string_view::npos;
  if (!*entry->syntax && has_argument) return std::string(entry->name) + " takes no argument";
  if (*entry->syntax && !has_argument)
    return std::string(entry->name) + " needs an argument: " + entry->name + "=" + entry->syntax;
  if (!seen.insert(entry->name).second) return std::string(entry->name) + " is given twice";
  const std::string_view argument = has_argument ? spec.substr(equals + 1) : std::string_view();
  return entry->set ? entry->set(faults, argument) : set_own(*entry, faults, argument);
}

}  // namespace

Result<Faults> parse_faults(const std::vector<std::string>& specs) {
  Faults faults;
  std::set<std::string_view> seen;
  for (const auto& spec : specs)
    if (auto problem = apply(spec, faults, seen))
      return make_error("fault", "--fault " + quoted(spec) + ": " + *problem);
  return faults;
}

void register_fault(std::string name, std::string syntax, FaultCheck check) {
  if (name.empty() || !check || std::ranges::find(own_entries(), name, &OwnEntry::name) != own_entries().end() ||
      std::ranges::any_of(kCatalogue, [&](const Entry& e) { return name == e.name; }))
    throw std::logic_error("register_fault: \"" + name + "\" is empty, unchecked or taken");
  own_entries().push_back({std::move(name), std::move(syntax), check});
}

std::optional<std::string> check_fault_rate(std::string_view argument) {
  double ignored = 0;
  return read_rate(argument, ignored);
}

std::optional<std::string> check_fault_ms(std::string_view argument) {
  double ignored = 0;
  return read_ms(argument, ignored);
}

double own_fault_rate(const Faults& faults, std::string_view name) { return own_fault_number(faults, name).value_or(0); }

std::optional<double> own_fault_number(const Faults& faults, std::string_view name) {
  const auto it = faults.own.find(name);
  return it == faults.own.end() ? std::nullopt : parse_number(it->second);
}

std::vector<std::string> fault_names() {
  std::vector<std::string> names;
  for (const auto& entry : catalogue()) names.emplace_back(entry.name);
  return names;
}

std::string describe(const Faults& faults) {
  std::string out;
  for (const auto& entry : catalogue()) {
    auto argument = entry.get ? entry.get(faults) : get_own(entry, faults);
    if (!argument) continue;
    if (!out.empty()) out += ' ';
    out += entry.name;
    if (!argument->empty()) out += "=" + *argument;
  }
  return out;
}

}  // namespace anthro
