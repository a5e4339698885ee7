// One Layer Zero prompt through the live client against the local endpoint, captured on lo: the
// lz+lab port, or with `tls` the TLS port (ALPN layer-zero) with the client's secrets in a key
// log. The endpoint (and the temporary directory holding the files) lives as long as the result.
#pragma once

#include <memory>

#include "layerzero/format.h"
#include "capture/analysis.h"
#include "endpoint_fixture.h"
#include "layerzero/client.h"
#include "lo_capture.h"
#include "raw_peer.h"

namespace anthro::test {

struct LzCaptureOptions {
  std::vector<std::string> faults;
  bool tls = false;
  bool tool_calls = false;  // the endpoint sends a TOOL_CALL before each reply (terms allow tools)
  std::string api_key;      // required by the endpoint and sent by the client, when set
};

struct LzCaptured {
  std::unique_ptr<EndpointFixture> endpoint;
  lz::LzRunResult live;
  std::string capture, keylog;
  bool tls = false;
  CaptureKeySources keys() const {  // the key log, which only a TLS run writes
    CaptureKeySources k;
    if (tls) k.keylog_files = {keylog};
    return k;
  }
};

inline LzCaptured capture_lz_run(const LzCaptureOptions& o) {
  LzCaptured run;
  run.endpoint = std::make_unique<EndpointFixture>(o.faults, 20, 2, 24);
  EndpointFixture& e = *run.endpoint;
  e.config().own_listen[lz::profile_id()] = "127.0.0.1:0";
  lz::emulation_options(e.config()).tool_calls = o.tool_calls;
  e.config().required_api_key = o.api_key;
  e.start();
  const std::string url = e.endpoint().url(o.tls ? "lz" : "lz+lab");
  run.capture = e.path("lz.pcapng");
  run.keylog = e.path("lz.keylog");
  run.tls = o.tls;
  LoCapture capture(url, run.capture, run.keylog);
  if (!capture.start()) qFatal("capture: %s", capture.error().c_str());
  lz::LzClientConfig c;
  c.port = port_of(url);
  c.tls = o.tls;
  c.ca_file = e.endpoint().cert_path();
  if (o.tls) c.keylog = std::make_shared<KeyLogSink>(capture.config().keylog_path);
  c.terms = {"claude-3-5-sonnet", 5000, lz::kConstraintDynamicFrameSize | (o.tool_calls ? lz::kConstraintTools : 0u)};
  c.prompt = "查北京天气";
  c.buffer_usage = 0x40;
  if (!o.api_key.empty()) c.api_key = o.api_key;
  auto live = lz::run_lz_prompt(c);
  const auto& stats = capture.stop();
  if (!live) qFatal("layer-zero run: %s", live.error().detail.c_str());
  if (!stats) qFatal("capture: %s", capture.error().c_str());
  run.live = std::move(*live);
  return run;
}

}  // namespace anthro::test
