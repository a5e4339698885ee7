#include "endpoint/endpoint.h"

#include <future>
#include <stdexcept>
#include <thread>

#include "endpoint/server_state.h"
#include "net/deadline.h"
#include "profile/profile.h"
#include "util/files.h"

namespace anthro {

using namespace net;

namespace {

// The TLS port (its ALPN chooses the format), /metrics, or one format's cleartext port.
enum class SocketKind { Tls, Metrics, Format };

struct SocketRole {
  SocketKind kind;
  ProfileId format = ProfileId::AnthroV1;  // SocketKind::Format: whose
  bool operator==(SocketKind k) const { return kind == k; }
};

// Connections accepted per turn of the loop beyond the first. Not all that is queued: what
// waits in the kernel's backlog has no handshake timer running yet.
constexpr int kAcceptBurst = 16;

Result<tcp::endpoint> parse_listen(const std::string& text) {
  auto colon = text.rfind(':');
  if (colon == std::string::npos) return make_error(ErrorClass::Usage, "\"" + text + "\": expected HOST:PORT");
  std::string host = text.substr(0, colon), port = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  boost::system::error_code ec;
  auto address = asio::ip::make_address(host == "localhost" ? "127.0.0.1" : host, ec);
  if (ec) return make_error(ErrorClass::Usage, "\"" + text + "\": \"" + host + "\" is not an IP address");
  char* end = nullptr;
  long p = std::strtol(port.c_str(), &end, 10);
  if (port.empty() || *end || p < 0 || p > 65535) return make_error(ErrorClass::Usage, "\"" + text + "\": bad port");
  return tcp::endpoint(address, static_cast<std::uint16_t>(p));
}

std::string host_text(const asio::ip::address& a) { return a.is_v6() ? "[" + a.to_string() + "]" : a.to_string(); }

// The schemes a port serves, as its "listening" lines name them: the TLS port's, of every
// profile the endpoint emulates, in registry order; a format's cleartext port, its own.
std::vector<std::string> served_schemes(bool tls, std::optional<ProfileId> only = std::nullopt) {
  std::vector<std::string> out;
  for (const Profile* p : profiles())
    if (emulation_of(*p) && (!only || p->id == *only))
      for (const ProfileScheme& s : p->schemes)
        if (s.tls == tls) out.emplace_back(s.name);
  return out;
}

// The TLS port selects among the registry's ALPN ids in its order; the alpn-downgrade fault
// passes over anthro-v1's, answering the server's default (http/1.1) to a client offering it.
ServerTlsConfig server_alpn(const std::string& cert, const std::string& key, bool downgrade) {
  ServerTlsConfig tls{cert, key, {}, {}, {}};
  for (const Profile* p : profiles())
    for (std::string_view id : emulation_of(*p) ? p->alpn : std::span<const std::string_view>())
      (downgrade && p->id == ProfileId::AnthroV1 ? tls.alpn_passed_over : tls.alpn).emplace_back(id);
  if (downgrade) tls.alpn_fallback = tls_default_profile().alpn.front();
  return tls;
}

}  // namespace

std::string Listener::url() const { return scheme + "://" + host + ":" + std::to_string(port); }

struct Endpoint::Impl {
  asio::io_context io{1};
  asio::ssl::context tls{asio::ssl::context::tls_server};
  std::unique_ptr<ServerState> state;
  std::vector<Listener> listeners;
  std::vector<std::unique_ptr<tcp::acceptor>> acceptors;
  std::thread thread;
  EndpointCredentials credentials;
  std::size_t refusing = 0;  // connections being told they are beyond max_connections

  Result<bool> listen(const std::string& spec, SocketRole kind, const std::vector<std::string>& schemes) {
    if (spec.empty()) return true;
    auto where = parse_listen(spec);
    if (!where) return where.error();
    auto acceptor = std::make_unique<tcp::acceptor>(io);
    boost::system::error_code ec;
    acceptor->open(where->protocol(), ec);
    if (!ec) acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor->bind(*where, ec);
    if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return make_error(ErrorClass::Network, "cannot listen on " + spec + ": " + ec.message());
    auto local = acceptor->local_endpoint();
    for (const auto& scheme : schemes) listeners.push_back({scheme, host_text(local.address()), local.port()});
    co_spawn(io, accept_loop(*acceptor, kind), report_failure([this, spec](const std::string& what) {
               state->log("stopped accepting on " + spec + ": " + what);
             }));
    acceptors.push_back(std::move(acceptor));
    return true;
  }

  awaitable<void> accept_loop(tcp::acceptor& acceptor, SocketRole kind) {
    asio::steady_timer pause(io);
    boost::system::error_code ec;
    acceptor.non_blocking(true, ec);
    for (;;) {
      tcp::socket socket = co_await acceptor.async_accept(asio::redirect_error(use_awaitable, ec));
      if (ec == asio::error::operation_aborted) co_return;
      if (ec) {
        // Out of descriptors (EMFILE) the connection stays queued and accept fails again at
        // once: pause instead of spinning, while the timeouts free some.
        co_await sleep_for(pause, 0.05);
        continue;
      }
      admit_and_serve(std::move(socket), kind);
      // One accept per turn of a busy loop leaves the backlog seconds behind thousands of ready
      // handlers; a few more of what is queued keep it level (the acceptor is non-blocking).
      for (int more = 0; more < kAcceptBurst; ++more) {
        tcp::socket next(io);
        acceptor.accept(next, ec);
        if (ec) break;
        admit_and_serve(std::move(next), kind);
      }
    }
  }

  void admit_and_serve(tcp::socket socket, SocketRole kind) {
    boost::system::error_code ec;
    auto admission = admit(kind);
    if (!admission) {
      socket.set_option(asio::socket_base::linger(true, 0), ec);  // RST: nothing more to say
      return;
    }
    socket.set_option(tcp::no_delay(true), ec);
    co_spawn(io, serve(std::move(socket), kind, *admission),
             report_failure([this](const std::string& what) { log_failure(what); }));
  }

  // Served, refused with its reason, or (nothing) closed at once.
  std::optional<Admission> admit(SocketRole kind) {
    if (state->counters.open_connections < state->config.max_connections) return Admission::Serve;
    ++state->counters.refused_connections;
    // Telling a refused peer why costs a handshake; past a budget of such refusals the rest are
    // closed at once, so a flood cannot turn refusals into the new exhaustion.
    std::size_t budget = std::max<std::size_t>(16, state->config.max_connections / 8);
    if (kind == SocketKind::Metrics || refusing >= budget) return std::nullopt;
    return Admission::Refuse;
  }

  // Counted open (or refusing) until it ends, however it ends.
  awaitable<void> serve(tcp::socket socket, SocketRole kind, Admission admission) {
    bool served = admission == Admission::Serve;
    if (served) {
      ++state->counters.connections;
      ++state->counters.open_connections;
    } else {
      ++refusing;
    }
    auto failure = co_await failure_of(serve_kind(std::move(socket), kind, admission));
    if (served) --state->counters.open_connections;
    else --refusing;
    if (failure) log_failure(*failure);
  }

  void log_failure(const std::string& what) { state->log("connection: internal error: " + what); }

  awaitable<void> serve_kind(tcp::socket socket, SocketRole kind, Admission admission) {
    switch (kind.kind) {
      case SocketKind::Tls: co_await serve_tls(std::move(socket), admission); break;
      case SocketKind::Metrics: co_await serve_metrics(make_plain_stream(std::move(socket)), *state); break;
      case SocketKind::Format: {
        // Named, not a temporary in the co_await: GCC 12 destroys such temporaries twice.
        ServedConnection connection{make_plain_stream(std::move(socket)), admission, nullptr};
        co_await emulations().at(kind.format).serve(std::move(connection), *state);
        break;
      }
    }
  }

  awaitable<void> serve_tls(tcp::socket socket, Admission admission) {
    auto stream = make_tls_stream(std::move(socket), tls);
    auto ext = std::make_unique<ExtensionState>();
    ServerState* s = state.get();
    ext->answer_offer = [s, e = ext.get()](ByteView offer) { return answer_offer(*s, offer, e->keys); };
    attach_extension(stream->ssl(), ext.get());
    Deadline deadline(*stream);
    deadline.arm(admission == Admission::Serve ? state->config.handshake_timeout_s : refusal_timeout_s(state->config));
    bool ok = co_await tls_handshake(*stream, true);
    deadline.disarm();
    if (!ok) {
      ++state->counters.handshake_failures;
      if (deadline.expired()) ++state->counters.timeouts;
      co_return;
    }
    const Profile* chosen = profile_for_alpn(selected_alpn(stream->ssl()));
    // Always served: server_alpn offers only the ALPN ids of what is.
    const Emulation* emulation = emulation_of(chosen ? *chosen : tls_default_profile());
    if (!emulation) co_return;
    ServedConnection connection{std::move(stream), admission, std::move(ext)};  // named: see serve_kind
    co_await emulation->serve(std::move(connection), *state);
  }
};

namespace {

PerProfile<Emulation>& emulation_table() {
  static PerProfile<Emulation> table("register_emulation");
  return table;
}

}  // namespace

void register_emulation(ProfileId id, Emulation emulation) {
  if (!emulation.serve) throw std::logic_error("register_emulation: no serve");
  emulation_table().add(id, emulation);
}

const std::map<ProfileId, Emulation>& emulations() { return emulation_table().all(); }

const Emulation* emulation_of(const Profile& p) { return emulation_table().find(carrier_of(p).id); }

const Profile* served_by(const Profile& p) { return emulation_of(p) ? &carrier_of(p) : nullptr; }

std::vector<const Profile*> own_port_formats() {
  std::vector<const Profile*> out;
  for (const Profile* p : profiles())
    if (const Emulation* e = emulation_table().find(p->id); e && e->own_port) out.push_back(p);
  return out;
}

void offer_embedded_formats(EndpointConfig& config) {
  for (const Profile* p : own_port_formats()) offer_embedded_format(config, p->id);
  for (const auto& [id, route] : http_routes().all()) offer_embedded_format(config, id);
}

void offer_embedded_format(EndpointConfig& config, ProfileId id) {
  if (const Emulation* e = emulation_table().find(id); e && e->own_port) {
    config.own_listen[id] = "127.0.0.1:0";
    if (e->embedded) e->embedded(config);
  }
  if (const HttpRoute* route = http_routes().find(id); route && route->embedded) route->embedded(config);
}

Result<std::unique_ptr<Endpoint>> Endpoint::start(const EndpointConfig& config) {
  auto impl = std::make_unique<Impl>();
  EndpointCredentials& c = impl->credentials;
  c = {config.cert_path, config.key_path, config.server_key_path};
  if (c.cert_path.empty() || c.key_path.empty() || c.server_key_path.empty()) {
    auto dir = data_dir();
    if (!dir) return dir.error();
    auto generated = ensure_endpoint_credentials(*dir);
    if (!generated) return generated.error();
    if (c.cert_path.empty() || c.key_path.empty()) {
      c.cert_path = generated->cert_path;
      c.key_path = generated->key_path;
    }
    if (c.server_key_path.empty()) c.server_key_path = generated->server_key_path;
  }
  auto pem = read_file(c.server_key_path, file_limit::kPemKey);
  if (!pem) return pem.error();
  auto server_key = load_x25519_private_pem(*pem, c.server_key_path);
  if (!server_key) return server_key.error();
  impl->state = std::make_unique<ServerState>(config, *server_key);
  if (!config.tls_listen.empty()) {
    ServerTlsConfig tls = server_alpn(c.cert_path, c.key_path, config.model.faults.alpn_downgrade);
    if (auto ok = configure_server_tls(impl->tls.native_handle(), tls); !ok) return ok.error();
  }
  struct Socket {
    std::string spec;
    SocketRole role;
    std::vector<std::string> schemes;
  };
  std::vector<Socket> sockets = {
      {config.tls_listen, {SocketKind::Tls}, served_schemes(true)},
      {config.lab_listen, {SocketKind::Format, ProfileId::AnthroV1}, served_schemes(false, ProfileId::AnthroV1)},
      {config.http_listen, {SocketKind::Format, ProfileId::Http}, served_schemes(false, ProfileId::Http)},
      {config.metrics_listen, {SocketKind::Metrics}, {"metrics"}}};
  for (const auto& [id, spec] : config.own_listen) {
    const Emulation* e = emulation_table().find(id);
    if (!e || !e->own_port)
      return make_error(ErrorClass::Usage, std::string(profile(id).display_name) + ": the endpoint has no emulation of it");
    sockets.push_back({spec, {SocketKind::Format, id}, served_schemes(false, id)});
  }
  for (const auto& s : sockets)
    if (auto ok = impl->listen(s.spec, s.role, s.schemes); !ok) return ok.error();
  if (impl->listeners.empty()) return make_error(ErrorClass::Usage, "the endpoint has no socket to listen on");
  impl->thread = std::thread([io = &impl->io] { io->run(); });
  return std::unique_ptr<Endpoint>(new Endpoint(std::move(impl)));
}

Endpoint::Endpoint(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Endpoint::~Endpoint() { stop(); }

void Endpoint::stop() {
  if (!impl_ || !impl_->thread.joinable()) return;
  // Open anthro-v1 connections hear why (ERROR 503 on stream 0, as in a failover) before the
  // loop stops; a short grace lets those frames reach the wire.
  std::promise<bool> drained;
  asio::post(impl_->io, [impl = impl_.get(), &drained] {
    for (auto& a : impl->acceptors) a->close();
    std::vector<Drainable*> live(impl->state->live.begin(), impl->state->live.end());
    for (Drainable* c : live) c->drain(503, 1000, "unavailable: the endpoint is shutting down (failover in progress)");
    drained.set_value(!live.empty());
  });
  if (drained.get_future().get()) std::this_thread::sleep_for(std::chrono::milliseconds(150));
  asio::post(impl_->io, [impl = impl_.get()] { impl->io.stop(); });
  impl_->thread.join();
}

const std::vector<Listener>& Endpoint::listeners() const { return impl_->listeners; }

std::string Endpoint::url(std::string_view scheme) const {
  for (const auto& l : impl_->listeners)
    if (l.scheme == scheme) return l.url();
  return {};
}

std::string Endpoint::cert_path() const { return impl_->credentials.cert_path; }
std::string Endpoint::server_key_path() const { return impl_->credentials.server_key_path; }

EndpointCounters Endpoint::counters() const {
  const auto& c = impl_->state->counters;
  return {c.connections, c.open_connections, c.requests, c.cancels, c.frames_dropped,
          c.protocol_errors, c.handshake_failures, c.http_requests, c.refused_connections, c.timeouts,
          c.client_error_reports};
}

std::string Endpoint::metrics_text() const { return anthro::metrics_text(*impl_->state); }

}  // namespace anthro
