// The session client's coroutine, for run_session and for the bench's many concurrent
// sessions on one loop. Internal: it exposes Asio.
#pragma once

#include "crypto/aead.h"
#include "crypto/key_schedule.h"
#include "net/byte_stream.h"
#include "protocol/blob.h"
#include "session/session.h"

namespace anthro {

Result<std::shared_ptr<net::asio::ssl::context>> make_client_tls(const SessionConfig& config, const Target& target);

// What may differ between the requests of one connection (the bench varies them).
struct RequestOptions {
  std::optional<std::uint32_t> cancel_after_tokens;
  std::optional<std::string> metadata_json;
};

class SessionClient {
 public:
  SessionClient(const SessionConfig& config, Target target, std::shared_ptr<net::asio::ssl::context> tls);
  // The whole session: open, then config.repeat requests.
  net::awaitable<SessionResult> run();

  // Connects and negotiates; false with result().error set on failure.
  net::awaitable<bool> open();
  // One request on the open connection; false when the connection cannot take another.
  net::awaitable<bool> request(RequestResult& r, const RequestOptions& options);
  void close();
  SessionResult& result() { return result_; }

 private:
  net::awaitable<bool> connect();
  void make_offer();
  net::awaitable<bool> negotiate();
  net::awaitable<bool> anthro_request(RequestResult& r, const RequestOptions& options);
  net::awaitable<bool> http_request(RequestResult& r, const RequestOptions& options);
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
  NonceSequence nonces_;  // for key_c2s: one sequence per connection, so no nonce repeats
  double handshake_start_ = 0;
  std::uint32_t next_stream_id_ = 1;
};

}  // namespace anthro
