#include "capture/http_dissector.h"

#include <algorithm>

#include "http/reply_recorder.h"

namespace anthro {

namespace {

// What the inspector and decode show of a request: a header's value only when it is known to
// be no secret (header_value_shown), for a secret may travel under any name (--header-env).
std::string request_text(const net::HttpRequest& req, std::string_view version) {
  std::string out = req.method + " " + req.target + " " + std::string(version) + "\r\n";
  for (const auto& [name, value] : req.headers)
    out += name + ": " + (header_value_shown(name) ? value : std::string(value.size(), '*')) + "\r\n";
  return out + "\r\n" + req.body;
}

// A summary line: cut at a character boundary; bytes that are not UTF-8 shown as '?'.
std::string one_line(std::string_view text, std::size_t max = 160) {
  std::size_t cut = std::min(max, text.size());
  while (cut < text.size() && cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  std::string out(text.substr(0, cut));
  bool valid = is_valid_utf8(as_bytes(out));
  for (auto& ch : out) {
    if (ch == '\n' || ch == '\r') ch = ' ';
    else if (!valid && static_cast<unsigned char>(ch) >= 0x80) ch = '?';
  }
  return cut < text.size() ? out + "…" : out;
}

bool is_event_stream(const std::string& content_type) {
  return content_type.rfind("text/event-stream", 0) == 0;
}

PerProfile<HttpRowFieldsFactory>& row_fields_table() {
  static PerProfile<HttpRowFieldsFactory> table("register_http_row_fields");
  return table;
}

std::vector<HttpRowColumn>& row_columns_table() {
  static std::vector<HttpRowColumn> columns;
  return columns;
}

// A title declared again is the same column, shown once.
const HttpRowColumn* declared_column(std::string_view title) {
  for (const HttpRowColumn& c : row_columns_table())
    if (title == c.title) return &c;
  return nullptr;
}

PerProfile<CapturedHttpRiderFactory>& captured_rider_table() {
  static PerProfile<CapturedHttpRiderFactory> table("register_captured_http_rider");
  return table;
}

PerProfile<RiderRowWords>& rider_words_table() {
  static PerProfile<RiderRowWords> table("register_captured_http_rider's row words");
  return table;
}

}  // namespace

struct HttpDissector::Exchange {
  Exchange() : recorder(result) {}
  Exchange(const Exchange&) = delete;
  RequestResult result;
  RequestRecorder recorder;
  std::unique_ptr<HttpReplyRecorder> reply;
  bool messages = true;  // the Messages API, else chat completions
  bool head_request = false;
  bool streamed = false;
  std::uint64_t first_packet = 0;
  // A rider's own request beside the model's (no record): the rider's index and its kind.
  std::optional<std::pair<std::size_t, CapturedHttpRider::OwnKind>> own;
  std::vector<std::unique_ptr<RiderReply>> rider_replies;  // the readers riders gave its reply
  int status = 0;
  // The riders' fields of the reply as it is read, one set per rider that registered some.
  std::vector<std::pair<ProfileId, std::unique_ptr<HttpRowFields>>> reply_fields;
};

const PerProfile<CapturedHttpRiderFactory>& captured_http_riders() { return captured_rider_table(); }

void register_captured_http_rider(ProfileId id, CapturedHttpRiderFactory make, RiderRowWords rows) {
  if (!make) throw std::logic_error("register_captured_http_rider: no factory");
  if (!rows.type != !rows.first_line) throw std::logic_error("register_captured_http_rider: a row's type word and first line, both or neither");
  captured_rider_table().add(id, make);
  if (rows.type) rider_words_table().add(id, rows);
}

const RiderRowWords* rider_row_words(ProfileId id) { return rider_words_table().find(id); }

std::vector<RiderRowWords> all_rider_row_words() {
  std::vector<RiderRowWords> out;
  for (const Profile* p : profiles())
    if (const RiderRowWords* words = rider_row_words(p->id)) out.push_back(*words);
  return out;
}

namespace {

// What the riders' fields of a reply tell so far, for its rows.
HttpRowParts reply_parts(const HttpDissector::Exchange& x) {
  HttpRowParts out;
  for (const auto& [rider, fields] : x.reply_fields)
    if (!fields->empty()) out.emplace(rider, fields->clone());
  return out;
}

}  // namespace

const PerProfile<HttpRowFieldsFactory>& http_row_fields() { return row_fields_table(); }

void register_http_row_fields(ProfileId id, HttpRowFieldsFactory make, std::span<const HttpRowColumn> columns) {
  if (!make) throw std::logic_error("register_http_row_fields: no factory");
  // A column two riders declare is one: it starts with the reply's status for both or for neither.
  for (const HttpRowColumn& c : columns)
    if (const HttpRowColumn* same = declared_column(c.title); same && same->status_prefix != c.status_prefix)
      throw std::logic_error(std::string("register_http_row_fields: \"") + c.title + "\" declared with and without the status");
  row_fields_table().add(id, make);
  for (const HttpRowColumn& c : columns)
    if (!declared_column(c.title)) row_columns_table().push_back(c);
}

std::span<const HttpRowColumn> http_row_columns() {
  (void)profiles();  // registers the built-in formats, once
  return row_columns_table();
}

HttpRowParts head_row_fields(const HttpRowFields::FieldLookup& field) {
  HttpRowParts out;
  for (const auto& [id, make] : http_row_fields().all()) {
    std::unique_ptr<HttpRowFields> f = make();
    f->read_head(field);
    if (!f->empty()) out.emplace(id, std::move(f));
  }
  return out;
}

HttpDissector::HttpDissector(Events events) : events_(std::move(events)) {
  for (const auto& [id, make] : captured_http_riders().all()) riders_.emplace_back(id, make());
}
HttpDissector::~HttpDissector() = default;

void HttpDissector::feed(Direction dir, ByteView data, double ts, std::uint64_t packet) {
  if (!error_.empty()) return;
  last_packet_ = packet;
  if (dir == Direction::ClientToServer) read_requests(as_text(data), ts, packet);
  else read_replies(as_text(data), ts);
}

void HttpDissector::read_requests(std::string_view bytes, double ts, std::uint64_t packet) {
  // A request is stamped when its first byte arrived, as the live client stamps it when its write starts.
  bool continued = requests_reader_.in_request() && request_start_;
  double first = continued ? request_start_->first : ts;
  std::uint64_t first_packet = continued ? request_start_->second : packet;
  if (!requests_reader_.feed(bytes)) return fail(requests_reader_.error());
  auto done = requests_reader_.take_requests();
  if (open_.size() + done.size() > kMaxOpen)
    return fail("more than " + std::to_string(kMaxOpen) + " requests wait for their replies");
  for (std::size_t i = 0; i < done.size(); ++i) {
    auto x = open_exchange(done[i], next_id_++, i == 0 ? first : ts, i == 0 ? first_packet : packet, "HTTP/1.1");
    // The reply parser was reset when the last reply ended, before it knew whether this one is a HEAD's.
    if (open_.empty()) reply_reader_.next(x->head_request);
    open_.push_back(std::move(x));
  }
  request_start_.reset();
  if (requests_reader_.in_request()) request_start_ = done.empty() ? std::pair{first, first_packet} : std::pair{ts, packet};
}

void HttpDissector::ExchangeDeleter::operator()(Exchange* x) const { delete x; }

HttpDissector::ExchangePtr HttpDissector::open_exchange(const net::HttpRequest& req, std::uint32_t id,
                                                                      double start, std::uint64_t first_packet,
                                                                      std::string_view version) {
  ExchangePtr x(new Exchange);
  x->result.stream_id = id;
  x->messages = req.target.find("/chat/completions") == std::string::npos;
  x->head_request = req.method == "HEAD";
  x->first_packet = first_packet;
  RequestMeta meta = meta_of_request(req.body);
  ++requests_;
  if (meta.probe) ++probes_;
  x->recorder.request_sent(start, std::move(meta));
  if (x->messages) note_riders(*x, req);
  if (events_.on_event)
    events_.on_event({HttpEventKind::Request, Direction::ClientToServer, start, id, request_text(req, version),
                      req.method + " " + req.target, 0, 0,
                      head_row_fields([&req](const char* name) { return req.header(name); })});
  return x;
}

bool HttpDissector::replying(const Exchange& x) { return x.reply != nullptr; }
RequestRecorder& HttpDissector::recorder(Exchange& x) { return x.recorder; }

void HttpDissector::read_replies(std::string_view bytes, double ts) {
  if (open_.empty()) {
    // After the client gave up, the rest of the reply still in flight is expected.
    if (!client_closed_) fail("the server sent " + std::to_string(bytes.size()) + " bytes with no request open");
    return;
  }
  open_.front()->recorder.first_byte(ts);
  bool ok = reply_reader_.feed(bytes);
  while (ok && !open_.empty() && reply_reader_.head_done()) {
    Exchange& x = *open_.front();
    if (!x.reply && !start_reply(x, ts)) return;
    if (!x.reply) continue;  // an interim 1xx reply was skipped
    x.reply->body(reply_reader_.take_body(), ts);
    read_chunk_extensions(x);
    if (!reply_reader_.done()) return;
    end_front_reply(x, ts);
    complete_front();
    reply_reader_.next(!open_.empty() && open_.front()->head_request);
    ok = reply_reader_.feed("");  // bytes of the next reply fed already
  }
  if (!ok) {
    if (!open_.empty()) {
      open_.front()->recorder.ended(RequestEnd::ProtocolError, reply_reader_.error(), ts);
      complete_front();
    }
    fail(reply_reader_.error());
  }
}

// The reply's head was read; false when the connection stops being HTTP.
bool HttpDissector::start_reply(Exchange& x, double ts) {
  int status = reply_reader_.status();
  x.recorder.first_byte(ts);
  if (status == 101) {
    fail("the connection switched protocols (101)");
    return false;
  }
  if (status >= 100 && status < 200) {  // 100 Continue and the like: the real reply follows
    reply_reader_.next(x.head_request);
    if (!reply_reader_.feed("")) fail(reply_reader_.error());
    return error_.empty();
  }
  begin_reply(x, status, [this](const char* name) { return reply_reader_.header(name); }, reply_reader_.head_text(), ts);
  return true;
}

void HttpDissector::begin_reply(Exchange& x, int status, const HeaderLookup& header, const std::string& head, double ts) {
  x.recorder.first_byte(ts);
  std::string content_type = header("content-type");
  x.streamed = is_event_stream(content_type);
  x.reply = std::make_unique<HttpReplyRecorder>(x.result, x.recorder, x.messages, x.streamed);
  std::uint32_t id = x.result.stream_id;
  x.reply->on_event = [this, id](const SseEvent& e, double t, std::uint32_t tokens) {
    ++sse_events_;
    if (events_.on_event)
      events_.on_event({HttpEventKind::SseEvent, Direction::ServerToClient, t, id, format_sse(e.event, e.data),
                        e.event + " " + one_line(e.data), 0, tokens, {}});
  };
  // At most one rider reads a request's reply: the one whose part its record has (besides
  // those reading only its fields).
  RiderReply* reader = nullptr;
  for (const auto& [rider_id, rider] : riders_)
    if (auto made = rider->reply(x.result, rider_rows(id, rider_id))) {
      if (!reader && !made->fields_only()) reader = made.get();
      x.rider_replies.push_back(std::move(made));
    }
  x.reply->head(status, header, reader);
  x.status = status;
  x.reply_fields.clear();
  for (const auto& [rider, make] : http_row_fields().all()) {
    x.reply_fields.emplace_back(rider, make());
    x.reply_fields.back().second->read_head(header);
  }
  if (events_.on_event) {
    // The status line after its version: "200 OK".
    std::size_t from = std::min(head.find(' ') + 1, head.size());
    std::string status_line = head.substr(from, head.find('\r') - std::min(from, head.find('\r')));
    events_.on_event({HttpEventKind::Response, Direction::ServerToClient, ts, id, head,
                      one_line(status_line) + (content_type.empty() ? "" : " " + content_type), status, 0, reply_parts(x)});
  }
}

void HttpDissector::reply_body(Exchange& x, std::string_view piece, double ts) { x.reply->body(piece, ts); }

// Each rider reads the request: one of its own beside the model's, or its part of a model
// request's record.
void HttpDissector::note_riders(Exchange& x, const net::HttpRequest& req) {
  for (std::size_t i = 0; i < riders_.size(); ++i)
    if (auto own = riders_[i].second->request(req, x.result, held_ ? &*held_ : nullptr); own && !x.own) x.own = std::pair{i, *own};
}

// A rider's row of exchange `id`'s reply, as an HttpEvent from the server; empty when nobody
// reads the events (analysis), so riders build no row text.
RiderRowSink HttpDissector::rider_rows(std::uint32_t id, ProfileId rider) {
  if (!events_.on_event) return nullptr;
  return [this, id, rider](double t, std::string text, std::string summary, std::uint32_t tokens) {
    events_.on_event({HttpEventKind::RiderRow, Direction::ServerToClient, t, id, std::move(text), one_line(summary), 0,
                      tokens, {}, rider});
  };
}

void HttpDissector::read_chunk_extensions(Exchange& x) {
  for (const auto& chunk : reply_reader_.take_chunk_extensions()) {
    for (const auto& [name, value] : chunk)
      for (const auto& [rider, fields] : x.reply_fields) fields->read_chunk_extension(name, value);
    for (const auto& reader : x.rider_replies) reader->chunk_extensions(chunk);
  }
}

void HttpDissector::end_front_reply(Exchange& x, double ts) {
  end_reply(x, reply_reader_.trailers(), [this](const char* name) { return reply_reader_.header(name); }, ts);
}

// The reply was read to its end: its trailer and error body read into the riders' fields, and
// every rider's reader given the whole reply (its part of the record).
void HttpDissector::end_reply(Exchange& x, const net::HttpFields& trailers, const HeaderLookup& reply_fields, double ts) {
  x.reply->trailers(trailers);
  x.reply->end(ts);
  for (const auto& [rider, fields] : x.reply_fields) {
    for (const auto& [name, value] : trailers) fields->read_trailer(name, value);
    fields->read_error_type(x.reply->error_type());
  }
  for (const auto& reader : x.rider_replies) reader->finished(x.status, reply_fields, trailers, *x.reply);
  for (std::size_t i = 0; i < riders_.size(); ++i) {
    std::optional<CapturedHttpRider::OwnKind> own;
    if (x.own && x.own->first == i) own = x.own->second;
    riders_[i].second->replied(own, x.status, *x.reply, x.result, ts, rider_rows(x.result.stream_id, riders_[i].first));
  }
  if (events_.on_event)
    events_.on_event({HttpEventKind::ReplyEnd, Direction::ServerToClient, ts, x.result.stream_id, {}, {}, x.status, 0,
                      reply_parts(x)});
}

void HttpDissector::close(Direction dir, double ts) {
  if (dir == Direction::ClientToServer) {
    // Decided at the end: the server's last bytes may still be held by reassembly behind it.
    if (!client_closed_) client_closed_ = ts;
    return;
  }
  if (open_.empty()) return;
  // A body that runs until the close ends with it.
  if (error_.empty() && reply_reader_.feed_eof() && reply_reader_.head_done() && reply_reader_.done() &&
      open_.front()->reply) {
    read_chunk_extensions(*open_.front());
    end_front_reply(*open_.front(), ts);
    complete_front();
  }
  end_open(ts);
}

void HttpDissector::finish() {
  end_open(std::nullopt);
  release_held();
}

// Ends the requests still open: cut by the server when it closed, given up by the client when
// it closed first, else left open (the capture ended).
void HttpDissector::end_open(std::optional<double> server_closed) {
  for (bool first = true; !open_.empty(); first = false) {
    Exchange& x = *open_.front();
    if (client_closed_ && first && x.reply) {
      // HTTP has no cancel message: a client that closes mid-reply gave up, as the live client does.
      x.recorder.cancel_sent(*client_closed_);
      x.recorder.ended(RequestEnd::ClientClosed,
                       "closed by the client after " + std::to_string(x.recorder.tokens_seen()) + " tokens");
    } else if (server_closed || client_closed_) {
      x.recorder.ended(RequestEnd::ConnectionClosed, "connection closed before the response ended",
                       server_closed ? server_closed : client_closed_);
    }
    complete_front();
  }
}

void HttpDissector::complete_front() {
  ExchangePtr x = std::move(open_.front());
  open_.pop_front();
  complete(std::move(x));
}

void HttpDissector::complete(ExchangePtr x) {
  if (x->own) return;  // its frames are shown; it is no model request
  x->recorder.finish(x->streamed);
  x->result.packets = std::pair{x->first_packet + 1, last_packet_ + 1};  // numbered from 1, as Wireshark does
  release_held();
  // A rider's request may wait for the client's next request, which may amend its record.
  const bool held = std::any_of(riders_.begin(), riders_.end(), [&](const auto& rider) { return rider.second->holds(x->result); });
  if (held) held_ = std::move(x->result);
  else if (events_.on_exchange) events_.on_exchange(x->result);
}

void HttpDissector::release_held() {
  if (held_ && events_.on_exchange) events_.on_exchange(*held_);
  held_.reset();
}

void HttpDissector::fail(std::string why) {
  if (error_.empty()) error_ = std::move(why);
}

namespace {

std::string first_line_name(HttpEventKind kind, std::string_view rider_first_line) {
  switch (kind) {
    case HttpEventKind::Request: return "request line";
    case HttpEventKind::RiderRow: return std::string(rider_first_line);
    default: return "status line";
  }
}

const char* section_name(HttpEventKind kind) {
  switch (kind) {
    case HttpEventKind::SseEvent: return "SSE event";
    case HttpEventKind::RiderRow: return "fields";
    default: return "headers";
  }
}

}  // namespace

std::vector<FrameField> http_fields(HttpEventKind kind, std::string_view text, std::string_view rider_first_line) {
  std::vector<FrameField> out;
  std::optional<std::size_t> section;  // "headers", "SSE event" or a token row's fields: spans its lines
  bool first = kind != HttpEventKind::SseEvent;  // the request or status line, a token row's title
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t eol = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, eol - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::size_t next = std::min(eol + 1, text.size());
    if (line.empty()) {
      at = next;
      break;  // the blank line: a request's body follows
    }
    if (first) {
      out.push_back({first_line_name(kind, rider_first_line), std::string(line), at, at + line.size(), 0});
      first = false;
    } else {
      if (!section) {
        section = out.size();
        out.push_back({section_name(kind), "", at, at, 0});
      }
      std::size_t colon = line.find(':');
      std::string_view name = line.substr(0, colon);
      std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
      if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      out.push_back({std::string(name), std::string(value), at, at + line.size(), 1});
      out[*section].end = at + line.size();
    }
    at = next;
  }
  if (kind == HttpEventKind::Request && at < text.size())
    out.push_back({"body", std::string(text.substr(at)), at, text.size(), 0});
  return out;
}

}  // namespace anthro
