// Pushes Prometheus text to a Pushgateway (libcurl), for a batch job's figures: a CI job's
// `anthro-wb bench` has no process left for Prometheus to scrape.
#pragma once

#include <string>
#include <string_view>

#include "metrics/prometheus_text.h"
#include "util/result.h"

namespace anthro {

// The group's URL: `base_url`/metrics/job@base64/JOB/NAME@base64/VALUE... Values are base64url
// so a target URL with slashes stays one path segment.
Result<std::string> pushgateway_group_url(const std::string& base_url, std::string_view job,
                                          const PrometheusLabels& grouping);
// PUT: the group's metrics become `text`, replacing what an earlier run pushed to it.
Result<bool> push_to_gateway(const std::string& base_url, std::string_view job, const PrometheusLabels& grouping,
                             std::string_view text, double timeout_s = 10);

}  // namespace anthro
