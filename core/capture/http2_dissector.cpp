#include "capture/http2_dissector.h"

#include <nghttp2/nghttp2.h>

#include <array>

namespace anthro {

namespace {

constexpr std::string_view kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
constexpr std::size_t kFrameHeader = 9;

enum FrameType : std::uint8_t {
  kData = 0, kHeaders, kPriority, kRstStream, kSettings, kPushPromise, kPing, kGoaway, kWindowUpdate, kContinuation
};

std::uint32_t be32(std::string_view b, std::size_t at) {
  return std::uint32_t{static_cast<std::uint8_t>(b[at])} << 24 | std::uint32_t{static_cast<std::uint8_t>(b[at + 1])} << 16 |
         std::uint32_t{static_cast<std::uint8_t>(b[at + 2])} << 8 | static_cast<std::uint8_t>(b[at + 3]);
}

const char* side_name(Direction dir) { return dir == Direction::ClientToServer ? "client" : "server"; }

}  // namespace

struct Http2Dissector::Stream {
  std::uint32_t id = 0;
  net::HttpRequest request;
  bool request_seen = false;  // its HEADERS
  double start = 0;
  std::uint64_t first_packet = 0;
  HttpDissector::ExchangePtr x;  // opened once the request is complete (or the server answered)
  std::map<std::string, std::string> reply;  // the reply head's fields, names lower case
  bool reply_seen = false;
};

namespace {

HttpDissector::HeaderLookup reply_fields(const Http2Dissector::Stream& s) {
  return [&s](const char* name) {
    auto f = s.reply.find(name);
    return f == s.reply.end() ? std::string() : f->second;
  };
}

}  // namespace

std::string http2_frame_type_name(std::uint8_t type) {
  static constexpr std::array<const char*, 10> kNames = {"DATA",   "HEADERS", "PRIORITY", "RST_STREAM",    "SETTINGS",
                                                         "PUSH_PROMISE", "PING", "GOAWAY", "WINDOW_UPDATE", "CONTINUATION"};
  if (type < kNames.size()) return kNames[type];
  static const char* const hex = "0123456789abcdef";
  return std::string("0x") + hex[type >> 4] + hex[type & 15];
}


Http2Dissector::Http2Dissector(Events events) : events_(std::move(events)), http_(events_) {
  nghttp2_hd_inflate_new(&client_.inflater);
  nghttp2_hd_inflate_new(&server_.inflater);
  if (!client_.inflater || !server_.inflater) error_ = "HTTP/2: cannot make an HPACK inflater";
}

Http2Dissector::~Http2Dissector() {
  if (client_.inflater) nghttp2_hd_inflate_del(client_.inflater);
  if (server_.inflater) nghttp2_hd_inflate_del(server_.inflater);
}

void Http2Dissector::feed(Direction dir, ByteView data, double ts, std::uint64_t packet) {
  if (!error_.empty()) return;
  packet_ = packet;
  http_.at_packet(packet);
  feeding_ts_ = ts;
  Side& s = side(dir);
  s.pending.append(as_text(data));
  if (dir == Direction::ClientToServer && !client_.preface_read && !read_preface(ts)) return;
  read_frames(dir, ts);
}

// The client's first 24 bytes (RFC 9113 §3.4); a server speaks first with its SETTINGS only.
bool Http2Dissector::read_preface(double) {
  std::size_t n = std::min(client_.pending.size(), kPreface.size());
  if (client_.pending.compare(0, n, kPreface.substr(0, n)) != 0) {
    fail(Direction::ClientToServer, 0, "the client's bytes do not start with HTTP/2's connection preface");
    return false;
  }
  if (n < kPreface.size()) return false;
  client_.pending.erase(0, kPreface.size());
  client_.offset = kPreface.size();
  client_.preface_read = true;
  return true;
}

void Http2Dissector::read_frames(Direction dir, double ts) {
  Side& s = side(dir);
  std::size_t at = 0;
  while (error_.empty() && s.pending.size() - at >= kFrameHeader) {
    std::string_view p(s.pending);
    Http2Frame f;
    f.dir = dir;
    f.ts = ts;
    f.offset = s.offset + at;
    f.length = be32(p, at) >> 8;
    f.type = static_cast<std::uint8_t>(p[at + 3]);
    f.flags = static_cast<std::uint8_t>(p[at + 4]);
    f.stream_id = be32(p, at + 5) & 0x7fffffffu;
    if (f.length > s.max_frame)
      return fail(dir, f.offset, http2_frame_type_name(f.type) + " frame of " + std::to_string(f.length) +
                                     " bytes past the receiver's SETTINGS_MAX_FRAME_SIZE " + std::to_string(s.max_frame));
    if (p.size() - at - kFrameHeader < f.length) break;
    ++frames_;
    f.payload = p.substr(at + kFrameHeader, f.length);
    frame_offset_ = f.offset;
    if (events_.on_frame) events_.on_frame(f);
    frame(dir, f, p.substr(at + kFrameHeader, f.length));
    at += kFrameHeader + f.length;
  }
  s.pending.erase(0, at);
  s.offset += at;
}

void Http2Dissector::frame(Direction dir, const Http2Frame& f, std::string_view payload) {
  Side& s = side(dir);
  const std::string name = http2_frame_type_name(f.type);
  if (s.block_stream && (f.type != kContinuation || f.stream_id != *s.block_stream))
    return fail(dir, f.offset, name + " on stream " + std::to_string(f.stream_id) + " where a CONTINUATION of stream " +
                                   std::to_string(*s.block_stream) + " must come");
  const bool on_stream = f.type == kData || f.type == kHeaders || f.type == kPriority || f.type == kRstStream ||
                         f.type == kPushPromise || f.type == kContinuation;
  if (on_stream && f.stream_id == 0) return fail(dir, f.offset, name + " on stream 0");
  if ((f.type == kSettings || f.type == kPing || f.type == kGoaway) && f.stream_id != 0)
    return fail(dir, f.offset, name + " on stream " + std::to_string(f.stream_id) + ", not 0");
  switch (f.type) {
    case kData: {
      std::string_view body = payload;
      if (f.flags & NGHTTP2_FLAG_PADDED) {
        if (body.empty() || static_cast<std::uint8_t>(body[0]) >= body.size())
          return fail(dir, f.offset, "DATA on stream " + std::to_string(f.stream_id) + ": padding longer than the frame");
        body = body.substr(1, body.size() - 1 - static_cast<std::uint8_t>(body[0]));
      }
      return data(dir, f.stream_id, body, f.flags & NGHTTP2_FLAG_END_STREAM, f.ts);
    }
    case kHeaders:
    case kPushPromise:
    case kContinuation: return header_fragment(dir, f, payload);
    case kPriority:
      if (f.length != 5) return fail(dir, f.offset, "PRIORITY of " + std::to_string(f.length) + " bytes, not 5");
      return;
    case kRstStream:
      if (f.length != 4) return fail(dir, f.offset, "RST_STREAM of " + std::to_string(f.length) + " bytes, not 4");
      return reset(dir, f.stream_id, be32(payload, 0), f.ts);
    case kSettings: return settings(dir, f, payload);
    case kPing:
      if (f.length != 8) return fail(dir, f.offset, "PING of " + std::to_string(f.length) + " bytes, not 8");
      return;
    case kGoaway:
      if (f.length < 8) return fail(dir, f.offset, "GOAWAY of " + std::to_string(f.length) + " bytes, under 8");
      return;
    case kWindowUpdate:
      if (f.length != 4) return fail(dir, f.offset, "WINDOW_UPDATE of " + std::to_string(f.length) + " bytes, not 4");
      return;
    default: return;  // unknown types are ignored (RFC 9113 §4.1)
  }
}

// HEADERS and PUSH_PROMISE open a header block, CONTINUATIONs extend it; END_HEADERS decodes it.
void Http2Dissector::header_fragment(Direction dir, const Http2Frame& f, std::string_view payload) {
  Side& s = side(dir);
  const std::string where = http2_frame_type_name(f.type) + " on stream " + std::to_string(f.stream_id);
  std::string_view fragment = payload;
  if (f.type != kContinuation) {
    if (f.type == kPushPromise && dir == Direction::ClientToServer) return fail(dir, f.offset, where + " from the client");
    std::size_t pad = 0;
    if (f.flags & NGHTTP2_FLAG_PADDED) {
      if (fragment.empty()) return fail(dir, f.offset, where + ": no room for its pad length");
      pad = static_cast<std::uint8_t>(fragment[0]);
      fragment.remove_prefix(1);
    }
    std::size_t skip = f.type == kPushPromise ? 4 : (f.flags & NGHTTP2_FLAG_PRIORITY) ? 5 : 0;
    if (fragment.size() < skip + pad) return fail(dir, f.offset, where + ": padding and fields longer than the frame");
    fragment = fragment.substr(skip, fragment.size() - skip - pad);
    s.block_stream = f.stream_id;
    s.block.clear();
    s.block_ends_stream = f.flags & NGHTTP2_FLAG_END_STREAM;
    s.block_is_push = f.type == kPushPromise;
  } else if (!s.block_stream) {
    return fail(dir, f.offset, where + " with no header block open");
  }
  if (s.block.size() + fragment.size() > kMaxHeaderBlock)
    return fail(dir, f.offset, "header block on stream " + std::to_string(f.stream_id) + " larger than " +
                                   std::to_string(kMaxHeaderBlock) + " bytes");
  s.block.append(fragment);
  if (!(f.flags & NGHTTP2_FLAG_END_HEADERS)) return;
  s.block_stream.reset();
  header_block(dir, f.stream_id, s.block_ends_stream, s.block_is_push, f.ts);
}

void Http2Dissector::settings(Direction dir, const Http2Frame& f, std::string_view payload) {
  if (f.flags & NGHTTP2_FLAG_ACK) {
    if (f.length != 0) return fail(dir, f.offset, "SETTINGS ACK with " + std::to_string(f.length) + " bytes");
    return;
  }
  if (f.length % 6) return fail(dir, f.offset, "SETTINGS of " + std::to_string(f.length) + " bytes, not a multiple of 6");
  // A side's settings bound what the other side sends it: its encoder's table, its frames.
  Side& peer = side(dir == Direction::ClientToServer ? Direction::ServerToClient : Direction::ClientToServer);
  for (std::size_t at = 0; at < payload.size(); at += 6) {
    std::uint16_t id = static_cast<std::uint16_t>(static_cast<std::uint8_t>(payload[at]) << 8 | static_cast<std::uint8_t>(payload[at + 1]));
    std::uint32_t value = be32(payload, at + 2);
    if (id == NGHTTP2_SETTINGS_HEADER_TABLE_SIZE) {
      if (nghttp2_hd_inflate_change_table_size(peer.inflater, value) != 0)
        return fail(dir, f.offset, "SETTINGS_HEADER_TABLE_SIZE " + std::to_string(value) + " refused by the inflater");
    } else if (id == NGHTTP2_SETTINGS_MAX_FRAME_SIZE) {
      if (value < 16384 || value > 16777215)
        return fail(dir, f.offset, "SETTINGS_MAX_FRAME_SIZE " + std::to_string(value) + " outside 16384..16777215");
      peer.max_frame = value;
    }
  }
}

// The block decoded by the direction's inflater, whose dynamic table must see every block in
// order (a PUSH_PROMISE's too, though its fields are not used).
void Http2Dissector::header_block(Direction dir, std::uint32_t stream_id, bool end_stream, bool push, double ts) {
  Side& s = side(dir);
  net::HttpFields fields;
  std::size_t decoded = 0;
  auto* in = reinterpret_cast<std::uint8_t*>(s.block.data());
  std::size_t left = s.block.size();
  for (;;) {
    nghttp2_nv nv;
    int flags = 0;
    auto used = nghttp2_hd_inflate_hd2(s.inflater, &nv, &flags, in, left, 1);
    if (used < 0)
      return fail(dir, frame_offset_, "HPACK block on stream " + std::to_string(stream_id) + ": " +
                                     nghttp2_strerror(static_cast<int>(used)));
    in += used;
    left -= static_cast<std::size_t>(used);
    if (flags & NGHTTP2_HD_INFLATE_EMIT) {
      decoded += nv.namelen + nv.valuelen + 32;
      if (decoded > kMaxHeaderList)
        return fail(dir, frame_offset_, "header list on stream " + std::to_string(stream_id) + " larger than " +
                                       std::to_string(kMaxHeaderList) + " bytes decoded");
      fields.emplace_back(std::string(reinterpret_cast<const char*>(nv.name), nv.namelen),
                          std::string(reinterpret_cast<const char*>(nv.value), nv.valuelen));
    }
    if (flags & NGHTTP2_HD_INFLATE_FINAL) {
      nghttp2_hd_inflate_end_headers(s.inflater);
      break;
    }
    if (used == 0 && !(flags & NGHTTP2_HD_INFLATE_EMIT))
      return fail(dir, frame_offset_, "HPACK block on stream " + std::to_string(stream_id) + " ends mid-field");
  }
  if (push) return;
  if (dir == Direction::ClientToServer) request_head(stream_id, std::move(fields), end_stream, ts);
  else reply_head(stream_id, fields, end_stream, ts);
}

void Http2Dissector::request_head(std::uint32_t id, net::HttpFields fields, bool end_stream, double ts) {
  auto it = streams_.find(id);
  if (it != streams_.end() && it->second->request_seen) {  // the request's trailer: its end
    if (end_stream) open_exchange(*it->second);
    return;
  }
  if (streams_.size() >= kMaxOpenStreams)
    return fail(Direction::ClientToServer, frame_offset_, "more than " + std::to_string(kMaxOpenStreams) + " streams open");
  if (id <= last_request_stream_) return;  // a stream that ended already (its trailer after a reset)
  if (id % 2 == 0)  // RFC 9113 §5.1.1: a client's streams are odd
    return fail(Direction::ClientToServer, frame_offset_, "request HEADERS on even stream " + std::to_string(id));
  last_request_stream_ = id;
  auto& s = streams_[id];
  if (!s) s = std::make_unique<Stream>();
  s->id = id;
  s->request_seen = true;
  s->start = ts;
  s->first_packet = packet_;
  net::HttpRequest& req = s->request;
  for (auto& [name, value] : fields) {
    if (name == ":method") req.method = value;
    else if (name == ":path") req.target = value;
    else if (name == ":authority") req.headers["host"] = value;
    else if (!name.empty() && name[0] != ':') {
      if (req.headers.count(name)) req.repeated.insert(name);
      req.headers[name] = std::move(value);
    }
  }
  if (end_stream) open_exchange(*s);
}

// The request is complete (or the server answered first): from here it is an exchange.
void Http2Dissector::open_exchange(Stream& s) {
  if (s.x) return;
  s.x = http_.open_exchange(s.request, s.id, s.start, s.first_packet, "HTTP/2");
}

void Http2Dissector::reply_head(std::uint32_t id, const net::HttpFields& fields, bool end_stream, double ts) {
  auto it = streams_.find(id);
  if (it == streams_.end() && id <= last_request_stream_) return;  // ended already (a reset): frames in flight
  if (it == streams_.end() || !it->second->request_seen)
    return fail(Direction::ServerToClient, frame_offset_, "HEADERS for stream " + std::to_string(id) + ", which no request opened");
  Stream& s = *it->second;
  open_exchange(s);
  if (!error_.empty()) return;
  if (s.reply_seen) {  // trailing HEADERS
    if (!end_stream)
      return fail(Direction::ServerToClient, frame_offset_, "trailing HEADERS on stream " + std::to_string(id) + " without END_STREAM");
    http_.end_reply(*s.x, fields, reply_fields(s), ts);
    return this->end_stream(id, ts);
  }
  int status = 0;
  std::string head = "HTTP/2 ";
  std::string rest;
  for (const auto& [name, value] : fields) {
    if (name == ":status") {
      auto code = net::parse_decimal(value);
      status = code && *code >= 100 && *code <= 999 ? static_cast<int>(*code) : 0;
    } else if (!name.empty() && name[0] != ':') {
      s.reply[name] = value;
      rest += name + ": " + value + "\r\n";
    }
  }
  if (status == 0) return fail(Direction::ServerToClient, frame_offset_, "HEADERS on stream " + std::to_string(id) + " without a valid :status");
  if (status < 200) {  // interim (100 Continue, 103): the real head follows
    s.reply.clear();
    return;
  }
  s.reply_seen = true;
  head += std::to_string(status) + " " + net::http_reason(status) + "\r\n" + rest + "\r\n";
  http_.begin_reply(*s.x, status, reply_fields(s), head, ts);
  if (end_stream) {
    http_.end_reply(*s.x, {}, reply_fields(s), ts);
    this->end_stream(id, ts);
  }
}

void Http2Dissector::data(Direction dir, std::uint32_t id, std::string_view bytes, bool end, double ts) {
  auto it = streams_.find(id);
  if (it == streams_.end() && id <= last_request_stream_) return;  // ended already (a reset): frames in flight
  if (it == streams_.end() || !it->second->request_seen)
    return fail(dir, frame_offset_, "DATA on stream " + std::to_string(id) + ", which no request opened");
  Stream& s = *it->second;
  if (dir == Direction::ClientToServer) {
    if (s.x) return;  // the server answered already; the rest of the body is not read
    if (s.request.body.size() + bytes.size() > kMaxRequestBody)
      return fail(dir, frame_offset_, "request body on stream " + std::to_string(id) + " larger than " +
                                           std::to_string(kMaxRequestBody) + " bytes");
    s.request.body.append(bytes);
    if (end) open_exchange(s);
    return;
  }
  if (!s.reply_seen) return fail(dir, frame_offset_, "DATA on stream " + std::to_string(id) + " before its HEADERS");
  http_.reply_body(*s.x, bytes, ts);
  if (!end) return;
  http_.end_reply(*s.x, {}, reply_fields(s), ts);
  end_stream(id, ts);
}

// RST_STREAM: the client gave up (as closing an HTTP/1.1 connection mid-reply), or the server did.
void Http2Dissector::reset(Direction dir, std::uint32_t id, std::uint32_t code, double ts) {
  auto it = streams_.find(id);
  if (it == streams_.end()) return;  // a stream already ended, or never opened: nothing to end
  Stream& s = *it->second;
  open_exchange(s);
  RequestRecorder& rec = HttpDissector::recorder(*s.x);
  std::string why = std::string("RST_STREAM ") + nghttp2_http2_strerror(code) + " from the " + side_name(dir);
  if (dir == Direction::ClientToServer) {
    rec.cancel_sent(ts);
    rec.ended(RequestEnd::ClientClosed, why + " after " + std::to_string(rec.tokens_seen()) + " tokens", ts);
  } else {
    rec.ended(RequestEnd::ConnectionClosed, why, ts);
  }
  end_stream(id, ts);
}

void Http2Dissector::end_stream(std::uint32_t id, double) {
  auto it = streams_.find(id);
  if (it == streams_.end()) return;
  if (it->second->x) http_.complete(std::move(it->second->x));
  streams_.erase(it);
}

void Http2Dissector::close(Direction dir, double ts) {
  auto& closed = dir == Direction::ClientToServer ? client_closed_ : server_closed_;
  if (!closed) closed = ts;
}

// Streams still open end as the connection did: closed under them, or left open when the
// capture stopped first.
void Http2Dissector::finish() {
  std::optional<double> closed = client_closed_ ? client_closed_ : server_closed_;
  for (auto& [id, s] : streams_) {
    if (!s->request_seen) continue;
    open_exchange(*s);
    if (closed) HttpDissector::recorder(*s->x).ended(RequestEnd::ConnectionClosed, "connection closed before the response ended", closed);
    http_.complete(std::move(s->x));
  }
  streams_.clear();
  http_.finish();
}

void Http2Dissector::fail(Direction dir, std::uint64_t offset, const std::string& why) {
  if (error_.empty()) error_ = "HTTP/2: " + why + " (" + side_name(dir) + " byte " + std::to_string(offset) + ")";
}

}  // namespace anthro
