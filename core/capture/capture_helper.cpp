#include "capture/capture_helper.h"

#include <charconv>
#include <cmath>

namespace anthro::capture_helper {
namespace {

Error usage(std::string detail) { return make_error(ErrorClass::Usage, "usage", std::move(detail)); }

bool interface_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-' || c == ':' || c == '@' || c == '+';
}

// A filter is text a person typed: printable ASCII and spaces, no control characters.
Result<bool> check_filter(std::string_view filter) {
  if (filter.size() > kMaxFilter)
    return usage("--filter: " + std::to_string(filter.size()) + " characters (at most " + std::to_string(kMaxFilter) + ")");
  for (std::size_t i = 0; i < filter.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(filter[i]);
    if (c < 0x20 || c > 0x7e)
      return usage("--filter: character " + std::to_string(i + 1) + " (byte " + std::to_string(c) +
                   ") is not printable ASCII");
  }
  return true;
}

template <class T>
std::optional<T> parse_number(std::string_view text) {
  T value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  for (;;) {
    auto at = text.find(sep);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

// Descriptions come from drivers: one line, no tabs, no control characters.
std::string one_line(std::string_view text) {
  std::string out(text.substr(0, 256));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return out;
}

}  // namespace

Result<bool> check_interface_name(std::string_view name) {
  if (name.empty()) return usage("--interface: empty name");
  if (name.size() > kMaxInterfaceName)
    return usage("--interface: name of " + std::to_string(name.size()) + " characters (at most " +
                 std::to_string(kMaxInterfaceName) + ")");
  if (name.front() == '-' || name.front() == '.')
    return usage("--interface \"" + one_line(name) + "\": a name does not start with \"" + name.front() + "\"");
  for (std::size_t i = 0; i < name.size(); ++i)
    if (!interface_char(name[i]))
      return usage("--interface: character " + std::to_string(i + 1) + " of the name (byte " +
                   std::to_string(static_cast<unsigned char>(name[i])) +
                   ") is not a letter, digit or one of . _ - : @ +");
  return true;
}

Result<Arguments> parse_arguments(const std::vector<std::string>& argv) {
  Arguments a;
  bool seen_interface = false, seen_filter = false, seen_snaplen = false, seen_duration = false;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& option = argv[i];
    if (option == "--list-interfaces") {
      a.list_interfaces = true;
      continue;
    }
    bool* seen = option == "--interface" ? &seen_interface
                 : option == "--filter"  ? &seen_filter
                 : option == "--snaplen" ? &seen_snaplen
                 : option == "--duration" ? &seen_duration
                                          : nullptr;
    if (!seen)
      return usage("argument " + std::to_string(i + 1) + " (\"" + one_line(option.substr(0, 64)) +
                   "\"): expected --interface, --filter, --snaplen, --duration or --list-interfaces");
    if (*seen) return usage(option + " given twice");
    *seen = true;
    if (i + 1 == argv.size()) return usage(option + " needs a value");
    const std::string& value = argv[++i];
    if (option == "--interface") {
      if (auto ok = check_interface_name(value); !ok) return ok.error();
      a.interface = value;
    } else if (option == "--filter") {
      if (auto ok = check_filter(value); !ok) return ok.error();
      a.filter = value;
    } else if (option == "--snaplen") {
      auto n = parse_number<int>(value);
      if (!n || *n < 1 || *n > kMaxSnaplen)
        return usage("--snaplen \"" + one_line(value.substr(0, 32)) + "\": expected a whole number from 1 to " +
                     std::to_string(kMaxSnaplen));
      a.snaplen = *n;
    } else {
      auto s = parse_number<double>(value);
      if (!s || !std::isfinite(*s) || *s < 0 || *s > kMaxDuration)
        return usage("--duration \"" + one_line(value.substr(0, 32)) + "\": expected seconds from 0 to " +
                     std::to_string(static_cast<long>(kMaxDuration)));
      a.duration_s = *s;
    }
  }
  if (a.list_interfaces && (seen_interface || seen_filter || seen_snaplen || seen_duration))
    return usage("--list-interfaces takes no other option");
  if (!a.list_interfaces && !seen_interface) return usage("--interface NAME is required (or --list-interfaces)");
  return a;
}

std::vector<std::string> capture_arguments(const LiveCaptureConfig& c) {
  std::vector<std::string> argv{"--interface", c.interface, "--snaplen", std::to_string(c.snaplen)};
  if (!c.filter.empty()) argv.insert(argv.end(), {"--filter", c.filter});
  if (c.duration_s > 0) {
    char text[64];
    auto end = std::to_chars(text, text + sizeof text, c.duration_s).ptr;
    argv.insert(argv.end(), {"--duration", std::string(text, end)});
  }
  return argv;
}

std::string ready_line() { return "ready"; }

std::string progress_line(std::uint64_t packets, std::uint64_t bytes) {
  return "progress " + std::to_string(packets) + " " + std::to_string(bytes);
}

std::string message_line(std::string_view text) { return std::string(kProgramName) + ": " + std::string(text); }

Line parse_line(std::string_view line) {
  if (line == ready_line()) return {Line::Kind::Ready, 0, 0, {}};
  auto words = split(line, ' ');
  if (words.size() == 3 && words[0] == "progress") {
    auto packets = parse_number<std::uint64_t>(words[1]), bytes = parse_number<std::uint64_t>(words[2]);
    if (packets && bytes) return {Line::Kind::Progress, *packets, *bytes, {}};
  }
  const std::string prefix = message_line("");
  if (line.substr(0, prefix.size()) == prefix) line.remove_prefix(prefix.size());
  return {Line::Kind::Message, 0, 0, line};
}

std::string interface_line(const NetworkInterface& i) {
  return i.name + "\t" + (i.loopback ? "loopback" : "-") + "\t" + (i.up ? "up" : "-") + "\t" + one_line(i.description);
}

std::optional<NetworkInterface> parse_interface_line(std::string_view line) {
  auto fields = split(line, '\t');
  if (fields.size() != 4 || !check_interface_name(fields[0])) return std::nullopt;
  if ((fields[1] != "loopback" && fields[1] != "-") || (fields[2] != "up" && fields[2] != "-")) return std::nullopt;
  return NetworkInterface{std::string(fields[0]), one_line(fields[3]), fields[1] == "loopback", fields[2] == "up"};
}

}  // namespace anthro::capture_helper
