#include "net/deadline.h"

#include <limits>

namespace anthro::net {

Deadline::Deadline(ByteStream& stream)
    : stream_(stream), timer_(stream.socket().get_executor()), state_(std::make_shared<State>(State{this})) {}

Deadline::~Deadline() { state_->owner = nullptr; }

void Deadline::arm(double seconds) {
  if (seconds <= 0) {
    deadline_ = Clock::time_point::max();
    return;
  }
  auto next = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  deadline_ = next;
  if (!waiting_) return wait();
  if (next < timer_.expiry()) timer_.cancel();  // its handler waits again, for `next`
}

void Deadline::disarm() { arm(0); }

void Deadline::wait() {
  waiting_ = true;
  timer_.expires_at(deadline_);
  timer_.async_wait([state = state_](boost::system::error_code) {
    if (state->owner) state->owner->on_timer();
  });
}

void Deadline::on_timer() {
  waiting_ = false;
  if (deadline_ == Clock::time_point::max()) return;
  if (Clock::now() < deadline_) return wait();  // armed again since this wait began
  state_->expired = true;
  stream_.close();
}

double Deadline::remaining() const {
  if (deadline_ == Clock::time_point::max()) return std::numeric_limits<double>::infinity();
  return std::chrono::duration<double>(deadline_ - Clock::now()).count();
}

awaitable<bool> write_within(ByteStream& stream, Deadline& deadline, ByteView data, double seconds) {
  // A write the socket takes at once needs no deadline, and no coroutine of the stream's.
  switch (stream.write_now(data)) {
    case ByteStream::WriteNow::Done: co_return true;
    case ByteStream::WriteNow::Failed: co_return false;
    case ByteStream::WriteNow::Pending: break;
  }
  deadline.arm(seconds);
  bool ok = co_await stream.write_all(data);
  deadline.disarm();
  co_return ok && !deadline.expired();
}

awaitable<void> close_gracefully(ByteStream& stream, double seconds) {
  boost::system::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
  Deadline deadline(stream);
  deadline.arm(seconds);
  std::uint8_t buf[4096];
  for (;;) {
    std::size_t n = co_await stream.read_some(buf, sizeof buf);
    if (n == 0) break;
  }
  stream.close();
}

}  // namespace anthro::net
