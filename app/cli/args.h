// Command-line options of one subcommand: `--name VALUE`, `--name=VALUE`, flags, positionals.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/command_table.h"
#include "util/result.h"

namespace anthro::cli {

// What a number option may be; NaN and infinities are never numbers here.
enum class NumberRange { Any, NonNegative, Positive };

class Args {
 public:
  // Parses `argv` against the options of `command`'s entry in the command table.
  Args(const std::string& command, const std::vector<std::string>& argv);

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  std::optional<std::string> value(const std::string& name) const;
  std::string value_or(const std::string& name, const std::string& fallback) const;
  std::vector<std::string> values(const std::string& name) const;  // a repeatable option
  const std::vector<std::string>& positional() const { return positional_; }

  // Typed reads; a bad value records an error naming the option (see ok()).
  std::optional<double> number(const std::string& name, NumberRange range = NumberRange::Any);
  std::optional<std::uint64_t> count(const std::string& name, std::uint64_t min = 0,
                                     std::uint64_t max = UINT64_MAX);
  void fail(const std::string& why);

 private:
  std::string command_;
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positional_;
  std::string error_;
};

// --threads N of the commands that read a capture: 0 (every core) when absent; a bad value is
// an error naming it.
unsigned threads_option(Args& args);

// The one-line usage error of cli.md: "anthro-wb COMMAND: WHY" on stderr, exit 2.
int usage_error(const std::string& command, const std::string& why);

// cli.md's exit code for a failure: 3 for the network or an endpoint, else 2.
int exit_code(ErrorClass kind);
// `error` as one line on stderr, as usage_error does; returns its exit code.
int error_exit(const std::string& command, const Error& error);

}  // namespace anthro::cli
