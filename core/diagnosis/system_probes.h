// This machine's state for the checklist's system probes: OpenSSL version, CPU frequency
// governor and frequency, NIC drop counters, clock offset (chronyc), socket buffer limits.
// Files are read under injectable roots so tests use fake /sys and /proc trees.
#pragma once

#include <string>

#include "diagnosis/observations.h"

namespace anthro {

struct SystemProbeConfig {
  std::string sysfs_root = "/sys";
  std::string procfs_root = "/proc";
  bool run_chronyc = true;  // ask chronyc for the clock offset when it is installed
};

// Everything once, with a first NIC reading; what cannot be read goes to `problems` with why.
SystemState read_system_state(const SystemProbeConfig& config);
// Another NIC drop reading (nic-drops needs two, over the run).
void add_nic_reading(SystemState& state, const SystemProbeConfig& config);

}  // namespace anthro
