// The one table of anthro-wb's subcommands and their options: each command's parser (Args) and
// its `--help` both read it, so an option cannot be accepted without being documented.
#pragma once

#include <string>
#include <vector>

namespace anthro::cli {

struct Option {
  std::string name;   // "--target"
  std::string value;  // what it takes, "URL"; empty for a flag; "a|b" lists the choices
  std::string help;
};

// The value of an option that names a fault of the endpoint's catalogue (model/faults.h), whose
// names shell completion offers.
inline constexpr const char* kFaultValue = "NAME[=ARG]";
using Options = std::vector<Option>;

struct CommandSpec {
  std::string name;
  std::string summary;     // one line, for `anthro-wb --help`
  std::string arguments;   // positional arguments after the options, "CAPTURE", or empty
  Options options;
};

// Every subcommand of this program, in the order `anthro-wb --help` lists them.
const std::vector<CommandSpec>& command_specs();
// The spec named `name`; every command has one (a missing one is a programming error).
const CommandSpec& command_spec(const std::string& name);

// `anthro-wb NAME --help`: usage line, summary and one line per option.
std::string command_help(const CommandSpec& spec);
// True when `argv` asks for help (`--help` or `-h` where an option may stand, not as the value
// of an option that takes one).
bool asks_for_help(const std::vector<std::string>& argv, const Options& options);

// `anthro-wb --complete WORD...`, what installer/anthro-wb.bash-completion offers: `words` are
// the command line after the program's name up to the word being completed, which is last (empty
// when completing a new word). Returns the candidates that begin with it: `commands` for the
// first word, a command's options for a word starting with '-', and an option's choices for its
// value (fault names, or the lowercase alternatives of "text|json"). Empty where only a file or a
// free value fits (the shell then offers file names).
std::vector<std::string> complete(const std::vector<std::string>& words, const std::vector<std::string>& commands);

}  // namespace anthro::cli
