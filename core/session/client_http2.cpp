// The HTTP baseline's requests over HTTP/2 (a TLS target that selected ALPN h2): each request a
// stream of the connection's Http2Client, its reply read into the same HttpReplyRecorder as an
// HTTP/1.1 reply, stamped at the socket read that delivered its bytes.
#include "http/reply_recorder.h"
#include "net/http2_client.h"
#include "session/client.h"

namespace anthro {

using namespace net;

void SessionClient::start_http2() { h2_ = std::make_unique<Http2Client>(); }

awaitable<bool> SessionClient::flush_http2() {
  Bytes out = h2_->take_output();
  if (out.empty()) co_return true;
  bool sent = co_await write(out);
  co_return sent;
}

awaitable<std::optional<double>> SessionClient::http2_read_more(std::string& why) {
  std::uint8_t buf[16384];
  const std::size_t n = co_await read_some(buf, sizeof buf);
  const double t = steady_now_s();  // stamped at the socket read, before any parsing
  if (n == 0) {
    why = "connection closed before the response ended" + stream_error();
    co_return std::nullopt;
  }
  if (!h2_->feed(ByteView(buf, n))) {
    why = h2_->error();
    co_await flush_http2();  // the GOAWAY that says why
    co_return std::nullopt;
  }
  if (!co_await flush_http2()) {
    why = "cannot write to the connection: " + stream_->error().message();
    co_return std::nullopt;
  }
  co_return t;
}

awaitable<bool> SessionClient::http2_exchange(RequestResult& r, RequestRecorder& rec, const RequestOptions& options,
                                              const HttpFields& fields, std::string body, bool messages) {
  const std::int32_t id = h2_->submit("POST", target_.authority(), target_.path, fields, std::move(body));
  if (id < 0) {
    rec.ended(RequestEnd::SendFailed, h2_->error());
    co_return false;
  }
  r.stream_id = static_cast<std::uint32_t>(id);
  if (!co_await flush_http2()) {
    if (closed_for_cancel_) rec.ended(RequestEnd::CancelClosed, kCancelClosed);
    else rec.ended(RequestEnd::SendFailed, "cannot send the request: " + stream_->error().message());
    co_return false;
  }
  HttpReplyRecorder reply(r, rec, messages, config_.stream);
  reply.on_text = config_.on_text;
  std::unique_ptr<RiderReply> rider = rider_reply();
  Http2Reply* got = h2_->reply(id);
  const RiderReply::HeaderLookup header = [got](const char* name) { return got->header(name); };
  bool head_seen = false;
  double t = 0;
  for (;;) {
    if (got->head_done) {
      if (!head_seen) reply.head(got->status, header, body_reader(rider));
      head_seen = true;
      reply.body(got->take_body(), t);
      if (closed_at_cancel_point(rec, options)) co_return false;
    }
    if (got->done) break;
    std::string why;
    auto read_at = co_await http2_read_more(why);
    if (!read_at) {
      if (closed_for_cancel_) rec.ended(RequestEnd::CancelClosed, kCancelClosed);
      else rec.ended(RequestEnd::ConnectionClosed, why);
      co_return false;
    }
    t = *read_at;
    rec.first_byte(t);
  }
  if (got->reset_code != 0 || !got->head_done) {
    rec.ended(RequestEnd::ProtocolError, "the server reset the stream (HTTP/2 error code " + std::to_string(got->reset_code) + ")", t);
    h2_->forget(id);
    co_return h2_->usable();
  }
  reply.trailers(got->trailers);
  reply.end(t);
  const int status = got->status;
  reply_read(rider.get(), status, header, got->trailers, reply);
  h2_->forget(id);
  if (!co_await after_reply(r, rider.get())) co_return false;
  if (status != 200) co_return h2_->usable();
  co_return r.end == RequestEnd::Response && h2_->usable();
}

awaitable<std::optional<SessionClient::SideReply>> SessionClient::http2_side_request(const std::string& method,
                                                                                     const std::string& path,
                                                                                     const HttpFields& fields,
                                                                                     std::string body,
                                                                                     const std::string& what) {
  const std::int32_t id = h2_->submit(method, target_.authority(), path, fields, std::move(body));
  if (id < 0) {
    fail(what + ": " + h2_->error());
    co_return std::nullopt;
  }
  if (!co_await flush_http2()) {
    fail("cannot send " + what + ": " + stream_->error().message());
    co_return std::nullopt;
  }
  Http2Reply* got = h2_->reply(id);
  SideReply reply;
  while (!got->done) {
    std::string why;
    auto read_at = co_await http2_read_more(why);
    if (!read_at) {
      fail(what + ": " + why);
      co_return std::nullopt;
    }
    reply.body += got->take_body();
    if (reply.body.size() > HttpReplyRecorder::kMaxKeptBody) {
      fail(what + ": more than " + std::to_string(HttpReplyRecorder::kMaxKeptBody) + " bytes");
      co_return std::nullopt;
    }
  }
  reply.body += got->take_body();
  reply.status = got->status;
  const bool reset = got->reset_code != 0 || !got->head_done;
  h2_->forget(id);
  if (reset) {
    fail(what + ": the server reset the stream");
    co_return std::nullopt;
  }
  co_return reply;
}

}  // namespace anthro
