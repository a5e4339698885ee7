// The token stream as the registry and the engines know it (../shared/spec/profiles/
// token-stream.md): a format riding on the HTTP Messages API, registered from this folder
// (register_token_stream, listed in core/formats/builtin.cpp): its registry row, its readers in
// the HTTP rider seam (capture, live client, endpoint), its checklist probes. What a session or
// an endpoint is told to speak of it is set here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "endpoint/endpoint.h"
#include "session/session.h"

namespace anthro {

// The row and every part, in the engines' tables.
void register_token_stream();
// Its registry id, numbered when it registered.
ProfileId token_stream_id();
// Its parts, one per engine (captured.cpp, live.cpp, serve.cpp, probes.cpp).
void register_captured_token_stream();
void register_live_token_stream();
void register_served_token_stream();
void register_token_stream_probes();

// A client's token stream on a Messages API target: requests ask for the passthrough with
// this X-Claude-Context-ID, sent as given (a client's bugs included); token ids are named
// through the endpoint's GET /v1/vocab when it has one.
struct TokenStreamClientOptions {
  std::string context_id = "4294967297";  // tenant 1, session 1
  // Client faults (token stream spec §5.1): X-Claude-Token-Alignment as sent (nullopt: left
  // out), and a front end that reads the body as text and reports the JSON parse error that
  // follows.
  std::optional<std::string> alignment = "4";
  bool text_decoding = false;
};
// Turns the token stream on for a session (its defaults), and its options to set.
TokenStreamClientOptions& use_token_stream(SessionConfig& config);
// The session's token-stream options; null when it does not speak it.
const TokenStreamClientOptions* token_stream_client(const SessionConfig& config);

// An endpoint's token stream on /v1/messages (Content-Type application/vnd.claude.token-stream)
// and GET /v1/vocab; off by default, when such a request gets a 415.
struct TokenStreamServerOptions {
  std::optional<std::uint32_t> tenant;  // the API key's tenant, when the server knows one
};
TokenStreamServerOptions& serve_token_stream(EndpointConfig& config);
const TokenStreamServerOptions* token_stream_server(const EndpointConfig& config);

}  // namespace anthro
