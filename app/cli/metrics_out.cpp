#include "cli/metrics_out.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <iostream>

#include "metrics/pushgateway.h"

namespace anthro::cli {

std::string default_push_instance() {
  char host[HOST_NAME_MAX + 1] = {};
  std::string name = ::gethostname(host, sizeof host - 1) == 0 && host[0] ? host : "localhost";
  const char* index = std::getenv("JOB_COMPLETION_INDEX");
  if (!index || !*index) return name;
  const std::string suffix = "-" + std::string(index);
  bool has = name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  return has ? name : name + suffix;
}

MetricsOut read_metrics_out(Args& args) {
  MetricsOut out{args.value("--metrics-file"), args.value("--pushgateway"),
                 args.value_or("--pushgateway-instance", default_push_instance())};
  if (out.instance.empty()) args.fail("--pushgateway-instance: give a name");
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
    PrometheusLabels group = grouping;
    group.emplace_back("instance", out.instance);
    if (auto pushed = push_to_gateway(*out.pushgateway, "anthro_wb_" + command, group, text); !pushed) {
      std::cerr << "anthro-wb " << command << ": --pushgateway: " << pushed.error().detail << "\n";
      ok = false;
    }
  }
  return ok;
}

}  // namespace anthro::cli
