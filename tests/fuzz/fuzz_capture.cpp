// A capture file through the whole pipeline of `analyze` and `decode`: pcap/pcapng, link
// layers, IP, TCP reassembly, TLS 1.2/1.3 decryption, anthro-v1 and HTTP/SSE dissection.
// Input: the file. Keys: the spec's lab key log and server key, and whatever DSBs it holds.
// Every decode line and the analysis document must be JSON; a refusal names the file.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "capture/analysis.h"

using namespace anthro;

namespace {

// The spec vectors' lab key log line and server static key (../shared/spec/vectors/), so the
// seeds made from lab-conversation.pcap decrypt.
constexpr char kKeyLog[] =
    "ANTHRO_V1 1234567890abcdef 6b7bdd60c277d34fce5ceb9e51a9c8ef37015450b0caf70b3778a9c6b36ad566 "
    "14413ed07c74bc0d751b18a4398da40a6c66a39511a90e16d871dd179293b24e\n";
constexpr char kServerKey[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MC4CAQAwBQYDK2VuBCIEIL/I59n2QuMs5lIlGhZ/+Ln5kD6WB5xGQ4Xmi1Gg07WZ\n"
    "-----END PRIVATE KEY-----\n";

// An in-memory file: its /proc/self/fd path is what the file-based readers open.
class MemFile {
 public:
  explicit MemFile(const char* name) : fd_(memfd_create(name, MFD_CLOEXEC)) {
    if (fd_ < 0) __builtin_trap();
  }
  const std::string& write(const void* data, std::size_t size) {
    if (ftruncate(fd_, 0) != 0 || pwrite(fd_, data, size, 0) != static_cast<ssize_t>(size)) __builtin_trap();
    return path_;
  }

 private:
  int fd_;
  std::string path_ = "/proc/self/fd/" + std::to_string(fd_);
};

const CaptureKeySources& keys() {
  static MemFile keylog("keylog"), pem("pem");
  static const CaptureKeySources k{{keylog.write(kKeyLog, sizeof kKeyLog - 1)},
                                   {pem.write(kServerKey, sizeof kServerKey - 1)}};
  return k;
}

void check_json(const std::string& text) {
  if (!nlohmann::json::accept(text)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static MemFile capture("capture");
  const CaptureKeySources& k = keys();
  const std::string& path = capture.write(data, size);
  AnalyzeOptions options;
  options.threads = 1;
  options.text_budget = 256;  // small, so the spill file is exercised too
  auto result = analyze_capture(path, k, check_json, options);
  if (!result) {
    if (result.error().detail.find(path) == std::string::npos) __builtin_trap();
    return 0;
  }
  check_json(analysis_json(*result));
  analysis_text(*result);
  return 0;
}
