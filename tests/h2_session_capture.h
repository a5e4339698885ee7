// The workbench's own HTTP/2 token-stream session (`session --http2 --token-stream`, two
// requests on one connection) against an endpoint started with the token stream, captured on
// lo with the session's key log.
#pragma once

#include "endpoint_fixture.h"
#include "lo_capture.h"
#include "tokenstream/exchange.h"
#include "tokenstream/format.h"

namespace anthro::test {

struct H2SessionCapture {
  SessionResult session;
  std::string pcap, keylog;
};

inline H2SessionCapture capture_h2_token_session(EndpointFixture& f, const std::string& name) {
  H2SessionCapture run{{}, f.path((name + ".pcapng").c_str()), f.path((name + ".keylog").c_str())};
  LoCapture capture(f.endpoint().url("https"), run.pcap, run.keylog);
  if (!capture.start()) qFatal("capture: %s", capture.error().c_str());
  SessionConfig c = f.session("https", "/v1/messages");
  use_token_stream(c);
  c.http2 = true;
  c.repeat = 2;
  c.keylog_path = run.keylog;
  run.session = EndpointFixture::run(c);
  if (!capture.stop()) qFatal("capture: %s", capture.error().c_str());
  return run;
}

}  // namespace anthro::test
