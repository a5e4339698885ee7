// A live session in the background, for a GUI: the requests of run_session on a thread of
// their own, each token reported as it arrives, and a cancel that a button can press.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "session/session.h"
#include "util/result.h"

namespace anthro {

// Called on the session's own thread, never on the caller's: a GUI marshals them to its UI
// thread (e.g. QMetaObject::invokeMethod with Qt::QueuedConnection), copying what it keeps.
// A handler must not destroy its LiveSession (the destructor joins the thread it runs on).
struct LiveSessionEvents {
  // Token text as it arrives. stream_id is the request's (RequestResult::stream_id).
  std::function<void(std::uint32_t stream_id, std::string_view text)> on_text;
  // Each request as it ends, figures computed (also a failed or cancelled one).
  std::function<void(const RequestResult&)> on_request_done;
  // Once, at the end: after the last request, an error, cancel() or the destructor.
  std::function<void(const SessionResult&)> on_finished;
  // Each token frame (anthro-v1) or token chunk (HTTP) as it arrives, with the time it was
  // stamped at the socket read (the clock of RequestTimeline), for figures while it streams.
  std::function<void(std::uint32_t stream_id, const TokenArrival& arrival)> on_token;
};

class LiveSession {
 public:
  // Starts the session (config.repeat requests on one connection) on its own thread.
  // Errors: a bad target or unreadable CA file (as run_session's); network failures arrive in
  // on_finished's SessionResult::error or the RequestResult's error.
  // config.on_text and config.on_bytes, when set, are called too (on the session's thread).
  static Result<std::unique_ptr<LiveSession>> start(SessionConfig config, LiveSessionEvents events);
  // Cancels what is running, closes the connection (an anthro-v1 CANCEL goes out first when a
  // request is streaming, but its RESPONSE is not awaited), and joins the thread. on_finished
  // has run when it returns.
  ~LiveSession();
  LiveSession(const LiveSession&) = delete;
  LiveSession& operator=(const LiveSession&) = delete;

  // Thread-safe; returns at once. No further request starts.
  // anthro-v1: the stream in flight gets a real CANCEL frame at once (also while still waiting
  // for the first token) and is read until the RESPONSE with stop_reason "cancelled" ends it:
  // its RequestResult has stop_reason Cancelled and a cancel_latency_ms figure.
  // HTTP targets: the Messages API has no cancel, so the connection is closed; the request
  // ends with no stop_reason, error "cancelled by the client (connection closed)" and
  // timeline.cancel_written set at the close.
  // A format's own client (Target::own_client) ends the prompt under way its own way (a closing
  // frame), stop_reason Cancelled.
  // Before the first request started the session ends with no requests and
  // SessionResult::error "cancelled by the client before the first request".
  // After the session ended it does nothing.
  void cancel();
  bool finished() const;  // on_finished has run
  void wait();            // until on_finished has run

  struct Impl;

 private:
  explicit LiveSession(std::unique_ptr<Impl> impl);
  static Result<std::unique_ptr<LiveSession>> start_own(SessionConfig config, Target target, LiveSessionEvents events);
  void cancel_now(bool close_connection);
  std::unique_ptr<Impl> impl_;
};

}  // namespace anthro
