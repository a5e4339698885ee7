// The options every benchmark takes: --json (one line) and --quick (a smoke run).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace anthro::bench {

struct BenchArgs {
  bool json = false;
  bool quick = false;
};

// Exits with 0 after --help and with 2 after an unknown argument, printing the usage.
inline BenchArgs parse_bench_args(int argc, char** argv, const char* name) {
  BenchArgs args;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--json") {
      args.json = true;
    } else if (a == "--quick") {
      args.quick = true;
    } else {
      bool help = a == "--help" || a == "-h";
      if (!help) std::fprintf(stderr, "%s: unknown argument '%s'\n", name, argv[i]);
      std::fprintf(help ? stdout : stderr,
                   "usage: %s [--json] [--quick]\n"
                   "  --json   print one JSON line: {\"figures\": {...}, \"ratios\": {...}}\n"
                   "  --quick  a short smoke run\n",
                   name);
      std::exit(help ? 0 : 2);
    }
  }
  return args;
}

}  // namespace anthro::bench
