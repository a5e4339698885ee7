#include "layerzero/client.h"

#include <chrono>
#include <memory>

#include "metrics/request_result.h"
#include "net/byte_stream.h"
#include "net/deadline.h"
#include "net/dial.h"

namespace anthro::lz {

using namespace net;

namespace {

constexpr double kTickS = 0.05;  // heartbeats are due every 200 ms; looked at four times as often

// One connection: the stream, its writer and the heartbeat ticker's timer, shared with the
// ticker so that they outlive it. Every byte written and read is traced.
struct Link {
  explicit Link(std::unique_ptr<ByteStream> s) : stream(std::move(s)), writer(*stream), tick(stream->socket().get_executor()) {}
  void send(Bytes bytes) {
    if (bytes.empty() || done) return;
    tracer.feed(Direction::ClientToServer, bytes, steady_now_s());
    writer.send(std::move(bytes));
  }
  std::unique_ptr<ByteStream> stream;
  WriteQueue writer;
  asio::steady_timer tick;
  ConnectionTracer tracer{""};
  bool done = false;
};

// How long a stopped client waits for the server to close after its TERMINATE.
constexpr int kStopGraceTicks = 20;  // 1 s

// The heartbeat ticker, which also looks at the stop flag: a stop sends TERMINATE normal, and
// the connection is read until the server closes it, or closed by the client a grace later.
awaitable<void> heartbeats(std::shared_ptr<Link> link, ClientSession& session, const std::atomic<bool>* stop, bool& stopped) {
  int grace = kStopGraceTicks;
  while (!link->done) {
    Bytes out;
    if (stop && stop->load() && !stopped && session.state() == LinkState::Open) {
      stopped = true;
      session.terminate(TerminateReason::Normal, out);
    } else if (stopped && --grace == 0) {
      link->stream->close();
    } else {
      session.tick(out);
    }
    link->send(std::move(out));
    co_await sleep_for(link->tick, kTickS);
  }
}

std::uint64_t ms_to_ns(double ms) { return ms > 0 ? static_cast<std::uint64_t>(ms * 1e6) : 0; }

class Runner {
 public:
  Runner(const LzClientConfig& config, asio::io_context& io)
      : config_(config), io_(io),
        session_(ClientConfig{config.terms, config.clock, kDefaultResendBytes, ms_to_ns(config.heartbeat_ms), config.api_key}),
        end_(std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                    std::chrono::duration<double>(config.timeout_s))) {
    session_.set_buffer_usage(config.buffer_usage);
  }

  awaitable<void> run() {
    while (result_.connections < config_.max_connections) {
      if (config_.stop && config_.stop->load()) {  // stopped between connections: nothing to end
        result_.cancelled = true;
        co_return;
      }
      auto link = co_await connect();
      if (!link) co_return;
      co_await converse(link);
      if (result_.terminated || error_ || result_.cancelled) co_return;
      if (remaining_s() <= 0) co_return fail("no answer within " + std::to_string(config_.timeout_s) + " s");
    }
    fail("every one of " + std::to_string(config_.max_connections) + " connections broke before the session ended");
  }

  Result<LzRunResult> outcome() {
    if (error_) return *error_;
    result_.repeats = session_.repeats();
    return result_;
  }
  void fail(std::string why) {
    if (error_) return;
    std::string where = "layer-zero " + config_.host + ":" + std::to_string(config_.port);
    if (via_) where += " (through proxy " + *via_ + ")";  // what failed may be the tunnel's far end
    error_ = make_error(ErrorClass::Network, where + ": " + why);
  }

 private:
  double remaining_s() const { return std::chrono::duration<double>(end_ - std::chrono::steady_clock::now()).count(); }

  awaitable<std::shared_ptr<Link>> connect() {
    auto route = proxy_route(config_.proxy, config_.host, config_.tls, false);
    if (!route) {
      fail(route.error().detail);
      co_return nullptr;
    }
    tcp::socket socket(io_);
    Reached reached;
    Dial d{config_.host, config_.port, *route ? &**route : nullptr, remaining_s()};
    if (auto why = co_await dial(socket, d, reached)) {
      fail(*why);
      co_return nullptr;
    }
    if (*route) via_ = (*route)->server.url();  // (its own refusals name it already)
    if (!config_.tls) co_return std::make_shared<Link>(make_plain_stream(std::move(socket)));
    co_return co_await tls_link(std::move(socket));
  }

  // TLS 1.3 offering ALPN layer-zero alone: a server that selects nothing else speaks it.
  awaitable<std::shared_ptr<Link>> tls_link(tcp::socket socket) {
    if (!tls_) {
      tls_ = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_client);
      ClientTlsConfig tls{{"layer-zero"}, config_.ca_file, config_.insecure, config_.keylog};
      if (auto ok = configure_client_tls(tls_->native_handle(), tls); !ok) {
        fail(ok.error().detail);
        co_return nullptr;
      }
    }
    auto link = std::make_shared<Link>(make_tls_stream(std::move(socket), *tls_));
    if (auto ok = set_client_host(link->stream->ssl(), config_.host); !ok) {
      fail(ok.error().detail);
      co_return nullptr;
    }
    if (!co_await tls_handshake(*link->stream, false)) {
      fail("TLS handshake failed: " + link->stream->error().message());
      co_return nullptr;
    }
    if (const std::string alpn = selected_alpn(link->stream->ssl()); alpn != "layer-zero") {
      fail("the server selected " + (alpn.empty() ? std::string("no ALPN") : "ALPN \"" + alpn + "\"") + ", not layer-zero");
      co_return nullptr;
    }
    co_return link;
  }

  // One connection, from its SESSION_INIT to its end: TERMINATE either way, or a break.
  awaitable<void> converse(std::shared_ptr<Link> link) {
    ++result_.connections;
    link->tracer = ConnectionTracer(config_.name + "#" + std::to_string(result_.connections));
    current_ = link;
    Deadline whole(*link->stream);
    whole.arm(remaining_s());
    Bytes out;
    if (!session_.connect(out)) {
      fail("the model id \"" + config_.terms.model_id + "\" is longer than SESSION_INIT's 255 bytes");
      co_return;
    }
    if (!prompted_) {
      session_.send_input(config_.prompt, out);  // kept, and sent once the ACK says from where
      prompted_ = true;
    }
    link->send(std::move(out));
    co_spawn(io_, heartbeats(link, session_, config_.stop, result_.cancelled),
             report_failure([this](const std::string& what) { fail(what); }));
    std::vector<std::uint8_t> buf(64 * 1024);
    while (session_.state() != LinkState::Closed) {
      const std::size_t n = co_await link->stream->read_some(buf.data(), buf.size());
      std::vector<Event> events;
      Bytes reply;
      read_ts_ = steady_now_s();
      if (n == 0) {
        session_.end_of_stream(events);
      } else {
        link->tracer.feed(Direction::ServerToClient, ByteView(buf.data(), n), read_ts_);
        session_.receive(ByteView(buf.data(), n), reply, events);
      }
      link->send(std::move(reply));
      for (auto& e : events) note(e);
    }
    link->tracer.finish(steady_now_s());
    result_.trace.push_back(link->tracer.take());
    link->done = true;
    link->tick.cancel();
    co_await link->writer.flush();
    whole.disarm();
    link->stream->close();
    session_.connection_lost();
  }

  void note(Event& e) {
    switch (e.kind) {
      case EventKind::Output:
        result_.text += e.text;
        result_.outputs.push_back({e.sequence_id, std::move(e.text), result_.connections});
        if (config_.on_output) config_.on_output(result_.outputs.back(), read_ts_);
        break;
      case EventKind::Opened:  // the ACK just read released the prompt, written with the reply
        if (config_.on_prompt_sent) config_.on_prompt_sent(read_ts_);
        break;
      case EventKind::Resumed: ++result_.resumes; break;
      case EventKind::ToolCall:
        ++result_.tool_calls;
        co_spawn(io_, answer_tool(e.sequence_id), report_failure([this](const std::string& what) { fail(what); }));
        break;
      case EventKind::PeerTerminated:
        result_.terminated = e.reason;
        result_.terminated_by_server = true;
        result_.complete = e.reason == TerminateReason::Normal;
        result_.detail = e.detail;
        break;
      case EventKind::Refused:
        if (e.reason == TerminateReason::Incomplete) break;  // the stream broke inside a frame: resume
        result_.terminated = e.reason;
        result_.detail = "the client refused the server's frame: " + e.detail;
        break;
      default: break;
    }
  }

  // The tool handler's answer, after its delay, on whichever connection is then current (kept
  // by the session and resent after the next ACK when none is open).
  awaitable<void> answer_tool(std::uint32_t call_id) {
    asio::steady_timer wait(io_);
    co_await sleep_for(wait, config_.tool_delay_ms / 1000);
    Bytes out;
    session_.send_tool_result(ToolResult{call_id, config_.tool_result_json}, out);
    if (current_) current_->send(std::move(out));
  }

  const LzClientConfig& config_;
  asio::io_context& io_;
  std::shared_ptr<Link> current_;
  ClientSession session_;
  std::chrono::steady_clock::time_point end_;
  LzRunResult result_;
  std::optional<Error> error_;
  std::optional<std::string> via_;  // the proxy a connection went through, for fail()
  std::unique_ptr<asio::ssl::context> tls_;  // made at the first TLS connection, shared by the resumes
  bool prompted_ = false;
  double read_ts_ = 0;  // when the bytes being read arrived
};

}  // namespace

LzClientConfig default_client_config() {
  LzClientConfig c;
  c.terms = {"claude-3-5-sonnet", 2000, kConstraintTools | kConstraintDynamicFrameSize};
  c.timeout_s = 20;
  return c;
}

Result<LzRunResult> run_lz_prompt(const LzClientConfig& config) {
  asio::io_context io;
  Runner runner(config, io);
  co_spawn(io, runner.run(), report_failure([&runner](const std::string& what) { runner.fail(what); }));
  io.run();
  return runner.outcome();
}

}  // namespace anthro::lz
