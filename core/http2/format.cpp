#include "http2/format.h"

#include "capture/http2_dissector.h"
#include "endpoint/server_state.h"
#include "profile/profile.h"

namespace anthro::http2 {

// HTTP/2 with prior knowledge (h2c, RFC 9113 §3.3): the client's connection preface.
bool recognise(ByteView first) {
  constexpr std::string_view kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  return as_text(first).substr(0, kPreface.size()) == kPreface;
}

constexpr std::string_view kAlpn[] = {"h2"};

net::awaitable<void> serve(ServedConnection c, ServerState& state) { co_await serve_http2(std::move(c.stream), state, c.admission); }

}  // namespace anthro::http2

namespace anthro {

// Registered before HTTP/1.1: the registry's order is the TLS port's ALPN preference. It
// carries the same requests (those of the formats riding on HTTP among them, told per
// request), and has no target scheme of its own: https targets choose it by option.
void register_http2() {
  register_carrier_profile(Profile{.id = ProfileId::Http2, .name = "http2", .display_name = "HTTP/2 Messages API",
                                   .alpn = http2::kAlpn, .recognise = http2::recognise, .schemes = {},
                                   .checklist_id = "latency", .rollout_plan_id = "anthro-v1-five-stages", .rides_on = {}});
  register_connection_reader(ProfileId::Http2, HttpConnectionReader<Http2Dissector>::make);
  register_emulation(ProfileId::Http2, {.make_state = nullptr, .serve = http2::serve, .own_port = false, .embedded = nullptr});
}

}  // namespace anthro
