// Timeouts of a connection's phases (a handshake, a request head, an idle wait): a Deadline
// closes the stream when the phase it is armed for outlasts its budget, which ends the
// coroutine's pending read with an error like any dead peer would.
#pragma once

#include <memory>

#include "net/byte_stream.h"

namespace anthro::net {

class Deadline {
 public:
  explicit Deadline(ByteStream& stream);
  ~Deadline();
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;

  // Starts the countdown afresh; `seconds` <= 0 means no limit.
  void arm(double seconds);
  void disarm();
  // Seconds until the stream closes; infinity when disarmed.
  double remaining() const;
  // The stream was closed by this deadline.
  bool expired() const { return state_->expired; }

 private:
  using Clock = asio::steady_timer::clock_type;
  // Shared with the pending wait, so an expiry racing the destructor (its handler already
  // queued) sees no owner and does nothing.
  struct State {
    Deadline* owner;
    bool expired = false;
  };
  // Arming is a store: the timer is started only when none is pending, and when it fires
  // before the current deadline it waits again. A deadline armed and disarmed around every
  // write (thousands a second on a streaming connection) then costs no timer operations.
  void wait();
  void on_timer();

  ByteStream& stream_;
  asio::steady_timer timer_;
  std::shared_ptr<State> state_;
  Clock::time_point deadline_ = Clock::time_point::max();
  bool waiting_ = false;
};

// Writes `data`, closing the stream when the peer has not taken all of it within `seconds`
// (<= 0: no limit): a peer that stops reading mid-reply must not hold its connection, and the
// replies queued for it, for ever. `deadline` is the write's own; its expired() says why a
// write failed.
awaitable<bool> write_within(ByteStream& stream, Deadline& deadline, ByteView data, double seconds);

// Closes after letting the peer read what was sent: shuts down the sending side, then reads
// and discards until the peer closes or `seconds` pass. A plain close with the peer's bytes
// unread sends RST, and the peer may lose the answer it has not read yet.
awaitable<void> close_gracefully(ByteStream& stream, double seconds);

}  // namespace anthro::net
