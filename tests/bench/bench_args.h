// The options every benchmark takes: --json (one line) and --quick (a smoke run), and any
// numeric options of its own.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>

namespace anthro::bench {

struct BenchArgs {
  bool json = false;
  bool quick = false;
};

// A bench's own `--name N` (a positive number), written into `value` when given.
struct NumberOption {
  const char* name;
  const char* help;
  double* value;
};

// A bench's own `--name` switch, set to true when given.
struct FlagOption {
  const char* name;
  const char* help;
  bool* value;
};

// A positive number and nothing else, or 0.
inline double positive_number(const char* text) {
  char* end = nullptr;
  double v = std::strtod(text, &end);
  return end != text && *end == 0 && v > 0 ? v : 0;
}

// Exits with 0 after --help and with 2 after an unknown argument or a bad number, printing
// the usage.
inline BenchArgs parse_bench_args(int argc, char** argv, const char* name,
                                  std::initializer_list<NumberOption> numbers = {},
                                  std::initializer_list<FlagOption> flags = {}) {
  BenchArgs args;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    const NumberOption* number = nullptr;
    const FlagOption* flag = nullptr;
    for (const auto& n : numbers)
      if (a == n.name) number = &n;
    for (const auto& f : flags)
      if (a == f.name) flag = &f;
    if (flag) {
      *flag->value = true;
    } else if (a == "--json") {
      args.json = true;
    } else if (a == "--quick") {
      args.quick = true;
    } else if (number && i + 1 < argc && positive_number(argv[i + 1]) > 0) {
      *number->value = positive_number(argv[++i]);
    } else {
      bool help = a == "--help" || a == "-h";
      if (!help) std::fprintf(stderr, "%s: %s '%s'\n", name, number ? "expected a positive number after" : "unknown argument", argv[i]);
      std::string usage = std::string("usage: ") + name + " [--json] [--quick]";
      for (const auto& n : numbers) usage += std::string(" [") + n.name + " N]";
      for (const auto& f : flags) usage += std::string(" [") + f.name + "]";
      std::fprintf(help ? stdout : stderr,
                   "%s\n"
                   "  --json   print one JSON line: {\"figures\": {...}, \"ratios\": {...}}\n"
                   "  --quick  a short smoke run\n",
                   usage.c_str());
      for (const auto& n : numbers) std::fprintf(help ? stdout : stderr, "  %s N  %s\n", n.name, n.help);
      for (const auto& f : flags) std::fprintf(help ? stdout : stderr, "  %s  %s\n", f.name, f.help);
      std::exit(help ? 0 : 2);
    }
  }
  return args;
}

}  // namespace anthro::bench
