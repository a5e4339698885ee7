#include "cli/args.h"

#include "capture/analysis.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iostream>

namespace anthro::cli {

Args::Args(const std::string& command, const std::vector<std::string>& argv) : command_(command) {
  std::set<std::string> with_value, flags;
  for (const auto& o : command_spec(command).options) (o.value.empty() ? flags : with_value).insert(o.name);
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a.size() > 1 && a[0] == '-' && a[1] != '-') {
      // A short option from another tool's habits (tcpdump's -i, -w) is named, not taken as a file.
      fail("unknown option " + a + " (options are spelled --name; 'anthro-wb " + command + " --help' lists them)");
      return;
    }
    if (a.rfind("--", 0) != 0 || a == "--") {
      positional_.push_back(a);
      continue;
    }
    auto eq = a.find('=');
    std::string name = a.substr(0, eq);
    if (flags.count(name)) {
      if (eq != std::string::npos) {
        fail(name + " takes no value");
        return;
      }
      values_[name].push_back("");
    } else if (with_value.count(name)) {
      if (eq != std::string::npos) values_[name].push_back(a.substr(eq + 1));
      else if (i + 1 < argv.size()) values_[name].push_back(argv[++i]);
      else {
        fail(name + " needs a value");
        return;
      }
    } else {
      fail("unknown option " + name);
      return;
    }
  }
}

void Args::fail(const std::string& why) {
  if (error_.empty()) error_ = why;
}

std::optional<std::string> Args::value(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second.back();
}

std::string Args::value_or(const std::string& name, const std::string& fallback) const {
  return value(name).value_or(fallback);
}

std::vector<std::string> Args::values(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::optional<double> Args::number(const std::string& name, NumberRange range) {
  auto v = value(name);
  if (!v) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  double d = std::strtod(v->c_str(), &end);
  if (v->empty() || *end || errno == ERANGE || !std::isfinite(d)) {
    fail(name + " \"" + *v + "\": not a number (or out of range)");
    return std::nullopt;
  }
  if ((range == NumberRange::NonNegative && d < 0) || (range == NumberRange::Positive && d <= 0)) {
    fail(name + " \"" + *v + "\": expected a number " + (range == NumberRange::Positive ? "above 0" : "from 0 up"));
    return std::nullopt;
  }
  return d;
}

std::optional<std::uint64_t> Args::count(const std::string& name, std::uint64_t min, std::uint64_t max) {
  auto v = value(name);
  if (!v) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  unsigned long long n = std::strtoull(v->c_str(), &end, 10);
  if (v->empty() || *end || v->front() == '-' || errno == ERANGE || n < min || n > max) {
    fail(name + " \"" + *v + "\": expected a whole number from " + std::to_string(min) + " to " + std::to_string(max));
    return std::nullopt;
  }
  return n;
}

unsigned threads_option(Args& args) {
  return static_cast<unsigned>(args.count("--threads", 1, AnalyzeOptions::kMaxThreads).value_or(0));
}

int usage_error(const std::string& command, const std::string& why) {
  std::cerr << "anthro-wb " << command << ": " << why << "\n";
  return 2;
}

int exit_code(ErrorClass kind) { return kind == ErrorClass::Network ? 3 : 2; }

int error_exit(const std::string& command, const Error& error) {
  std::cerr << "anthro-wb " << command << ": " << error.detail << "\n";
  return exit_code(error.kind);
}

}  // namespace anthro::cli
