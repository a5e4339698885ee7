// Prometheus text as the official Python client parses it (Debian's python3-prometheus-client),
// an implementation independent of core/metrics/prometheus_text.cpp.
#pragma once

#include <QProcess>

#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

// [{"name", "type", "samples": [{"name", "labels", "value"}]}]; NaN and infinities as the
// strings "nan", "inf", "-inf"; {"error": stderr} when the parser refused the text.
inline nlohmann::json parse_prometheus(const std::string& text) {
  static const char* kParser = R"(
import json, math, sys
from prometheus_client.parser import text_string_to_metric_families
def number(v):
    return str(v) if math.isnan(v) or math.isinf(v) else v
out = [{"name": f.name, "type": f.type,
        "samples": [{"name": s.name, "labels": s.labels, "value": number(s.value)} for s in f.samples]}
       for f in text_string_to_metric_families(sys.stdin.read())]
print(json.dumps(out))
)";
  QProcess p;
  p.start("/usr/bin/python3", {"-c", kParser});
  p.write(QByteArray::fromStdString(text));
  p.closeWriteChannel();
  if (!p.waitForFinished(30000) || p.exitCode() != 0) return {{"error", p.readAllStandardError().toStdString()}};
  return nlohmann::json::parse(p.readAllStandardOutput().toStdString());
}

// How prometheus_samples names a sample: "name{label=value,...,}", labels sorted.
inline std::string prometheus_key(const std::string& name, const std::map<std::string, std::string>& labels) {
  std::string key = name + "{";
  for (const auto& [label, value] : labels) key += label + "=" + value + ",";
  return key + "}";
}

// Every sample's value by prometheus_key, the labels in `drop` left out (a Pushgateway's instance).
inline std::map<std::string, nlohmann::json> prometheus_samples(const nlohmann::json& families,
                                                                const std::set<std::string>& drop = {}) {
  std::map<std::string, nlohmann::json> out;
  for (const auto& family : families)
    for (const auto& sample : family["samples"]) {
      auto labels = sample["labels"].get<std::map<std::string, std::string>>();
      for (const auto& name : drop) labels.erase(name);
      out[prometheus_key(sample["name"].get<std::string>(), labels)] = sample["value"];
    }
  return out;
}
