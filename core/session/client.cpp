// The session client: anthro-v1 over TLS (extension or preface) or lab mode, and the HTTP
// baseline with SSE, all on one coroutine per session.
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>

#include <cerrno>

#include "crypto/keylog.h"
#include "http/messages_api.h"
#include "net/dial.h"
#include "net/http2_client.h"
#include "net/http_io.h"
#include "profile/profile.h"
#include "protocol/stream_decoder.h"
#include "session/client.h"

namespace anthro {

using namespace net;
using Clock = std::chrono::steady_clock;

namespace {

// A certificate the client did not accept also names the trust in force and how to change it,
// in no interface's words: the CLI's --cacert/--insecure and the session page's CA file and
// Insecure are the same two choices.
// Through a proxy the handshake crossed its tunnel, which the message names (the proxy may be
// what failed: a tunnel to the wrong place, a TLS-intercepting proxy).
std::string handshake_failed(const Target& t, const SessionConfig& config, const std::optional<ProxyRoute>& route,
                             ByteStream& stream, std::string why) {
  long verify = SSL_get_verify_result(stream.ssl());
  if (verify != X509_V_OK)
    why += std::string(" (") + X509_verify_cert_error_string(verify) + "; trusted: " +
           (config.ca_file.empty() ? "the system store and the local endpoint's certificate" : config.ca_file) +
           "; trust the CA certificate that signed it, or turn the check off)";
  const std::string through = route ? " (through proxy " + route->server.url() + ")" : "";
  return "TLS handshake with " + t.authority() + through + " failed: " + why;
}

// Why the target's transport did not come up; nothing when it did.
awaitable<std::optional<std::string>> first_contact(const Target& t, const SessionConfig& config,
                                                    const std::optional<ProxyRoute>& route, asio::ssl::context* tls) {
  tcp::socket socket(co_await asio::this_coro::executor);
  Reached reached;
  const Dial d{t.host, t.port, route ? &*route : nullptr, config.timeout_s};  // named: GCC 12 ends a co_await's temporaries early
  if (auto why = co_await dial(socket, d, reached)) co_return why;
  if (!tls) co_return std::nullopt;
  auto stream = make_tls_stream(std::move(socket), *tls);
  if (auto ok = set_client_host(stream->ssl(), t.host); !ok) co_return ok.error().detail;
  if (!co_await tls_handshake(*stream, false)) co_return handshake_failed(t, config, route, *stream, stream->error().message());
  stream->close();
  co_return std::nullopt;
}

}  // namespace

Result<bool> reach_target(const SessionConfig& config, const std::atomic<bool>* stop) {
  auto target = parse_session_target(config.target);
  if (!target) return target.error();
  std::unique_ptr<asio::ssl::context> tls;
  if (target->tls) {
    tls = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_client);
    ClientTlsConfig trust;  // no ALPN, no key log: only the handshake is wanted
    trust.ca_file = config.ca_file;
    trust.insecure = config.insecure;
    if (auto ok = configure_client_tls(tls->native_handle(), trust); !ok) return ok.error();
  }
  auto route = proxy_route(config.proxy, target->host, target->tls, target->http());
  if (!route) return route.error();
  asio::io_context io;
  bool done = false;
  std::optional<std::string> why;
  co_spawn(io, first_contact(*target, config, *route, tls.get()), [&](std::exception_ptr e, std::optional<std::string> r) {
    done = true;
    why = e ? "internal error: " + exception_text(e) : std::move(r);
  });
  // A peer that never answers (a dropped SYN, a listener that never speaks TLS) is given the
  // request timeout; a stop ends the wait sooner.
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(config.timeout_s));
  while (!done && !(stop && stop->load()) && Clock::now() < deadline) io.run_for(std::chrono::milliseconds(100));
  if (!done && stop && stop->load()) return make_error(ErrorClass::Cancelled, "cancelled while reaching " + target->authority());
  if (!done) return make_error(ErrorClass::Network, "unreachable", "no answer from " + target->authority() + " within " + seconds_text(config.timeout_s) + " s (--timeout-s)");
  if (why) return make_error(ErrorClass::Network, "unreachable", *why);
  return true;
}

Result<std::shared_ptr<asio::ssl::context>> make_client_tls(const SessionConfig& config, const Target& target,
                                                             std::shared_ptr<KeyLogSink> keylog) {
  auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  ClientTlsConfig tls;
  // anthro-v1 clients also offer http/1.1 so a server that refuses anthro-v1 can say so; an
  // HTTP/2 client falls back to HTTP/1.1 when the server does not select h2.
  if (target.profile == ProfileId::AnthroV1) tls.alpn = {"anthro-v1", "http/1.1"};
  else if (config.http2) tls.alpn = {"h2", "http/1.1"};
  else tls.alpn = {"http/1.1"};
  tls.ca_file = config.ca_file;
  tls.insecure = config.insecure;
  tls.keylog = std::move(keylog);
  if (auto ok = configure_client_tls(ctx->native_handle(), tls); !ok) return ok.error();
  return ctx;
}

Result<ClientSetup> prepare_client(const SessionConfig& config) {
  auto target = parse_target(config.target);
  if (!target) return target.error();
  ClientSetup setup{*target, nullptr, nullptr, {}};
  auto route = proxy_route(config.proxy, target->host, target->tls, target->http());
  if (!route) return route.error();
  setup.proxy = *route;
  if (!config.keylog_path.empty()) setup.keylog = std::make_shared<KeyLogSink>(config.keylog_path);
  if (target->tls) {
    auto ctx = make_client_tls(config, *target, setup.keylog);
    if (!ctx) return ctx.error();
    setup.tls = *ctx;
  }
  return setup;
}

SessionClient::SessionClient(const SessionConfig& config, const ClientSetup& setup)
    : config_(config), target_(setup.target), tls_(setup.tls), keylog_(setup.keylog), proxy_(setup.proxy),
      carrier_(target_.profile) {
  result_.target = target_.url;
  if (proxy_) result_.proxy = proxy_->server.url();
  result_.transport = target_.transport();
  result_.profile = target_.profile;
  // Riders ride on the Messages API's requests only.
  if (target_.api != HttpApi::Messages) return;
  for (const auto& [id, options] : config.riders)
    if (const auto* make = live_http_riders().find(id); make && !rider_) rider_ = (*make)(config, options);
}

SessionClient::~SessionClient() = default;

awaitable<SessionResult> SessionClient::run(std::function<void(const RequestResult&)> on_request) {
  bool open_ok = co_await open();
  RequestOptions options{config_.cancel_after_tokens, config_.metadata_json};
  unsigned resends = 0;
  for (unsigned i = 0; open_ok && i < config_.repeat && !cancel_requested_; ++i) {
    RequestResult& r = result_.requests.emplace_back();
    bool go_on = co_await request(r, options);
    if (on_request) on_request(r);
    if (!go_on) break;
    if (resend_pending()) ++resends;  // the same request again, not counted against repeat
    else resends = 0;
    if (resends > 0 && resends <= kMaxResends) --i;
  }
  if (cancel_requested_ && result_.requests.empty() && (open_ok || closed_for_cancel_))
    result_.error = "cancelled by the client before the first request";
  if (keylog_)
    if (auto error = keylog_->error()) result_.warnings.push_back(*error);
  close();
  co_return std::move(result_);
}

SessionResult SessionClient::outcome(std::exception_ptr e, SessionResult r) {
  if (!e) return r;
  SessionResult so_far = result_;
  so_far.error = "internal error: " + exception_text(e);
  return so_far;
}

awaitable<bool> SessionClient::open() {
  bool connected = co_await connect();
  if (!connected || target_.profile != ProfileId::AnthroV1) co_return connected;
  bool negotiated = co_await negotiate();
  co_return negotiated;
}

awaitable<bool> SessionClient::request(RequestResult& r, const RequestOptions& options) {
  bool go_on = false;
  RequestRecorder rec(r);
  r.carrier = carrier_;
  current_ = &rec;
  resend_pending_ = false;
  if (target_.profile == ProfileId::AnthroV1) go_on = co_await anthro_request(r, rec, options);
  else go_on = co_await http_request(r, rec, options);
  current_ = nullptr;
  rec.finish(config_.stream);
  co_return go_on;
}

void SessionClient::close() {
  if (stream_) stream_->close();
}

bool SessionClient::idle_and_open() {
  if (!stream_ || closed_for_cancel_) return false;
  char byte;
  ssize_t n = ::recv(stream_->socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  const bool nothing = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  // HTTP/2 servers send between requests (SETTINGS, PING, WINDOW_UPDATE): only a close counts.
  if (h2_) return (n > 0 || nothing) && h2_->usable();
  return nothing;  // nothing to read, not closed
}

void SessionClient::request_cancel(bool close_connection) {
  cancel_requested_ = true;
  bool anthro = target_.profile == ProfileId::AnthroV1;
  if (anthro && in_flight_ && !in_flight_->cancel_sent) {
    if (in_flight_->reading) {
      // The loop writes nothing while it waits for bytes, so this write overlaps no other.
      co_spawn(stream_->socket().get_executor(), write_cancel(seal_cancel(*in_flight_), close_connection),
               report_failure([this](const std::string& what) {
                 fail("internal error writing CANCEL: " + what);
                 close();
               }));
      return;
    }
    if (!close_connection) return;  // the REQUEST is being written: the loop sends CANCEL after it
  }
  if (anthro && !close_connection) return;  // nothing in flight, or CANCEL already sent
  if (!anthro && current_) current_->cancel_sent(steady_now_s());
  close_for_cancel();
}

awaitable<void> SessionClient::write_cancel(Bytes frame, bool close_after) {
  co_await write(frame);
  if (close_after) close_for_cancel();
}

void SessionClient::close_for_cancel() {
  closed_for_cancel_ = true;
  boost::system::error_code ignored;
  if (stream_) stream_->close();
  else if (connecting_) connecting_->close(ignored);
}

awaitable<bool> SessionClient::connect() {
  tcp::socket socket(co_await asio::this_coro::executor);
  connecting_ = &socket;  // for request_cancel(true)
  struct Done { tcp::socket*& p; ~Done() { p = nullptr; } } done{connecting_};
  Dial d{target_.host, target_.port, proxy_ ? &*proxy_ : nullptr, config_.timeout_s};
  if (config_.ring_kib)
    d.prepare = [kib = *config_.ring_kib](tcp::socket& s) {
      boost::system::error_code ignored;
      s.set_option(asio::socket_base::receive_buffer_size(kib * 1024), ignored);
    };
  d.cancelled = &closed_for_cancel_;
  Reached reached;
  if (auto why = co_await dial(socket, d, reached)) co_return fail(std::move(*why));
  result_.connect_ms = reached.connect_ms;
  result_.proxy_connect_ms = reached.tunnel_ms;
  handshake_start_ = steady_now_s();
  if (!target_.tls) {
    stream_ = make_plain_stream(std::move(socket));
    co_return true;
  }
  stream_ = make_tls_stream(std::move(socket), *tls_);
  if (auto ok = set_client_host(stream_->ssl(), target_.host); !ok) co_return fail(ok.error().detail);
  if (target_.profile == ProfileId::AnthroV1 && config_.tls_extension) {
    make_offer();
    attach_extension(stream_->ssl(), &ext_);
  }
  bool shook = co_await tls_handshake(*stream_, false);
  if (!shook) {
    std::string why = !ext_.refusal.empty() ? "negotiation refused in the TLS extension: " + ext_.refusal
                                            : stream_->error().message();
    co_return fail(handshake_failed(target_, config_, proxy_, *stream_, std::move(why)));
  }
  result_.alpn = selected_alpn(stream_->ssl());
  result_.tls_suite = tls_suite_name(stream_->ssl());
  if (target_.profile == ProfileId::AnthroV1 && result_.alpn != kAlpnAnthro)
    co_return fail("server selected " + (result_.alpn.empty() ? std::string("no ALPN") : "ALPN \"" + result_.alpn + "\"") +
                   " instead of anthro-v1");
  result_.handshake_ms = (steady_now_s() - handshake_start_) * 1000.0;
  if (const Profile* chosen = profile_for_handshake(result_.alpn, true)) carrier_ = chosen->id;  // ALPN was offered
  if (carrier_ == ProfileId::Http2) start_http2();
  co_return true;
}

std::string SessionClient::stream_error() const {
  return stream_->error() ? " (" + stream_->error().message() + ")" : std::string();
}

bool SessionClient::fail(std::string why) {
  result_.error = std::move(why);
  return false;
}

void SessionClient::make_offer() {
  if (!ext_.offer.empty()) return;
  client_key_ = generate_x25519();
  Blob offer;
  offer.max_streams = 8;
  offer.default_max_tokens = 1024;
  offer.flags = kFlagStreaming;
  offer.aead = kSuiteAes256Gcm | kSuiteChaCha20Poly1305;
  offer.ring_buffer_kib = config_.ring_kib.value_or(kDefaultRingKib);
  do random_bytes(reinterpret_cast<std::uint8_t*>(&offer.connection_token), 8);
  while (offer.connection_token == 0);
  offer.x25519_public = client_key_.public_key;
  random_bytes(offer.random.data(), offer.random.size());
  ext_.offer = encode_blob(offer);
}

awaitable<bool> SessionClient::negotiate() {
  make_offer();
  Bytes answer = ext_.answer;
  result_.extension_used = !answer.empty();
  if (answer.empty()) {
    // No answer in the handshake (or lab mode): the preface, with the same offer bytes.
    Bytes preface(kPrefaceMagic.begin(), kPrefaceMagic.end());
    append(preface, ext_.offer);
    if (!target_.tls) handshake_start_ = steady_now_s();  // spec §6, lab: from the first preface byte sent
    bool sent = co_await write(preface);
    if (!sent) co_return fail("cannot send the preface: " + stream_->error().message());
    std::uint8_t in[kPrefaceSize];
    std::size_t have = 0;
    while (have < kPrefaceSize) {
      std::size_t n = co_await read_some(in + have, kPrefaceSize - have);
      if (n == 0) co_return fail("the server closed the connection during the preface (the offer was refused)");
      have += n;
    }
    if (std::memcmp(in, kPrefaceMagic.data(), 8) != 0) co_return fail("the server's answer has no ANTHRO01 preface");
    answer.assign(in + 8, in + kPrefaceSize);
  }
  Blob offer = *decode_blob(ext_.offer);
  if (auto refusal = check_answer(offer, answer))
    co_return fail(std::string("answer refused: ") + to_string(refusal->reason) + ": " + refusal->detail);
  Blob answer_blob = *decode_blob(answer);
  auto keys = client_frame_keys(client_key_.private_key, offer, answer_blob);
  if (!keys) co_return fail("key derivation failed: " + keys.error().detail);
  negotiated_ = negotiated_from(answer_blob);
  keys_ = *keys;
  result_.suite = std::string(to_string(negotiated_.suite));
  result_.handshake_ms = (steady_now_s() - handshake_start_) * 1000.0;
  // A key log that cannot be written does not stop the session: the run reports it once.
  const std::string key_line = format_anthro_line(negotiated_.token, keys_);
  if (keylog_) keylog_->append(key_line);
  OwnKeyLog::record(key_line);
  co_return true;
}

}  // namespace anthro
