// Inside the report builders: the labels, number formats and the traffic pieces (requests as
// charts, connections as tables) that every kind of result shares.
#pragma once

#include <nlohmann/json.hpp>

#include "report/report.h"
#include "util/message_json.h"

namespace anthro::report_detail {

using nlohmann::json;

// o[key] when o is an object holding a string there; else "".
inline std::string str(const json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
}

class Builder {
 public:
  Builder(const ReportOptions& options, ReportDocument& doc) : o_(options), doc_(doc) {}

  // A label in the report's language (it must be one of report_labels()).
  std::string tr(const std::string& english) const;
  std::string verdict(Verdict v) const { return tr(to_string(v)); }
  // A core text of the result (`evidence`, `reason`) in the report's language: its messages
  // rendered, else the English string.
  std::string text(const json& o, const std::string& key) const { return rendered_text(o, key, doc_.lang); }

  // Numbers as a person reads them: "—" for null, units after.
  static std::string num(const json& v, int digits = 4, const std::string& unit = "");
  static std::string fixed(double v, int decimals, const std::string& unit = "");

  // The requests of `streams` (request_json objects) as a chart series, sent times made
  // relative to `t0`; probe streams left out.
  static ChartSeries series(const std::string& name, const std::vector<const json*>& streams, double t0);
  // The four latency charts of the app over these series; returns their indexes.
  std::vector<std::size_t> latency_charts(const std::vector<ChartSeries>& series);
  // The per-stream timing table of a connection.
  ReportTable streams_table(const json& streams) const;
  // A connection of a capture or live run: transport, TLS/anthro-v1 status, TCP health, streams.
  ReportSection connection_section(const json& conn) const;
  // Every connection's streams by transport: anthro-v1 and the HTTP baseline as two series.
  void traffic(const json& connections);
  ReportTable capped(ReportTable t) const;
  // The result's "warnings", as a section of their own.
  void warnings(const json& d);

  std::size_t add_chart(ReportChart chart);
  void fact(ReportSection& s, const std::string& label, const std::string& value) const {
    if (!value.empty()) s.facts.emplace_back(tr(label), value);
  }

  const ReportOptions& options() const { return o_; }
  ReportDocument& doc() { return doc_; }

 private:
  const ReportOptions& o_;
  ReportDocument& doc_;
};

void build_diagnosis(Builder& b, const json& d);
void build_rollout(Builder& b, const json& d);
void build_session(Builder& b, const json& d);
void build_bench(Builder& b, const json& d);
void build_analysis(Builder& b, const json& d);
void build_comparison(Builder& b, const json& d);

}  // namespace anthro::report_detail
