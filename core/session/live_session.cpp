#include "session/live_session.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "session/client.h"

namespace anthro {

using namespace net;

struct LiveSession::Impl {
  SessionConfig config;  // the client keeps a reference: it lives as long as the client
  LiveSessionEvents events;
  asio::io_context io;
  std::unique_ptr<SessionClient> client;  // null for a target of a format's own client
  std::optional<Target> own;
  std::atomic<bool> stop{false};           // the own client's cancel
  std::thread thread;
  mutable std::mutex mutex;
  std::condition_variable done;
  bool finished = false;

  // The session thread: the client's coroutine on this thread's loop (or the format's own
  // client's run), then on_finished.
  void run() {
    const RunStart start = RunStart::now();
    SessionResult result = own ? run_own() : run_client();
    result.start = start;
    if (events.on_finished) events.on_finished(result);
    std::lock_guard lock(mutex);
    finished = true;
    done.notify_all();
  }

  SessionResult run_own() {
    SessionHooks hooks;
    hooks.stop = &stop;
    hooks.on_output = [this](const RequestResult& r) {
      if (events.on_text) events.on_text(0, r.text.substr(text_seen));
      text_seen = r.text.size();
      if (events.on_token && !r.timeline.tokens.empty()) events.on_token(0, r.timeline.tokens.back());
    };
    hooks.on_request = [this](const RequestResult& r) {
      text_seen = 0;
      if (events.on_request_done) events.on_request_done(r);
    };
    return session_runner(own->profile)(config, *own, hooks);
  }
  std::size_t text_seen = 0;  // of the own client's request under way, passed to on_text

  SessionResult run_client() {
    SessionResult result;
    auto on_request = [this](const RequestResult& r) {
      if (events.on_request_done) events.on_request_done(r);
    };
    co_spawn(io, client->run(on_request),
             [&](std::exception_ptr e, SessionResult r) { result = client->outcome(e, std::move(r)); });
    try {
      io.run();
    } catch (const std::exception& x) {
      result.error = std::string("internal error: ") + x.what();
    }
    return result;
  }
};

Result<std::unique_ptr<LiveSession>> LiveSession::start(SessionConfig config, LiveSessionEvents events) {
  auto target = parse_session_target(config.target);
  if (!target) return target.error();
  if (target->own_client()) return start_own(std::move(config), *target, std::move(events));
  auto setup = prepare_client(config);
  if (!setup) return setup.error();
  auto impl = std::make_unique<Impl>();
  Impl* p = impl.get();
  p->config = std::move(config);
  p->events = std::move(events);
  if (p->events.on_text || p->events.on_token) {
    // The text comes through the config's callback, which knows no stream: the request
    // under way is the last one in the client's result, its arrival already recorded.
    p->config.on_text = [p, own = std::move(p->config.on_text)](std::string_view text) {
      if (own) own(text);
      const auto& requests = p->client->result().requests;
      const std::uint32_t id = requests.empty() ? 0 : requests.back().stream_id;
      if (p->events.on_text) p->events.on_text(id, text);
      if (p->events.on_token && !requests.empty() && !requests.back().timeline.tokens.empty())
        p->events.on_token(id, requests.back().timeline.tokens.back());
    };
  }
  p->client = std::make_unique<SessionClient>(p->config, *setup);
  p->thread = std::thread([p] { p->run(); });
  return std::unique_ptr<LiveSession>(new LiveSession(std::move(impl)));
}

Result<std::unique_ptr<LiveSession>> LiveSession::start_own(SessionConfig config, Target target, LiveSessionEvents events) {
  auto impl = std::make_unique<Impl>();
  Impl* p = impl.get();
  p->config = std::move(config);
  p->events = std::move(events);
  p->own = std::move(target);
  p->thread = std::thread([p] { p->run(); });
  return std::unique_ptr<LiveSession>(new LiveSession(std::move(impl)));
}

LiveSession::LiveSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

LiveSession::~LiveSession() {
  cancel_now(true);
  if (impl_->thread.joinable()) impl_->thread.join();
}

void LiveSession::cancel() { cancel_now(false); }

void LiveSession::cancel_now(bool close_connection) {
  impl_->stop = true;
  if (!impl_->client) return;
  // Posted after the session ended, the handler never runs: nothing runs the loop any more.
  asio::post(impl_->io, [client = impl_->client.get(), close_connection] { client->request_cancel(close_connection); });
}

bool LiveSession::finished() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->finished;
}

void LiveSession::wait() {
  std::unique_lock lock(impl_->mutex);
  impl_->done.wait(lock, [&] { return impl_->finished; });
}

}  // namespace anthro
