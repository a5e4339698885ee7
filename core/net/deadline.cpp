#include "net/deadline.h"

#include <limits>

namespace anthro::net {

Deadline::Deadline(ByteStream& stream)
    : timer_(stream.socket().get_executor()), state_(std::make_shared<State>(State{&stream})) {}

Deadline::~Deadline() { state_->stream = nullptr; }

void Deadline::arm(double seconds) {
  std::uint64_t generation = ++state_->generation;
  armed_ = seconds > 0;
  if (!armed_) {
    timer_.cancel();
    return;
  }
  timer_.expires_after(std::chrono::duration_cast<asio::steady_timer::duration>(std::chrono::duration<double>(seconds)));
  timer_.async_wait([state = state_, generation](boost::system::error_code ec) {
    if (ec || state->generation != generation || !state->stream) return;
    state->expired = true;
    state->stream->close();
  });
}

void Deadline::disarm() { arm(0); }

double Deadline::remaining() const {
  if (!armed_) return std::numeric_limits<double>::infinity();
  return std::chrono::duration<double>(timer_.expiry() - asio::steady_timer::clock_type::now()).count();
}

awaitable<bool> write_within(ByteStream& stream, Deadline& deadline, ByteView data, double seconds) {
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
