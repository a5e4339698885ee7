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
  bool wanted() const { return file || pushgateway; }
};
MetricsOut read_metrics_out(Args& args);

// Writes and pushes `text` (job anthro_wb_COMMAND, grouped by `grouping`); an output that
// fails is said on stderr. False when one failed: the command's figures stand, it exits 2.
bool send_metrics(const MetricsOut& out, const std::string& command, const PrometheusLabels& grouping,
                  const std::string& text);

}  // namespace anthro::cli
