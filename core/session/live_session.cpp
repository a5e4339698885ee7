#include "session/live_session.h"

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
  std::unique_ptr<SessionClient> client;
  std::thread thread;
  mutable std::mutex mutex;
  std::condition_variable done;
  bool finished = false;

  // The session thread: the client's coroutine on this thread's loop, then on_finished.
  void run() {
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
    if (events.on_finished) events.on_finished(result);
    std::lock_guard lock(mutex);
    finished = true;
    done.notify_all();
  }
};

Result<std::unique_ptr<LiveSession>> LiveSession::start(SessionConfig config, LiveSessionEvents events) {
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
      const std::uint32_t stream = requests.empty() ? 0 : requests.back().stream_id;
      if (p->events.on_text) p->events.on_text(stream, text);
      if (p->events.on_token && !requests.empty() && !requests.back().timeline.tokens.empty())
        p->events.on_token(stream, requests.back().timeline.tokens.back());
    };
  }
  p->client = std::make_unique<SessionClient>(p->config, *setup);
  p->thread = std::thread([p] { p->run(); });
  return std::unique_ptr<LiveSession>(new LiveSession(std::move(impl)));
}

LiveSession::LiveSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

LiveSession::~LiveSession() {
  // Posted after the session ended, the handler never runs: nothing runs the loop any more.
  asio::post(impl_->io, [client = impl_->client.get()] { client->request_cancel(true); });
  if (impl_->thread.joinable()) impl_->thread.join();
}

void LiveSession::cancel() {
  asio::post(impl_->io, [client = impl_->client.get()] { client->request_cancel(); });
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
