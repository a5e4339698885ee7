#include "diagnosis/system_probes.h"
#include "metrics/request_result.h"

#include <openssl/crypto.h>
#include <openssl/opensslv.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace anthro {
namespace {

namespace fs = std::filesystem;


// The first line of a small kernel file; nothing when it cannot be read.
std::optional<std::string> first_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  return line;
}

std::optional<std::uint64_t> counter(const fs::path& path) {
  auto line = first_line(path);
  if (!line || line->empty()) return std::nullopt;
  char* end = nullptr;
  unsigned long long v = std::strtoull(line->c_str(), &end, 10);
  if (*end) return std::nullopt;
  return v;
}

// Sorted directory entries; empty when the directory cannot be listed.
std::vector<fs::path> entries(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

void read_cpus(SystemState& s, const fs::path& sys) {
  double mhz_sum = 0;
  int with_mhz = 0;
  for (const auto& cpu : entries(sys / "devices/system/cpu")) {
    std::string name = cpu.filename().string();
    if (name.rfind("cpu", 0) != 0 || name.size() < 4 || !std::isdigit(static_cast<unsigned char>(name[3]))) continue;
    if (auto g = first_line(cpu / "cpufreq/scaling_governor")) s.governors.push_back(*g);
    if (auto khz = counter(cpu / "cpufreq/scaling_cur_freq")) {
      mhz_sum += static_cast<double>(*khz) / 1000;
      ++with_mhz;
    }
  }
  if (with_mhz) s.cpu_mhz = mhz_sum / with_mhz;
  if (s.governors.empty()) s.problems.push_back((sys / "devices/system/cpu").string() + ": no cpufreq governor to read");
}

void read_limits(SystemState& s, const fs::path& proc) {
  s.rmem_max = counter(proc / "sys/net/core/rmem_max");
  s.wmem_max = counter(proc / "sys/net/core/wmem_max");
  if (!s.rmem_max) s.problems.push_back((proc / "sys/net/core/rmem_max").string() + ": not readable");
}

// chronyc tracking's "System time : 0.000012 seconds fast of NTP time".
void read_clock(SystemState& s) {
  if (std::system("command -v chronyc >/dev/null 2>&1") != 0) return;
  FILE* p = popen("chronyc -c tracking 2>/dev/null", "r");
  if (!p) return;
  char buf[512] = {};
  std::string out = std::fgets(buf, sizeof buf, p) ? buf : "";
  pclose(p);
  // CSV: reference id, name, stratum, ref time, system time offset (s), ...
  std::vector<std::string> fields;
  std::stringstream in(out);
  for (std::string f; std::getline(in, f, ',');) fields.push_back(f);
  if (fields.size() > 4) s.clock_offset_ms = std::strtod(fields[4].c_str(), nullptr) * 1000;
  else s.problems.push_back("chronyc tracking: no offset in its answer");
}

}  // namespace

SystemState read_system_state(const SystemProbeConfig& config) {
  SystemState s;
  s.probed = true;
  s.openssl_version = OpenSSL_version_num();
  s.openssl_text = OpenSSL_version(OPENSSL_VERSION);
  read_cpus(s, config.sysfs_root);
  read_limits(s, config.procfs_root);
  if (config.run_chronyc) read_clock(s);
  add_nic_reading(s, config);
  return s;
}

void add_nic_reading(SystemState& s, const SystemProbeConfig& config) {
  fs::path net = fs::path(config.sysfs_root) / "class/net";
  NicReading reading{steady_now_s(), 0};
  std::vector<std::string> interfaces;
  for (const auto& nic : entries(net)) {
    bool any = false;
    for (const char* name : {"rx_missed_errors", "rx_dropped", "rx_fifo_errors"})
      if (auto v = counter(nic / "statistics" / name)) {
        reading.drops += *v;
        any = true;
      }
    if (any) interfaces.push_back(nic.filename().string());
  }
  if (interfaces.empty()) {
    std::string problem = net.string() + ": no interface statistics to read";
    if (std::find(s.problems.begin(), s.problems.end(), problem) == s.problems.end()) s.problems.push_back(problem);
    return;
  }
  if (s.nic_interfaces.empty()) s.nic_interfaces = interfaces;
  s.nic.push_back(reading);
}

}  // namespace anthro
