#include "http1/format.h"

#include <algorithm>
#include <array>

#include "capture/http_dissector.h"
#include "endpoint/server_state.h"
#include "profile/profile.h"

namespace anthro::http1 {

// The request line of the methods the Messages API and its probes use.
bool recognise(ByteView first) {
  return std::ranges::any_of(std::array<std::string_view, 4>{"GET ", "POST ", "PUT ", "HEAD "},
                             [first](std::string_view method) { return as_text(first).substr(0, method.size()) == method; });
}

constexpr std::string_view kAlpn[] = {kAlpnHttp};
constexpr ProfileScheme kSchemes[] = {{"http", false}, {"https", true}};

net::awaitable<void> serve(ServedConnection c, ServerState& state) { co_await serve_http(std::move(c.stream), state, c.admission); }

}  // namespace anthro::http1

namespace anthro {

// The HTTP baseline is anthro-v1's baseline arm: its checklist and plan are anthro-v1's. It is
// what a TLS port answers when the client's ALPN named nothing it serves.
void register_http1() {
  register_carrier_profile(Profile{.id = ProfileId::Http, .name = "http", .display_name = "HTTP Messages API",
                                   .alpn = http1::kAlpn, .recognise = http1::recognise, .schemes = http1::kSchemes,
                                   .checklist_id = "latency", .rollout_plan_id = "anthro-v1-five-stages", .rides_on = {}});
  register_connection_reader(ProfileId::Http, HttpConnectionReader<HttpDissector>::make);
  register_emulation(ProfileId::Http, {.make_state = nullptr, .serve = http1::serve, .own_port = false, .embedded = nullptr});
}

}  // namespace anthro
