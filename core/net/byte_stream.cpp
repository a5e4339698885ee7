#include "net/byte_stream.h"

#include "net/deadline.h"

namespace anthro::net {
namespace {

// Reads and writes of any Asio stream, recording the error for ByteStream::error().
template <class Inner>
class AsioStream : public ByteStream {
 public:
  template <class... A>
  explicit AsioStream(A&&... args) : inner_(std::forward<A>(args)...) {}
  awaitable<std::size_t> read_some(std::uint8_t* data, std::size_t size) override {
    std::size_t n = co_await inner_.async_read_some(asio::buffer(data, size), asio::redirect_error(use_awaitable, ec_));
    co_return ec_ ? 0 : n;
  }
  awaitable<bool> write_all(ByteView data) override {
    co_await asio::async_write(inner_, asio::buffer(data.data(), data.size()), asio::redirect_error(use_awaitable, ec_));
    co_return !ec_;
  }

 protected:
  Inner inner_;
};

class PlainStream : public AsioStream<tcp::socket> {
 public:
  using AsioStream::AsioStream;
  tcp::socket& socket() override { return inner_; }
};

class TlsStream : public AsioStream<asio::ssl::stream<tcp::socket>> {
 public:
  using AsioStream::AsioStream;
  tcp::socket& socket() override { return inner_.next_layer(); }
  ssl_st* ssl() override { return inner_.native_handle(); }
  awaitable<bool> handshake(bool server) {
    co_await inner_.async_handshake(server ? asio::ssl::stream_base::server : asio::ssl::stream_base::client,
                                    asio::redirect_error(use_awaitable, ec_));
    co_return !ec_;
  }
};

}  // namespace

void ByteStream::reset() {
  boost::system::error_code ignored;
  socket().set_option(asio::socket_base::linger(true, 0), ignored);
  socket().close(ignored);
}

void ByteStream::close() {
  boost::system::error_code ignored;
  socket().shutdown(tcp::socket::shutdown_both, ignored);
  socket().close(ignored);
}

std::unique_ptr<ByteStream> make_plain_stream(tcp::socket socket) {
  return std::make_unique<PlainStream>(std::move(socket));
}

std::unique_ptr<ByteStream> make_tls_stream(tcp::socket socket, asio::ssl::context& ctx) {
  return std::make_unique<TlsStream>(std::move(socket), ctx);
}

awaitable<bool> tls_handshake(ByteStream& stream, bool server) {
  co_return co_await static_cast<TlsStream&>(stream).handshake(server);
}

namespace {
constexpr std::size_t kSpares = 4, kSpareCapacity = 4096;  // a few small frames' buffers, no more
}  // namespace

WriteQueue::WriteQueue(ByteStream& stream, double write_timeout_s)
    : stream_(stream),
      write_timeout_s_(write_timeout_s),
      deadline_(std::make_unique<Deadline>(stream)),
      drained_(stream.socket().get_executor()) {}

WriteQueue::~WriteQueue() = default;

bool WriteQueue::timed_out() const { return deadline_->expired(); }

bool WriteQueue::enqueue(Bytes bytes) {
  if (failed_ || stopped_ || bytes.empty()) return false;
  queued_ += bytes.size();
  queue_.push_back(std::move(bytes));
  if (writing_) return false;
  writing_ = true;
  return true;
}

void WriteQueue::send(Bytes bytes) {
  if (!enqueue(std::move(bytes))) return;
  // A writer that throws leaves the queue failed, as a failed write does, so no one waits on it.
  co_spawn(stream_.socket().get_executor(), drain(), report_failure([this](const std::string&) {
             failed_ = true;
             writing_ = false;
             drained_.notify();
           }));
}

namespace {
awaitable<void> done() { co_return; }
}  // namespace

// Not a coroutine itself: the drain is the caller's to await, one frame fewer per write.
awaitable<void> WriteQueue::write(Bytes bytes) {
  if (enqueue(std::move(bytes))) return drain();
  return done();
}

awaitable<void> WriteQueue::wait_below(std::size_t limit) {
  while (queued_ > limit && !failed_ && !stopped_) co_await drained_.wait();
}

awaitable<void> WriteQueue::drain() {
  while (!queue_.empty() && !failed_ && !stopped_) {
    // What queued up meanwhile goes out in one write: one syscall and TLS record, not one per frame.
    Bytes next = std::move(queue_.front());
    queue_.pop_front();
    while (!queue_.empty() && next.size() < 64 * 1024) {
      append(next, queue_.front());
      queue_.pop_front();
    }
    bool ok = co_await write_within(stream_, *deadline_, next, write_timeout_s_);
    queued_ -= next.size();
    if (spares_.size() < kSpares && next.capacity() <= kSpareCapacity) {
      next.clear();
      spares_.push_back(std::move(next));
    }
    if (!ok) failed_ = true;
    drained_.notify();
  }
  writing_ = false;
  drained_.notify();
}

Bytes WriteQueue::spare() {
  if (spares_.empty()) return {};
  Bytes b = std::move(spares_.back());
  spares_.pop_back();
  return b;
}

void WriteQueue::stop() {
  stopped_ = true;
  drained_.notify();
}

}  // namespace anthro::net
