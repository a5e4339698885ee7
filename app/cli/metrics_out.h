// --metrics-file and --pushgateway: a command's figures as Prometheus text, written for
// node_exporter's textfile collector and pushed to a Pushgateway.
#pragma once

#include <optional>
#include <string>

#include "cli/args.h"
#include "metrics/prometheus_text.h"

namespace anthro::cli {

struct MetricsOut {
  std::optional<std::string> file, pushgateway;
  // The push's `instance` grouping label: workers pushing one job to one Pushgateway keep a
  // group each, where a push replaces only its own group.
  std::string instance;
  bool wanted() const { return file || pushgateway; }
};
MetricsOut read_metrics_out(Args& args);

// --pushgateway-instance's default: the host name, and "-INDEX" when JOB_COMPLETION_INDEX is
// set (a Kubernetes Indexed Job) unless the host name already ends so (the Job names its
// pods JOB-INDEX). Stable across a worker's retries, so a retry replaces its own group.
std::string default_push_instance();

// Writes and pushes `text` (job anthro_wb_COMMAND, grouped by `grouping` and the instance); an output that
// fails is said on stderr. False when one failed: the command's figures stand, it exits 2.
bool send_metrics(const MetricsOut& out, const std::string& command, const PrometheusLabels& grouping,
                  const std::string& text);

}  // namespace anthro::cli
