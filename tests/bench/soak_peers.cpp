#include "soak_peers.h"

#include <chrono>
#include <random>

#include "net/deadline.h"
#include "lab_client_keys.h"

namespace anthro::soak {

using namespace net;
using Clock = std::chrono::steady_clock;

namespace {

using test::error_of;
using test::LabClientKeys;

constexpr unsigned kRequestsPerConnection = 4;
constexpr std::uint32_t kCancelAfterTokens = 3;

// The mix, per 100 workers.
struct Share {
  Case c;
  unsigned per_100;
};
constexpr Share kMix[] = {{Case::AnthroStream, 25}, {Case::AnthroCancel, 10}, {Case::HttpStream, 25},
                          {Case::RstAnthro, 5},     {Case::RstHttp, 5},       {Case::Slowloris, 8},
                          {Case::Oversized, 5},     {Case::Garbage, 5},       {Case::Idle, 12}};

Case case_of(unsigned worker) {
  unsigned slot = worker % 100;
  for (const Share& s : kMix) {
    if (slot < s.per_100) return s.c;
    slot -= s.per_100;
  }
  return Case::AnthroStream;
}

// Between two runs of a case that ends at once, so those peers do not spin.
double pause_after(Case c) {
  switch (c) {
    case Case::RstAnthro:
    case Case::RstHttp:
    case Case::Oversized:
    case Case::Garbage: return 0.5;
    default: return 0;
  }
}

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

awaitable<std::shared_ptr<ByteStream>> connect_plain(std::uint16_t port) {
  tcp::socket socket(co_await asio::this_coro::executor);
  boost::system::error_code ec;
  co_await socket.async_connect(tcp::endpoint(asio::ip::address_v4::loopback(), port),
                                asio::redirect_error(use_awaitable, ec));
  if (ec) co_return nullptr;
  socket.set_option(tcp::no_delay(true), ec);
  co_return std::shared_ptr<ByteStream>(make_plain_stream(std::move(socket)));
}

awaitable<bool> write_text(ByteStream& stream, std::string text) {
  bool ok = co_await stream.write_all(as_bytes(text));
  co_return ok;
}

// Reads and keeps what arrives until the server closes; the seconds that took, or nothing
// when `wait_s` passed first.
awaitable<std::optional<double>> read_until_closed(ByteStream& stream, double wait_s, Bytes& kept) {
  auto t0 = Clock::now();
  Deadline deadline(stream);
  deadline.arm(wait_s);
  std::uint8_t buf[4096];
  for (;;) {
    std::size_t n = co_await stream.read_some(buf, sizeof buf);
    if (n == 0) break;
    kept.insert(kept.end(), buf, buf + n);
  }
  if (deadline.expired()) co_return std::nullopt;
  co_return since(t0);
}

// Watches for the server's close while the caller keeps writing; sleep() wakes early on it.
class CloseWatch {
 public:
  CloseWatch(const asio::any_io_executor& ex, std::shared_ptr<ByteStream> stream)
      : state_(std::make_shared<State>(ex)) {
    co_spawn(ex, watch(std::move(stream), state_), asio::detached);
  }
  bool closed() const { return state_->closed; }
  Clock::time_point closed_at() const { return state_->at; }
  awaitable<void> sleep(double seconds) {
    if (!state_->closed) co_await sleep_for(state_->timer, seconds);
  }

 private:
  struct State {
    explicit State(const asio::any_io_executor& ex) : timer(ex) {}
    asio::steady_timer timer;
    bool closed = false;
    Clock::time_point at;
  };
  static awaitable<void> watch(std::shared_ptr<ByteStream> stream, std::shared_ptr<State> state) {
    std::uint8_t buf[1024];
    for (;;) {
      std::size_t n = co_await stream->read_some(buf, sizeof buf);
      if (n == 0) break;
    }
    state->closed = true;
    state->at = Clock::now();
    state->timer.cancel();
  }
  std::shared_ptr<State> state_;
};

// anthro-v1 on the lab port by hand: the preface, then frames sealed with the codec.
class LabPeer {
 public:
  explicit LabPeer(std::shared_ptr<ByteStream> stream) : stream_(std::move(stream)) {}
  ByteStream& stream() { return *stream_; }

  awaitable<bool> negotiate() {
    std::uint64_t token = 0;
    random_bytes(reinterpret_cast<std::uint8_t*>(&token), sizeof token);
    bool sent = co_await stream_->write_all(keys_.preface(token | 1));  // a token is never 0
    if (!sent) co_return false;
    Bytes answer(kPrefaceSize);
    for (std::size_t have = 0; have < answer.size();) {
      std::size_t n = co_await stream_->read_some(answer.data() + have, answer.size() - have);
      if (n == 0) co_return false;
      have += n;
    }
    co_return keys_.accept(answer);
  }

  Bytes request(std::uint32_t stream_id, std::uint32_t max_tokens) { return keys_.request(stream_id, max_tokens, "soak"); }

  // A REQUEST header whose length field is beyond the largest payload, and a little of it.
  Bytes oversized() const {
    FrameHeader h;
    h.type = static_cast<std::uint8_t>(FrameType::Request);
    h.flags = kFlagStreaming;
    h.payload_length = kMaxPayload + 1;
    h.token = keys_.offer().connection_token;
    Bytes out(kHeaderSize + 64);
    write_header(h, out.data());
    return out;
  }

  std::vector<FrameEvent> frames(ByteView s2c) const { return keys_.server_frames(s2c); }

 private:
  std::shared_ptr<ByteStream> stream_;
  LabClientKeys keys_;
};

bool is_token(const FrameEvent& e) { return e.body && std::holds_alternative<TokenBody>(*e.body); }

// A request's end as a tally: answered, refused with its code, or lost with how it ended.
std::string outcome_of(const RequestResult& r) {
  if (r.end == RequestEnd::Response)
    return r.stop_reason == StopReason::Cancelled ? "answered_cancelled" : "answered";
  if ((r.end == RequestEnd::Error || r.end == RequestEnd::ConnectionError) && r.error_code)
    return "refused_" + std::to_string(*r.error_code);
  return std::string("lost:") + to_string(r.end);
}

std::string messages_request(bool stream) {
  std::string body = std::string(R"({"model":"soak","max_tokens":30,"stream":)") + (stream ? "true" : "false") +
                     R"(,"messages":[{"role":"user","content":"soak"}]})";
  return "POST /v1/messages HTTP/1.1\r\nhost: soak\r\nanthropic-version: 2023-06-01\r\n"
         "content-type: application/json\r\ncontent-length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

bool starts_with(const Bytes& b, std::string_view prefix) {
  return b.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), b.begin());
}

}  // namespace

const char* to_string(Case c) {
  switch (c) {
    case Case::AnthroStream: return "anthro_stream";
    case Case::AnthroCancel: return "anthro_cancel";
    case Case::HttpStream: return "http_sse";
    case Case::RstAnthro: return "rst_anthro";
    case Case::RstHttp: return "rst_http";
    case Case::Slowloris: return "slowloris";
    case Case::Oversized: return "oversized_frame";
    case Case::Garbage: return "garbage_preamble";
    case Case::Idle: return "idle";
  }
  return "?";
}

bool is_failure(const std::string& outcome) {
  return outcome.find("lost") != std::string::npos || outcome.find("not_closed") != std::string::npos;
}

SoakClients::SoakClients(asio::io_context& io, const SoakTargets& targets) : io_(io), targets_(targets) {
  anthro_.target = "anthro://127.0.0.1:" + std::to_string(targets.tls_port);
  http_.target = "https://127.0.0.1:" + std::to_string(targets.tls_port) + "/v1/messages";
  for (SessionConfig* c : {&anthro_, &http_}) {
    c->messages = {{"user", "soak prompt 👋"}};
    c->timeout_s = 60;
  }
  anthro_setup_ = *prepare_client(anthro_);
  http_setup_ = *prepare_client(http_);
}

void SoakClients::start(unsigned n) {
  stopping_ = false;
  for (unsigned i = 0; i < n; ++i) {
    ++running_;
    co_spawn(io_, worker(case_of(i), i * 1000 / n), asio::detached);
  }
}

std::map<std::string, std::uint64_t> SoakClients::tallies() const {
  std::lock_guard lock(mutex_);
  return tallies_;
}

std::map<std::string, double> SoakClients::longest_close_s() const {
  std::lock_guard lock(mutex_);
  return longest_close_;
}

void SoakClients::tally(Case c, const std::string& outcome) {
  std::lock_guard lock(mutex_);
  ++tallies_[std::string(to_string(c)) + "." + outcome];
}

void SoakClients::closed_after(Case c, double seconds, double timeout_s) {
  tally(c, seconds >= timeout_s ? "closed_by_timeout" : "closed_early");
  std::lock_guard lock(mutex_);
  double& longest = longest_close_[to_string(c)];
  longest = std::max(longest, seconds);
}

// `start_ms` spreads the first connections over a second, so the workers do not all
// handshake at once.
awaitable<void> SoakClients::worker(Case c, unsigned start_ms) {
  asio::steady_timer pause(io_);
  co_await sleep_for(pause, start_ms / 1000.0);
  for (unsigned turn = 0; !stopping_; ++turn) {
    co_await run_case(c, turn);
    co_await sleep_for(pause, pause_after(c));
  }
  --running_;
}

awaitable<void> SoakClients::run_case(Case c, unsigned turn) {
  switch (c) {
    case Case::AnthroStream:
    case Case::AnthroCancel:
    case Case::HttpStream: co_await session_case(c); break;
    case Case::RstAnthro: co_await rst_anthro(); break;
    case Case::RstHttp: co_await rst_http(); break;
    case Case::Slowloris: co_await slowloris(); break;
    case Case::Oversized: co_await oversized(); break;
    case Case::Garbage: co_await garbage(turn); break;
    case Case::Idle: co_await idle(turn); break;
  }
}

// Well-formed requests, kRequestsPerConnection on a connection while it takes them. A
// keep-alive connection the server closed (idle) just as a request went out got nothing back:
// as clients do, that request is sent again on a new connection. A refusal waits out its
// retry-after.
awaitable<void> SoakClients::session_case(Case c) {
  bool http = c == Case::HttpStream;
  const ClientSetup& setup = http ? http_setup_ : anthro_setup_;
  std::shared_ptr<SessionClient> client;
  unsigned on_connection = 0;
  std::optional<std::uint32_t> retry_after;
  for (unsigned done = 0; done < kRequestsPerConnection && !stopping_ && !retry_after;) {
    if (!client) {
      client = std::make_shared<SessionClient>(http ? http_ : anthro_, setup);
      on_connection = 0;
      bool open = co_await client->open();
      if (!open) co_return tally(c, "lost:connect");
    }
    RequestResult r;
    RequestOptions options;
    if (c == Case::AnthroCancel) options.cancel_after_tokens = kCancelAfterTokens;
    bool reusable = co_await client->request(r, options);
    bool cut = r.end == RequestEnd::ConnectionClosed || r.end == RequestEnd::SendFailed;
    if (on_connection++ > 0 && cut && !r.timeline.first_byte && r.timeline.tokens.empty()) {
      tally(c, "stale_keepalive_sent_again");
      client->close();
      client = nullptr;
      continue;
    }
    std::string outcome = outcome_of(r);
    // A lost request keeps its reason and place, to tell a stale connection from a refusal.
    if (is_failure(outcome)) outcome += " #" + std::to_string(on_connection) + " (" + r.error.value_or("") + ")";
    tally(c, outcome);
    ++done;
    if (r.error_code) retry_after = r.retry_after_ms.value_or(1000);
    if (!reusable) {
      client->close();
      client = nullptr;
    }
  }
  if (client) client->close();
  if (retry_after) {
    asio::steady_timer t(io_);
    co_await sleep_for(t, *retry_after / 1000.0);
  }
}

// A streaming request on the lab port, reset (SO_LINGER 0) as soon as a token arrives.
awaitable<void> SoakClients::rst_anthro() {
  auto stream = co_await connect_plain(targets_.lab_port);
  if (!stream) co_return tally(Case::RstAnthro, "lost:connect");
  LabPeer peer(stream);
  Deadline patience(*stream);
  patience.arm(targets_.handshake_timeout_s + targets_.slack_s);
  bool negotiated = co_await peer.negotiate();
  if (!negotiated) co_return tally(Case::RstAnthro, "lost:negotiation");
  bool sent = co_await stream->write_all(peer.request(1, 30));
  if (!sent) co_return tally(Case::RstAnthro, "lost:send");
  Bytes s2c;
  std::uint8_t buf[4096];
  for (;;) {
    std::size_t n = co_await stream->read_some(buf, sizeof buf);
    if (n == 0) co_return tally(Case::RstAnthro, patience.expired() ? "lost:no_token_in_time" : "lost:closed_before_token");
    s2c.insert(s2c.end(), buf, buf + n);
    for (const FrameEvent& e : peer.frames(s2c)) {
      if (const ErrorBody* err = error_of(e)) co_return tally(Case::RstAnthro, "refused_" + std::to_string(err->code));
      if (is_token(e)) {
        stream->reset();
        co_return tally(Case::RstAnthro, "reset_mid_stream");
      }
    }
  }
}

// An SSE request on the cleartext HTTP port, reset as soon as a text delta arrives.
awaitable<void> SoakClients::rst_http() {
  auto stream = co_await connect_plain(targets_.http_port);
  if (!stream) co_return tally(Case::RstHttp, "lost:connect");
  Deadline patience(*stream);
  patience.arm(targets_.header_timeout_s + targets_.slack_s);
  bool sent = co_await write_text(*stream, messages_request(true));
  if (!sent) co_return tally(Case::RstHttp, "lost:send");
  std::string got;
  std::uint8_t buf[4096];
  for (;;) {
    std::size_t n = co_await stream->read_some(buf, sizeof buf);
    if (n == 0) co_return tally(Case::RstHttp, patience.expired() ? "lost:no_token_in_time" : "lost:closed_before_token");
    got.append(reinterpret_cast<const char*>(buf), n);
    if (got.size() >= 12 && got.compare(0, 12, "HTTP/1.1 200") != 0)
      co_return tally(Case::RstHttp, "refused_" + got.substr(9, 3));
    if (got.find("content_block_delta") != std::string::npos) {
      stream->reset();
      co_return tally(Case::RstHttp, "reset_mid_stream");
    }
  }
}

// A request head trickled a byte every 250 ms: never quiet for long, never complete.
awaitable<void> SoakClients::slowloris() {
  auto t0 = Clock::now();
  auto stream = co_await connect_plain(targets_.http_port);
  if (!stream) co_return tally(Case::Slowloris, "lost:connect");
  CloseWatch watch(io_.get_executor(), stream);
  co_await write_text(*stream, "POST /v1/messages HTTP/1.1\r\nhost: soak\r\n");
  while (!watch.closed() && since(t0) < targets_.header_timeout_s + targets_.slack_s) {
    co_await watch.sleep(0.25);
    if (!watch.closed()) co_await write_text(*stream, "x");
  }
  if (!watch.closed()) {
    stream->close();
    co_return tally(Case::Slowloris, "not_closed");
  }
  closed_after(Case::Slowloris, std::chrono::duration<double>(watch.closed_at() - t0).count(), targets_.header_timeout_s);
}

// A frame header claiming more than the largest payload: ERROR on stream 0, then the close.
awaitable<void> SoakClients::oversized() {
  auto stream = co_await connect_plain(targets_.lab_port);
  if (!stream) co_return tally(Case::Oversized, "lost:connect");
  LabPeer peer(stream);
  bool negotiated = co_await peer.negotiate();
  if (!negotiated) co_return tally(Case::Oversized, "lost:negotiation");
  co_await stream->write_all(peer.oversized());
  Bytes s2c;
  auto closed = co_await read_until_closed(*stream, targets_.slack_s, s2c);
  if (!closed) co_return tally(Case::Oversized, "not_closed");
  for (const FrameEvent& e : peer.frames(s2c))
    if (const ErrorBody* err = error_of(e); err && err->stream_id == 0)
      co_return tally(Case::Oversized, (err->code == 503 ? "refused_" : "error_then_closed_") + std::to_string(err->code));
  tally(Case::Oversized, "lost:closed_without_error");
}

// Random bytes, the first a zero (no TLS record, no preface, no HTTP method), on each port
// in turn: closed at once, HTTP with a 400 first.
awaitable<void> SoakClients::garbage(unsigned turn) {
  std::uint16_t ports[] = {targets_.lab_port, targets_.tls_port, targets_.http_port};
  auto stream = co_await connect_plain(ports[turn % 3]);
  if (!stream) co_return tally(Case::Garbage, "lost:connect");
  std::mt19937 rng(turn);
  Bytes junk(16 + rng() % 2000);
  for (auto& b : junk) b = static_cast<std::uint8_t>(rng());
  junk[0] = 0;
  co_await stream->write_all(junk);
  Bytes back;
  auto closed = co_await read_until_closed(*stream, targets_.slack_s, back);
  if (!closed) co_return tally(Case::Garbage, std::string(turn % 3 == 0 ? "lab" : turn % 3 == 1 ? "tls" : "http") + ".not_closed");
  if (turn % 3 == 2) co_return tally(Case::Garbage, starts_with(back, "HTTP/1.1 400") ? "http_400_closed" : "http_closed");
  tally(Case::Garbage, turn % 3 == 0 ? "lab_closed" : "tls_closed");
}

// Silent after connecting (TLS port: no ClientHello) or after negotiating (lab port): closed
// by the handshake or the idle timeout.
awaitable<void> SoakClients::idle(unsigned turn) {
  bool lab = turn % 2 == 1;
  auto t0 = Clock::now();  // before the server's clock can start, so a close before the timeout shows
  auto stream = co_await connect_plain(lab ? targets_.lab_port : targets_.tls_port);
  if (!stream) co_return tally(Case::Idle, "lost:connect");
  double timeout = targets_.handshake_timeout_s;
  if (lab) {
    LabPeer peer(stream);
    t0 = Clock::now();
    bool negotiated = co_await peer.negotiate();
    if (!negotiated) co_return tally(Case::Idle, "lost:negotiation");
    timeout = targets_.idle_timeout_s;
  }
  Bytes back;
  auto closed = co_await read_until_closed(*stream, timeout + targets_.slack_s, back);
  if (!closed) co_return tally(Case::Idle, lab ? "lab.not_closed" : "tls.not_closed");
  if (lab && !back.empty()) co_return tally(Case::Idle, "lab.refused_with_error");
  closed_after(Case::Idle, std::chrono::duration<double>(Clock::now() - t0).count(), timeout);
}

}  // namespace anthro::soak
