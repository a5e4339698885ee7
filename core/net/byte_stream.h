// A connected byte stream, plain TCP or TLS, with a write queue so several coroutines can
// send on one connection without interleaving their bytes.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "net/asio.h"
#include "net/tls.h"

namespace anthro::net {

class Deadline;

class ByteStream {
 public:
  virtual ~ByteStream() = default;
  // Bytes read, or 0 at end of stream or on error (see error()).
  virtual awaitable<std::size_t> read_some(std::uint8_t* data, std::size_t size) = 0;
  virtual awaitable<bool> write_all(ByteView data) = 0;
  // All of `data` written at once, without waiting (Done); or the write failed (Failed, error()
  // says why); or it must be finished by co_await write_all(data) with the same bytes (Pending).
  enum class WriteNow { Done, Pending, Failed };
  virtual WriteNow write_now(ByteView) { return WriteNow::Pending; }
  virtual tcp::socket& socket() = 0;
  virtual ssl_st* ssl() { return nullptr; }
  const boost::system::error_code& error() const { return ec_; }

  // Abortive close (TCP RST), the `reset-mid-stream` fault and what a dead peer sees.
  void reset();
  void close();

 protected:
  boost::system::error_code ec_;
};

std::unique_ptr<ByteStream> make_plain_stream(tcp::socket socket);
std::unique_ptr<ByteStream> make_tls_stream(tcp::socket socket, asio::ssl::context& ctx);
// The TLS handshake of a stream made by make_tls_stream; false with error() set on failure.
awaitable<bool> tls_handshake(ByteStream& stream, bool server);

// Writes whole messages in order for several coroutines sharing one connection. A message
// sent while nothing is being written goes out at once, in the sender's own turn of the loop;
// otherwise it joins the queue the current writer drains.
class WriteQueue {
 public:
  // A write the peer has not taken within `write_timeout_s` (0: no limit) closes the stream and
  // fails the queue, timed_out() then true.
  explicit WriteQueue(ByteStream& stream, double write_timeout_s = 0);
  ~WriteQueue();
  // From code that cannot wait: queues, and starts a writer when none is running. What is
  // queued meanwhile leaves with it in one write (the burst fault's big writes rely on that).
  void send(Bytes bytes);
  // When nothing is queued and the socket takes all of `bytes` now, writes them in the caller's
  // turn: no writer coroutine, no deadline. True when they went out (or the stream failed, as
  // failed() then says); false with `bytes` untouched: co_await write(), which finishes them.
  bool send_now(Bytes& bytes);
  // Queues, and when no writer is running writes now in this coroutine.
  awaitable<void> write(Bytes bytes);
  std::size_t queued_bytes() const { return queued_; }
  // An empty buffer, with the capacity of one already written when there is one: a connection
  // that sends a frame per token then allocates none in the steady state.
  Bytes spare();
  bool failed() const { return failed_; }
  bool timed_out() const;
  // Waits until at most `limit` bytes are queued, or the stream failed.
  awaitable<void> wait_below(std::size_t limit);
  // Waits until everything queued is written, or the stream failed.
  awaitable<void> flush() { return wait_below(0); }
  void stop();

 private:
  bool enqueue(Bytes bytes);
  awaitable<void> drain();
  void recycle(Bytes written);

  ByteStream& stream_;
  double write_timeout_s_;
  std::unique_ptr<Deadline> deadline_;
  std::deque<Bytes> queue_;
  std::vector<Bytes> spares_;
  std::size_t queued_ = 0;
  bool writing_ = false, failed_ = false, stopped_ = false;
  Signal drained_;
};

}  // namespace anthro::net
