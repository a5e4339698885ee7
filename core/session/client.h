// The session client's coroutine, for run_session and for the bench's many concurrent
// sessions on one loop. Internal: it exposes Asio.
#pragma once

#include "crypto/key_schedule.h"
#include "net/byte_stream.h"
#include "protocol/blob.h"
#include "session/session.h"

namespace anthro {

Result<std::shared_ptr<net::asio::ssl::context>> make_client_tls(const SessionConfig& config, const Target& target);

class SessionClient {
 public:
  SessionClient(const SessionConfig& config, Target target, std::shared_ptr<net::asio::ssl::context> tls);
  net::awaitable<SessionResult> run();

 private:
  net::awaitable<bool> connect();
  void make_offer();
  net::awaitable<bool> negotiate();
  net::awaitable<void> run_anthro();
  net::awaitable<void> run_http();
  net::awaitable<bool> anthro_request(std::uint32_t stream_id, RequestResult& r);
  net::awaitable<bool> http_request(RequestResult& r);
  net::awaitable<std::size_t> read_some(std::uint8_t* data, std::size_t size);
  net::awaitable<bool> write(ByteView bytes);
  bool fail(std::string why);
  void finish_figures(RequestResult& r) const;
  RequestSpec request_spec() const;

  const SessionConfig& config_;
  Target target_;
  std::shared_ptr<net::asio::ssl::context> tls_;
  std::unique_ptr<net::ByteStream> stream_;
  SessionResult result_;
  ExtensionState ext_;
  X25519KeyPair client_key_;
  Negotiated negotiated_;
  FrameKeys keys_;
  double handshake_start_ = 0;
};

}  // namespace anthro
