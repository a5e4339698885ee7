// The session client's coroutine, for run_session and for the bench's many concurrent
// sessions on one loop. Internal: it exposes Asio.
#pragma once

#include "crypto/aead.h"
#include "crypto/key_schedule.h"
#include "crypto/keylog.h"
#include "net/byte_stream.h"
#include "net/http_io.h"
#include "net/proxy.h"
#include "protocol/blob.h"
#include "session/http_rider.h"
#include "session/session.h"

namespace anthro {

namespace net { class Http2Client; }
class HttpReplyRecorder;

Result<std::shared_ptr<net::asio::ssl::context>> make_client_tls(const SessionConfig& config, const Target& target,
                                                                  std::shared_ptr<KeyLogSink> keylog);

// The parsed target, for TLS targets the client context, and the key log every connection of
// the run writes: what every client loop needs before it starts. Errors: a malformed target or
// an unreadable CA file.
struct ClientSetup {
  Target target;
  std::shared_ptr<net::asio::ssl::context> tls;  // null for cleartext targets
  std::shared_ptr<KeyLogSink> keylog;            // null without config.keylog_path; its error is the run's warning
  std::optional<net::ProxyRoute> proxy;          // the proxy every connection of the run takes
};
Result<ClientSetup> prepare_client(const SessionConfig& config);

// How many times in a row a request is sent again when its rider asks (RiderNext::SendAgain).
inline constexpr unsigned kMaxResends = 3;

// A request's error when request_cancel() closed its connection.
inline constexpr const char* kCancelClosed = "cancelled by the client (connection closed)";

class SessionClient : private HttpSideRequests {
 public:
  SessionClient(const SessionConfig& config, const ClientSetup& setup);
  ~SessionClient();
  // The whole session: open, then config.repeat requests; `on_request` sees each one finished.
  net::awaitable<SessionResult> run(std::function<void(const RequestResult&)> on_request = nullptr);

  // Connects and negotiates; false with result().error set on failure.
  net::awaitable<bool> open();
  // One request on the open connection; false when the connection cannot take another.
  net::awaitable<bool> request(RequestResult& r, const RequestOptions& options);
  void close();
  // False when the server has closed the idle connection (or sent something between
  // requests): a pool must not send the next request on it.
  bool idle_and_open();
  SessionResult& result() { return result_; }
  // What run() handed its completion handler: its result, or, when it threw, the session so
  // far with error "internal error: WHAT".
  SessionResult outcome(std::exception_ptr e, SessionResult r);

  // Stops the session; call it on the client's executor (post it there from other threads).
  // anthro-v1: a request in flight gets a CANCEL at once (written alongside the pending read,
  // or right after the REQUEST when that is still being written) and is read until its
  // RESPONSE. HTTP: the connection is closed, the only cancel the HTTP APIs have, and the
  // request ends with error "cancelled by the client (connection closed)". No further request
  // starts. `close_connection` also closes an anthro-v1 connection (once the CANCEL is
  // written), or the connect under way, for a caller that will not wait for the RESPONSE.
  void request_cancel(bool close_connection = false);
  bool cancel_requested() const { return cancel_requested_; }
  // The last request's rider asked that it be sent again at once (RiderNext::SendAgain).
  bool resend_pending() const { return resend_pending_; }

 private:
  net::awaitable<bool> connect();
  void make_offer();
  net::awaitable<bool> negotiate();
  net::awaitable<bool> anthro_request(RequestResult& r, RequestRecorder& rec, const RequestOptions& options);
  net::awaitable<bool> http_request(RequestResult& r, RequestRecorder& rec, const RequestOptions& options);
  // The request's content fields (a rider's, when one rides on the requests).
  net::HttpFields content_fields() const;
  void add_user_headers(net::HttpFields& fields) const;
  bool forwarding() const;  // the HTTP requests go to a forward proxy (ProxyWay::Forward)
  std::string request_target(const std::string& path) const;
  // A request of the client's own beside the model's (a rider's) on the session's connection.
  using SideReply = HttpSideReply;
  net::awaitable<std::optional<SideReply>> side_request(std::string method, std::string path, std::string body,
                                                       std::string what) override;
  void warn(std::string line) override { result_.warnings.push_back(std::move(line)); }
  // The HTTP/1.1 loop's shared ends: the client fault that closes at N tokens (true: closed),
  // and what follows a reply read whole (false: the session cannot go on).
  bool closed_at_cancel_point(RequestRecorder& rec, const RequestOptions& options);
  net::awaitable<bool> after_reply(RequestResult& r, RiderReply* reader);
  // The rider's reader of a reply: the body's reader the recorder is given (null for a
  // fields_only() one, which sees the reply beside the API's), and the whole reply handed to a
  // fields_only() one once read.
  static RiderReply* body_reader(const std::unique_ptr<RiderReply>& rider);
  static void reply_read(RiderReply* rider, int status, const RiderReply::HeaderLookup& header,
                         const std::vector<std::pair<std::string, std::string>>& trailers, HttpReplyRecorder& reply);
  // HTTP/2 (ALPN h2): client_http2.cpp.
  void start_http2();
  net::awaitable<bool> flush_http2();
  net::awaitable<std::optional<double>> http2_read_more(std::string& why);  // the read's time, or nullopt (why)
  net::awaitable<bool> http2_exchange(RequestResult& r, RequestRecorder& rec, const RequestOptions& options,
                                      const net::HttpFields& fields, std::string body, bool messages);
  std::unique_ptr<RiderReply> rider_reply() { return rider_ ? rider_->reply() : nullptr; }
  net::awaitable<std::optional<SideReply>> http2_side_request(const std::string& method, const std::string& path,
                                                              const net::HttpFields& fields, std::string body,
                                                              const std::string& what);
  net::awaitable<std::size_t> read_some(std::uint8_t* data, std::size_t size);
  // read_some with the configured read delay and the on_bytes observer.
  net::awaitable<std::size_t> observed_read_some(std::uint8_t* data, std::size_t size);
  net::awaitable<bool> write(ByteView bytes);
  bool fail(std::string why);
  std::string stream_error() const;  // " (reason)" when the stream failed, else empty
  RequestSpec request_spec(const RequestOptions& options) const;
  void note_ring(RequestResult& r, std::size_t just_read);

  // The anthro-v1 request whose frames are being read, for a CANCEL; lives in anthro_request.
  struct InFlight {
    RequestResult& r;
    RequestRecorder& rec;
    Aead& c2s;
    std::uint8_t flags;  // the REQUEST's, which CANCEL copies (spec §4)
    bool reading = false;  // waiting for bytes, no write under way: a CANCEL may go out alongside
    bool cancel_sent = false;
  };
  Bytes seal_cancel(InFlight& f);  // stamps cancel_written: call it just before the write
  net::awaitable<void> write_cancel(Bytes frame, bool close_after);
  void close_for_cancel();

  const SessionConfig& config_;
  Target target_;
  std::shared_ptr<net::asio::ssl::context> tls_;
  std::shared_ptr<KeyLogSink> keylog_;
  std::optional<net::ProxyRoute> proxy_;
  std::unique_ptr<net::ByteStream> stream_;
  std::unique_ptr<net::Http2Client> h2_;  // the connection selected ALPN h2
  ProfileId carrier_;  // what the connection speaks: the target's, or what its TLS handshake chose
  SessionResult result_;
  ExtensionState ext_;
  X25519KeyPair client_key_;
  Negotiated negotiated_;
  FrameKeys keys_;
  NonceSequence nonces_;  // for key_c2s: one sequence per connection, so no nonce repeats
  double handshake_start_ = 0;
  std::uint32_t next_stream_id_ = 1;
  // HTTP/1.1 requests written on the connection (side requests too): a request's number among
  // them is its stream_id, as a capture's HTTP dissector numbers the connection's exchanges.
  std::uint32_t http1_exchanges_ = 0;
  // request_cancel(); all on the client's executor.
  bool cancel_requested_ = false;
  bool closed_for_cancel_ = false;
  std::uint64_t ring_reads_ = 0;  // note_ring's count, for its every-64th look
  RequestRecorder* current_ = nullptr;  // the request under way
  InFlight* in_flight_ = nullptr;
  net::tcp::socket* connecting_ = nullptr;
  bool resend_pending_ = false;  // resend_pending()
  std::unique_ptr<LiveHttpRider> rider_;  // the format riding on the HTTP requests (config.riders)
};

}  // namespace anthro
