#include "session/workload.h"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <type_traits>

#include "crypto/hash.h"
#include "metrics/request_json.h"
#include "session/session.h"
#include "util/json.h"

namespace anthro {

using nlohmann::json;

namespace {

json slo_json(const Slo& s) {
  return {{"ttft_ms", json_or_null(s.ttft_ms)}, {"tpot_ms", json_or_null(s.tpot_ms)}, {"e2e_ms", json_or_null(s.e2e_ms)}};
}

// A member of a workload read back; throws "workload.MEMBER: why".
const json& workload_member(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) throw std::runtime_error(std::string("workload.") + key + ": missing");
  return *it;
}

template <class T>
std::optional<T> optional_member(const json& j, const char* key, bool whole) {
  const json& v = workload_member(j, key);
  if (v.is_null()) return std::nullopt;
  if (whole ? !v.is_number_unsigned() : !v.is_number())
    throw std::runtime_error(std::string("workload.") + key + ": expected a number or null");
  return v.get<T>();
}

template <class T>
T plain_member(const json& j, const char* key) {
  const json& v = workload_member(j, key);
  bool ok = std::is_same_v<T, bool> ? v.is_boolean() : std::is_same_v<T, std::string> ? v.is_string() : v.is_number();
  if (!ok) throw std::runtime_error(std::string("workload.") + key + ": of the wrong type");
  return v.get<T>();
}

}  // namespace

Workload workload_of(const SessionConfig& c, const std::vector<std::string>& prompts) {
  json messages = json::array();
  for (const auto& m : c.messages) messages.push_back({m.role, m.content});
  json plan = {{"system", json_or_null(c.system)}, {"messages", messages}, {"prompts", prompts},
               {"metadata", json_or_null(c.metadata_json)}};
  Workload w;
  w.model = c.model;
  w.prompt_sha256 = sha256_hex(dump_json(plan));
  w.max_tokens = c.max_tokens;
  w.stream = c.stream;
  w.cancel_after_tokens = c.cancel_after_tokens;
  w.close_without_cancel = c.close_without_cancel;
  w.read_delay_ms = c.read_delay_ms;
  return w;
}

json workload_json(const Workload& w) {
  return {{"model", w.model}, {"prompt_sha256", w.prompt_sha256}, {"max_tokens", json_or_null(w.max_tokens)},
          {"stream", w.stream}, {"cancel_after_tokens", json_or_null(w.cancel_after_tokens)},
          {"close_without_cancel", w.close_without_cancel}, {"read_delay_ms", w.read_delay_ms},
          {"cancel_rate", w.cancel_rate}, {"retry_naive", w.retry_naive}, {"slo", slo_json(w.slo)}};
}

Result<Workload> workload_from_json(const json& j) {
  Workload w;
  try {
    if (!j.is_object()) throw std::runtime_error("workload: expected an object");
    w.model = plain_member<std::string>(j, "model");
    w.prompt_sha256 = plain_member<std::string>(j, "prompt_sha256");
    w.max_tokens = optional_member<std::uint32_t>(j, "max_tokens", true);
    w.stream = plain_member<bool>(j, "stream");
    w.cancel_after_tokens = optional_member<std::uint32_t>(j, "cancel_after_tokens", true);
    w.close_without_cancel = plain_member<bool>(j, "close_without_cancel");
    w.read_delay_ms = plain_member<double>(j, "read_delay_ms");
    w.cancel_rate = plain_member<double>(j, "cancel_rate");
    w.retry_naive = plain_member<bool>(j, "retry_naive");
    const json& slo = workload_member(j, "slo");
    if (!slo.is_object()) throw std::runtime_error("workload.slo: expected an object");
    w.slo = {optional_member<double>(slo, "ttft_ms", false), optional_member<double>(slo, "tpot_ms", false),
             optional_member<double>(slo, "e2e_ms", false)};
  } catch (const std::exception& e) {
    return make_error(ErrorClass::Input, e.what());
  }
  return w;
}

std::optional<std::string> workload_difference(const Workload& a, const Workload& b) {
  json ja = workload_json(a), jb = workload_json(b);
  for (const auto& [key, value] : ja.items())
    if (value != jb[key]) return key + " " + dump_json(value) + " vs " + dump_json(jb[key]);
  return std::nullopt;
}

}  // namespace anthro
