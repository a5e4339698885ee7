#include "cli/metrics_out.h"

#include <iostream>

#include "metrics/pushgateway.h"

namespace anthro::cli {

MetricsOut read_metrics_out(Args& args) {
  MetricsOut out{args.value("--metrics-file"), args.value("--pushgateway")};
  if (out.pushgateway) {
    if (auto url = pushgateway_group_url(*out.pushgateway, "anthro_wb", {}); !url) args.fail(url.error().detail);
  }
  return out;
}

bool send_metrics(const MetricsOut& out, const std::string& command, const PrometheusLabels& grouping,
                  const std::string& text) {
  bool ok = true;
  if (out.file) {
    if (auto written = write_metrics_file(*out.file, text); !written) {
      std::cerr << "anthro-wb " << command << ": --metrics-file: " << written.error().detail << "\n";
      ok = false;
    }
  }
  if (out.pushgateway) {
    if (auto pushed = push_to_gateway(*out.pushgateway, "anthro_wb_" + command, grouping, text); !pushed) {
      std::cerr << "anthro-wb " << command << ": --pushgateway: " << pushed.error().detail << "\n";
      ok = false;
    }
  }
  return ok;
}

}  // namespace anthro::cli
