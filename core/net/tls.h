// TLS for anthro-v1 (spec §1): ALPN, the 0xFFA1 negotiation extension, key logging, and the
// local endpoint's self-signed credentials. Plain OpenSSL; the sockets are elsewhere.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "util/bytes.h"
#include "crypto/key_schedule.h"
#include "crypto/keylog.h"
#include "util/result.h"

struct ssl_st;
struct ssl_ctx_st;

namespace anthro {

namespace net {
struct TrafficSecret;
}

inline constexpr unsigned kNegotiationExtension = 0xFFA1;
inline constexpr std::string_view kAlpnAnthro = "anthro-v1";
inline constexpr std::string_view kAlpnHttp = "http/1.1";

// Per-connection state of the extension, attached to an SSL before its handshake.
struct ExtensionState {
  Bytes offer;   // client: what to send; server: what arrived
  Bytes answer;  // server: what to send; client: what arrived
  // Server: turns an offer into an answer, or an error whose reason names the blob rule.
  std::function<Result<Bytes>(ByteView offer)> answer_offer;
  FrameKeys keys;  // server: what answer_offer derived with the answer (spec §3)
  std::string refusal;  // why this side failed the handshake over the extension
};
void attach_extension(ssl_st* ssl, ExtensionState* state);

struct ServerTlsConfig {
  std::string cert_path;
  std::string key_path;
  // The ALPN ids the server selects, its preference first; a ClientHello offering none of them
  // gets no_application_protocol, unless it offered one of `alpn_passed_over`: then it gets
  // `alpn_fallback` (the `alpn-downgrade` fault: http/1.1 although anthro-v1 was offered).
  std::vector<std::string> alpn;
  std::vector<std::string> alpn_passed_over;
  std::string alpn_fallback;
};
Result<bool> configure_server_tls(ssl_ctx_st* ctx, const ServerTlsConfig& config);

struct ClientTlsConfig {
  std::vector<std::string> alpn;  // in preference order
  std::string ca_file;            // trust anchors; empty means the system store and the local endpoint's certificate
  bool insecure = false;
  std::shared_ptr<KeyLogSink> keylog;  // SSLKEYLOGFILE; null means none
};
Result<bool> configure_client_tls(ssl_ctx_st* ctx, const ClientTlsConfig& config);
// SNI and certificate name checks for `host` (a name or an IP literal).
Result<bool> set_client_host(ssl_st* ssl, const std::string& host);

// Keeps `*into` set to the TLS 1.3 application traffic secret `ssl` sends under, from OpenSSL's
// key log, for a stream that seals its own records (its next keys after a KeyUpdate). Every
// context configure_*_tls made logs keys through the callback that does it (and writes the
// key log, if one was asked for); a context nobody configured gets it here. False when the
// context logs keys through another callback: nothing will be kept.
bool watch_sending_secret(ssl_st* ssl, net::TrafficSecret* into);

std::string selected_alpn(const ssl_st* ssl);  // empty when none was selected
std::string tls_suite_name(const ssl_st* ssl);  // e.g. TLS_AES_256_GCM_SHA384

// The local endpoint's certificate, TLS key and static X25519 key, in `dir`; generated (0600)
// on first use and reused after.
struct EndpointCredentials {
  std::string cert_path;
  std::string key_path;
  std::string server_key_path;
};
Result<EndpointCredentials> ensure_endpoint_credentials(const std::string& dir);

}  // namespace anthro
