#include "net/http2_client.h"

#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <vector>

namespace anthro::net {

namespace {

// RFC 9113 §8.2.2: fields HTTP/2 does not carry.
bool connection_specific(const std::string& name) {
  return name == "connection" || name == "transfer-encoding" || name == "keep-alive" || name == "upgrade" ||
         name == "proxy-connection" || name == "host" || name == "content-length";
}

nghttp2_nv nv(const std::string& name, const std::string& value) {
  return {reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
          NGHTTP2_NV_FLAG_NONE};
}

}  // namespace

std::string Http2Reply::header(std::string_view name) const {
  for (const auto& [n, v] : headers)
    if (n == name) return v;
  return {};
}

std::string Http2Reply::take_body() { return std::exchange(body, {}); }

// nghttp2's callbacks, reaching the client through user_data.
struct Http2Client::Callbacks {
  static Http2Client& self(void* p) { return *static_cast<Http2Client*>(p); }

  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name, std::size_t namelen,
                       const std::uint8_t* value, std::size_t valuelen, std::uint8_t, void* p) {
    if (frame->hd.type != NGHTTP2_HEADERS) return 0;
    Http2Reply* r = self(p).reply(frame->hd.stream_id);
    if (!r) return 0;
    r->field_bytes += namelen + valuelen;
    if (r->field_bytes > kMaxFieldBytes) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;  // nghttp2 resets the stream
    std::string n(reinterpret_cast<const char*>(name), namelen), v(reinterpret_cast<const char*>(value), valuelen);
    if (r->head_done) {  // trailing HEADERS
      r->trailers.emplace_back(std::move(n), std::move(v));
    } else if (n == ":status") {
      int status = 0;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), status);
      if (ec != std::errc() || end != v.data() + v.size() || status < 100 || status > 999) return NGHTTP2_ERR_HTTP_HEADER;
      r->status = status;
      r->headers.clear();  // a 1xx's fields are not the reply's
    } else {
      r->headers.emplace_back(std::move(n), std::move(v));
    }
    return 0;
  }

  static int on_frame(nghttp2_session*, const nghttp2_frame* frame, void* p) {
    Http2Client& c = self(p);
    if (frame->hd.type == NGHTTP2_GOAWAY) c.goaway_ = true;
    Http2Reply* r = c.reply(frame->hd.stream_id);
    if (!r) return 0;
    if (frame->hd.type == NGHTTP2_HEADERS && r->status >= 200) r->head_done = true;
    if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) && (frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
      r->done = true;
    return 0;
  }

  static int on_data(nghttp2_session*, std::uint8_t, std::int32_t stream, const std::uint8_t* data, std::size_t len, void* p) {
    if (Http2Reply* r = self(p).reply(stream)) r->body.append(reinterpret_cast<const char*>(data), len);
    return 0;
  }

  static int on_close(nghttp2_session*, std::int32_t stream, std::uint32_t error_code, void* p) {
    Http2Client& c = self(p);
    c.bodies_.erase(stream);
    if (Http2Reply* r = c.reply(stream)) {
      r->done = true;
      r->reset_code = error_code;
    }
    return 0;
  }

  static ssize_t read_body(nghttp2_session*, std::int32_t stream, std::uint8_t* buf, std::size_t length,
                           std::uint32_t* flags, nghttp2_data_source*, void* p) {
    auto it = self(p).bodies_.find(stream);
    if (it == self(p).bodies_.end()) {
      *flags |= NGHTTP2_DATA_FLAG_EOF;
      return 0;
    }
    Outgoing& o = it->second;
    const std::size_t n = std::min(length, o.body.size() - o.sent);
    std::memcpy(buf, o.body.data() + o.sent, n);
    o.sent += n;
    if (o.sent == o.body.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  }
};

Http2Client::Http2Client() {
  nghttp2_session_callbacks* cb = nullptr;
  nghttp2_session_callbacks_new(&cb);
  nghttp2_session_callbacks_set_on_header_callback(cb, Callbacks::on_header);
  nghttp2_session_callbacks_set_on_frame_recv_callback(cb, Callbacks::on_frame);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, Callbacks::on_data);
  nghttp2_session_callbacks_set_on_stream_close_callback(cb, Callbacks::on_close);
  nghttp2_session_client_new(&session_, cb, this);
  nghttp2_session_callbacks_del(cb);
  const nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
                                             {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, kMaxFieldBytes}};
  nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, std::size(settings));
}

Http2Client::~Http2Client() { nghttp2_session_del(session_); }

std::int32_t Http2Client::submit(std::string_view method, std::string_view authority, std::string_view path,
                                 const HttpFields& fields, std::string body) {
  const std::string m(method), s("https"), a(authority), p(path);
  const std::string pm(":method"), ps(":scheme"), pa(":authority"), pp(":path");
  std::vector<std::pair<std::string, std::string>> kept;
  kept.reserve(fields.size());
  for (const auto& [name, value] : fields)
    if (std::string n = ascii_lower(name); !connection_specific(n) && !n.starts_with(':')) kept.emplace_back(std::move(n), value);
  std::vector<nghttp2_nv> nva = {nv(pm, m), nv(ps, s), nv(pa, a), nv(pp, p)};
  for (const auto& [n, v] : kept) nva.push_back(nv(n, v));
  nghttp2_data_provider provider{};
  provider.read_callback = Callbacks::read_body;
  const bool has_body = !body.empty();
  const std::int32_t id = nghttp2_submit_request(session_, nullptr, nva.data(), nva.size(), has_body ? &provider : nullptr, nullptr);
  if (id < 0) {
    error_ = std::string("cannot start an HTTP/2 stream: ") + nghttp2_strerror(id);
    return -1;
  }
  if (has_body) bodies_[id] = {std::move(body), 0};
  replies_[id];
  return id;
}

bool Http2Client::feed(ByteView data) {
  const auto used = nghttp2_session_mem_recv(session_, data.data(), data.size());
  if (used < 0) {
    error_ = std::string("HTTP/2: ") + nghttp2_strerror(static_cast<int>(used));
    goaway_ = true;
    return false;
  }
  return true;
}

Bytes Http2Client::take_output() {
  Bytes out;
  for (;;) {
    const std::uint8_t* data = nullptr;
    const auto n = nghttp2_session_mem_send(session_, &data);
    if (n < 0) {
      error_ = std::string("HTTP/2: ") + nghttp2_strerror(static_cast<int>(n));
      goaway_ = true;
      break;
    }
    if (n == 0) break;
    out.insert(out.end(), data, data + n);
  }
  return out;
}

Http2Reply* Http2Client::reply(std::int32_t stream) {
  auto it = replies_.find(stream);
  return it == replies_.end() ? nullptr : &it->second;
}

void Http2Client::forget(std::int32_t stream) { replies_.erase(stream); }

bool Http2Client::usable() const {
  return !goaway_ && (nghttp2_session_want_read(session_) || nghttp2_session_want_write(session_));
}

}  // namespace anthro::net
