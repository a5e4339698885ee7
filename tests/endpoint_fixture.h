// A local endpoint for a test, with its credentials in a private temporary data directory.
#pragma once

#include <QFloat16>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include "endpoint/endpoint.h"
#include "model/faults.h"
#include "session/session.h"

namespace anthro::test {

class EndpointFixture {
 public:
  // Faults as on the command line; timing in ms.
  explicit EndpointFixture(std::vector<std::string> faults = {}, double ttft_ms = 20, double itl_ms = 2,
                           std::uint32_t tokens = 20) {
    qputenv("XDG_DATA_HOME", dir_.path().toUtf8());
    EndpointConfig c;
    c.tls_listen = "127.0.0.1:0";
    c.lab_listen = "127.0.0.1:0";
    c.http_listen = "127.0.0.1:0";
    c.metrics_listen = "127.0.0.1:0";
    c.model.ttft = {ttft_ms, 0};
    c.model.itl = {itl_ms, 0};
    c.model.tokens = tokens;
    auto parsed = parse_faults(faults);
    if (!parsed) qFatal("bad faults: %s", parsed.error().detail.c_str());
    c.model.faults = *parsed;
    config_ = c;
  }

  // Starts with the config (adjust it first through config()).
  Endpoint& start() {
    auto started = Endpoint::start(config_);
    if (!started) qFatal("endpoint: %s", started.error().detail.c_str());
    endpoint_ = std::move(*started);
    return *endpoint_;
  }
  EndpointConfig& config() { return config_; }
  Endpoint& endpoint() { return *endpoint_; }
  std::string path(const char* name) const { return dir_.filePath(name).toStdString(); }

  SessionConfig session(const std::string& scheme, const std::string& path = "") const {
    SessionConfig s;
    s.target = endpoint_->url(scheme) + path;
    s.messages = {{"user", "How do transport layers cut tail latency? 👋"}};
    s.timeout_s = 10;
    return s;
  }

  static SessionResult run(const SessionConfig& config) {
    auto result = run_session(config);
    if (!result) qFatal("session: %s", result.error().detail.c_str());
    return *result;
  }

 private:
  QTemporaryDir dir_;
  EndpointConfig config_;
  std::unique_ptr<Endpoint> endpoint_;
};

}  // namespace anthro::test
