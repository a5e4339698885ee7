// The contract of `anthro-capture` (app/capture/main.cpp), the one program that opens a live
// interface, and of the code that runs it (live_capture.cpp): its arguments, the lines it
// writes on stderr, the interface list it prints and its exit codes. Both sides use these
// functions, so the contract is written once.
//
//   anthro-capture --interface NAME [--filter BPF] [--snaplen N] [--duration S]
//   anthro-capture --list-interfaces
//
// It writes pcapng to stdout (never to a path: it runs with capabilities) and ends it with an
// Interface Statistics Block. On stderr: "ready" once the interface is capturing, then
// "progress PACKETS BYTES" about five times a second while packets come; any other line is a
// message for a person. It stops at the duration, on SIGTERM or SIGINT, or when its stdin
// reaches end of file (so it never outlives the program that started it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "capture/live_capture.h"
#include "util/result.h"

namespace anthro::capture_helper {

inline constexpr std::string_view kProgramName = "anthro-capture";
inline constexpr const char* kPathVariable = "ANTHRO_CAPTURE_HELPER";  // overrides where it is looked for

enum ExitCode : int {
  kExitOk = 0,
  kExitCapture = 1,      // the interface or the pipe failed
  kExitUsage = 2,        // bad arguments, unknown interface, bad filter
  kExitPermission = 77,  // sysexits' EX_NOPERM: no capability to capture
};

inline constexpr std::size_t kMaxInterfaceName = 64;
inline constexpr std::size_t kMaxFilter = 4096;
inline constexpr int kMaxSnaplen = 262144;
inline constexpr double kMaxDuration = 31.0 * 24 * 3600;

struct Arguments {
  bool list_interfaces = false;
  std::string interface;
  std::string filter;
  int snaplen = kMaxSnaplen;
  double duration_s = 0;  // 0: until stopped
};

// argv as the helper gets it (without argv[0]). Hostile: every value is checked for length and
// characters; the error names the argument and what is wrong.
Result<Arguments> parse_arguments(const std::vector<std::string>& argv);
// The argv the helper is run with for a capture.
std::vector<std::string> capture_arguments(const LiveCaptureConfig& config);

// Interface names as libpcap gives them ("lo", "eth0", "any", "nflog:5", "usbmon1"): 1 to 64
// characters of letters, digits and . _ - : @ +, not starting with "-" or ".".
Result<bool> check_interface_name(std::string_view name);

// stderr lines.
std::string ready_line();
std::string progress_line(std::uint64_t packets, std::uint64_t bytes);
std::string message_line(std::string_view text);  // "anthro-capture: TEXT", for a person
struct Line {
  enum class Kind { Ready, Progress, Message };
  Kind kind = Kind::Message;
  std::uint64_t packets = 0, bytes = 0;  // Progress
  std::string_view text;                 // Message: without the program's name ahead of it
};
Line parse_line(std::string_view line);

// One stdout line of --list-interfaces: NAME TAB loopback|- TAB up|- TAB DESCRIPTION.
std::string interface_line(const NetworkInterface& i);
std::optional<NetworkInterface> parse_interface_line(std::string_view line);

}  // namespace anthro::capture_helper
