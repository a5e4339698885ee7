#include "net/byte_stream.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "net/deadline.h"
#include "net/tls.h"
#include "net/tls_record_writer.h"

namespace anthro::net {
namespace {

constexpr std::uint8_t kTlsApplicationData = 23;

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

// The BIO under a TlsStream. Writes go straight to the socket, with MSG_NOSIGNAL (OpenSSL's
// socket BIO uses write(2), which raises SIGPIPE on a connection the peer reset). Reads come
// from bytes Asio received: its receive skips the syscall that would only say "nothing yet"
// after a short read, and waits without re-arming epoll; a wait of our own would cost both.
// Once the TLS 1.3 application keys are set it seals the records itself (TlsRecordWriter),
// as kernel TLS would: OpenSSL then passes it plaintext. It takes them only with the traffic
// secret they came from (OpenSSL's key log), for the keys after a KeyUpdate: OpenSSL 3.0 moves
// to those without telling the BIO.
struct SocketBio {
  explicit SocketBio(int socket) : fd(socket) {}
  int fd;
  // The last receive brought [0, end); from `at` on not yet taken. Not zeroed: a vector's
  // 16.5 KiB of zeros cost ~8 k instructions and five page faults a connection on each side.
  std::unique_ptr<std::uint8_t[]> in;
  std::size_t at = 0, end = 0;
  bool eof = false;
  TrafficSecret sending_secret;  // from the key log, until the kTLS hook takes it with the keys
  std::optional<TlsRecordWriter> records;  // set by OpenSSL's kTLS hook (TLS 1.3 only)
  std::uint8_t record_type = kTlsApplicationData;  // the next record's; OpenSSL names others first
  Bytes unsent;  // sealed record bytes the socket has not taken yet, from `unsent_at` on
  std::size_t unsent_at = 0;

  bool has_unsent() const { return unsent_at < unsent.size(); }
  // Sends what is left of the sealed records: 1 when all went out, 0 when the socket is full,
  // -1 on an error (errno says which).
  int send_unsent() {
    while (has_unsent()) {
      ssize_t n = ::send(fd, unsent.data() + unsent_at, unsent.size() - unsent_at, MSG_NOSIGNAL);
      if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
      unsent_at += static_cast<std::size_t>(n);
    }
    unsent.clear();
    unsent_at = 0;
    return 1;
  }
};

// A record sealed here is taken whole (reported written) even when the socket takes part of
// it: the rest goes out before anything else, and the stream waits for it (TlsStream::write_step,
// until_done).
int bio_write_record(BIO* b, SocketBio& s, const char* data, std::size_t size, std::size_t* written) {
  int sent = s.send_unsent();
  if (sent == 0) BIO_set_retry_write(b);
  if (sent <= 0) return 0;
  ByteView plaintext(reinterpret_cast<const std::uint8_t*>(data), size);
  if (!s.records->seal(std::exchange(s.record_type, kTlsApplicationData), plaintext, s.unsent)) {
    errno = EPROTO;  // no keys left to seal with (TlsRecordWriter::seal)
    return 0;
  }
  if (s.send_unsent() < 0) return 0;
  *written = size;
  return 1;
}

int bio_write(BIO* b, const char* data, std::size_t size, std::size_t* written) {
  auto* s = static_cast<SocketBio*>(BIO_get_data(b));
  BIO_clear_retry_flags(b);
  if (s->records) return bio_write_record(b, *s, data, size, written);
  ssize_t n = ::send(s->fd, data, size, MSG_NOSIGNAL);
  if (n >= 0) {
    *written = static_cast<std::size_t>(n);
    return 1;
  }
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) BIO_set_retry_write(b);
  return 0;
}

int bio_read(BIO* b, char* data, std::size_t size, std::size_t* read) {
  auto* s = static_cast<SocketBio*>(BIO_get_data(b));
  BIO_clear_retry_flags(b);
  std::size_t n = std::min(size, s->end - s->at);
  if (n == 0) {
    if (!s->eof) BIO_set_retry_read(b);
    return 0;
  }
  std::memcpy(data, s->in.get() + s->at, n);
  s->at += n;
  *read = n;
  return 1;
}

// OpenSSL 3.0's kTLS controls (its internal/bio.h; the public header has only the GET ones).
constexpr int kCtrlSetKtls = 72, kCtrlSetKtlsRecordType = 74, kCtrlClearKtlsRecordType = 75;

long bio_ctrl(BIO* b, int cmd, long num, void* ptr) {
  auto* s = static_cast<SocketBio*>(BIO_get_data(b));
  switch (cmd) {
    case BIO_CTRL_FLUSH: return 1;
    case BIO_CTRL_EOF: return s->eof && s->at == s->end ? 1 : 0;
    case BIO_CTRL_PENDING: return static_cast<long>(s->end - s->at);
    case BIO_CTRL_GET_KTLS_SEND: return s->records ? 1 : 0;
    case kCtrlSetKtls:  // num: nonzero (SSL3_CC_WRITE) for the sending keys; receiving stays OpenSSL's
      if (num == 0 || s->records || s->has_unsent()) return 0;
      s->records = TlsRecordWriter::from_ktls_info(ptr, s->sending_secret);
      s->sending_secret.clear();  // the writer has its copy
      return s->records ? 1 : 0;
    case kCtrlSetKtlsRecordType: s->record_type = static_cast<std::uint8_t>(num); return 1;
    case kCtrlClearKtlsRecordType: s->record_type = kTlsApplicationData; return 1;
    default: return 0;
  }
}

BIO_METHOD* socket_bio_method() {
  static BIO_METHOD* method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "anthro socket");
    if (!m || !BIO_meth_set_write_ex(m, bio_write) || !BIO_meth_set_read_ex(m, bio_read) || !BIO_meth_set_ctrl(m, bio_ctrl))
      throw std::runtime_error("cannot make the TLS socket BIO");
    return m;
  }();
  return method;
}

// TLS on the socket with no second buffer layer: asio::ssl::stream goes through a BIO pair,
// a copy of every record and another round of its state machine per read and write.
class TlsStream : public ByteStream {
 public:
  TlsStream(tcp::socket socket, asio::ssl::context& ctx) : socket_(std::move(socket)), ssl_(SSL_new(ctx.native_handle())) {
    if (!ssl_) throw std::runtime_error("SSL_new failed");
    // The retry of a write that would block may come from a moved buffer (a coroutine frame).
    SSL_set_mode(ssl_, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    // OpenSSL then hands the TLS 1.3 sending keys to the BIO, which seals the records itself.
    SSL_set_options(ssl_, SSL_OP_ENABLE_KTLS);
    // A record's header and body taken from the BIO in one read, not two: the bytes are in
    // memory already (SocketBio::in), so reading ahead costs no syscall.
    SSL_set_read_ahead(ssl_, 1);
    boost::system::error_code ec;
    socket_.non_blocking(true, ec);
    BIO* bio = ec ? nullptr : BIO_new(socket_bio_method());
    if (!bio) {
      SSL_free(ssl_);
      throw std::runtime_error("cannot attach TLS to the socket");
    }
    BIO_set_data(bio, &bio_state_);
    BIO_set_init(bio, 1);
    SSL_set_bio(ssl_, bio, bio);  // the SSL owns it now
    // Without the secret (a context logging keys through a callback not ours) OpenSSL seals.
    (void)watch_sending_secret(ssl_, &bio_state_.sending_secret);
  }
  ~TlsStream() override { SSL_free(ssl_); }
  tcp::socket& socket() override { return socket_; }
  ssl_st* ssl() override { return ssl_; }

  // Not a coroutine itself: until_done's frame is the read's only one.
  awaitable<std::size_t> read_some(std::uint8_t* data, std::size_t size) override {
    return until_done([this, data, size](std::size_t& n) { return attempt([&] { return SSL_read_ex(ssl_, data, size, &n); }); },
                      nothing_to_read() ? Attempt::WantRead : Attempt::Done);
  }

  awaitable<bool> write_all(ByteView data) override {
    if (!data.empty()) co_await until_done([&](std::size_t&) { return write_step(data); });
    co_return !ec_;
  }

  // One write step: a record the socket takes whole is done here, in the caller's turn.
  WriteNow write_now(ByteView data) override {
    if (data.empty()) return WriteNow::Pending;
    switch (write_step(data)) {
      case Attempt::Done: return WriteNow::Done;
      case Attempt::Failed: return WriteNow::Failed;
      case Attempt::WantRead:
      case Attempt::WantWrite: return WriteNow::Pending;  // write_all retries with the same bytes
    }
    return WriteNow::Pending;
  }

  awaitable<bool> handshake(bool server) {
    if (server) SSL_set_accept_state(ssl_);
    else SSL_set_connect_state(ssl_);
    co_await until_done([&](std::size_t&) { return attempt([&] { return SSL_do_handshake(ssl_); }); });
    co_return !ec_;
  }

 private:
  static constexpr std::size_t kReceive = 16 * 1024 + 512;  // a whole TLS record and its header
  static constexpr std::size_t kMaxRecordPlaintext = 16 * 1024;  // OpenSSL's records split longer writes

  enum class Attempt { Done, WantRead, WantWrite, Failed };

  // Runs `op` once; ec_ is set when it is done or failed for good.
  template <class Op>
  Attempt attempt(Op op) {
    // A closed socket's descriptor number may belong to another connection by now.
    if (!socket_.is_open()) {
      ec_ = asio::error::bad_descriptor;
      return Attempt::Failed;
    }
    // SSL_get_error reads the thread's error queue, so it must start empty; ERR_clear_error
    // walks all its slots (~800 instructions in OpenSSL 3), a peek costs a tenth of that.
    if (ERR_peek_error() != 0) ERR_clear_error();
    int r = op();
    if (r == 1) {
      ec_ = {};
      return Attempt::Done;
    }
    int saved_errno = errno;
    int why = SSL_get_error(ssl_, r);
    if (why == SSL_ERROR_WANT_READ) return Attempt::WantRead;
    if (why == SSL_ERROR_WANT_WRITE) return Attempt::WantWrite;
    ec_ = failure(why, saved_errno);
    return Attempt::Failed;
  }

  // Nothing OpenSSL could return without a receive: no bytes left in the BIO, no record or
  // plaintext buffered in OpenSSL, the handshake over and no close_notify or end of stream
  // to report. An SSL_read then only says "want read" (a third of a record's cost in OpenSSL 3):
  // a token's read receives first.
  bool nothing_to_read() const {
    return bio_state_.at == bio_state_.end && !bio_state_.eof && SSL_is_init_finished(ssl_) &&
           SSL_has_pending(ssl_) == 0 && (SSL_get_shutdown(ssl_) & SSL_RECEIVED_SHUTDOWN) == 0;
  }

  // One step of writing `data`, which the caller repeats with the same bytes (or more after
  // them: WriteQueue's writer joins what queued up) until it is Done or Failed. Records the BIO
  // sealed (TlsRecordWriter) are taken whole though the socket may take part of them: their
  // rest goes out before the step is Done, and `taken_` remembers they are no longer OpenSSL's.
  Attempt write_step(ByteView data) {
    if (bio_state_.has_unsent())
      if (Attempt sent = send_unsent(); sent != Attempt::Done) return sent;
    ByteView rest = data.subspan(std::min(taken_, data.size()));
    Attempt done = rest.empty() ? Attempt::Done : seals_alone(rest) ? seal(rest) : ssl_write(rest);
    if (done == Attempt::Done && bio_state_.has_unsent()) {
      taken_ = data.size();
      done = send_unsent();
    }
    if (done == Attempt::Done || done == Attempt::Failed) taken_ = 0;
    return done;
  }

  Attempt ssl_write(ByteView data) {
    std::size_t n = 0;
    // Without SSL_MODE_ENABLE_PARTIAL_WRITE a write succeeds only once all of it is taken.
    Attempt done = attempt([&] { return SSL_write_ex(ssl_, data.data(), data.size(), &n); });
    ssl_mid_write_ = done == Attempt::WantRead || done == Attempt::WantWrite;  // it keeps its progress
    return done;
  }

  // When the BIO seals the records and OpenSSL has nothing of its own to send first (no
  // handshake, KeyUpdate or close_notify, no write of its own half done), SSL_write would only
  // hand a one-record write to the BIO, ~1.7 k instructions later: it is sealed here instead,
  // the same record.
  bool seals_alone(ByteView data) const {
    return bio_state_.records && !ssl_mid_write_ && data.size() <= kMaxRecordPlaintext && SSL_is_init_finished(ssl_) &&
           (SSL_get_shutdown(ssl_) & SSL_SENT_SHUTDOWN) == 0 && SSL_get_key_update_type(ssl_) == SSL_KEY_UPDATE_NONE;
  }

  Attempt seal(ByteView data) {
    if (bio_state_.records->seal(kTlsApplicationData, data, bio_state_.unsent)) return Attempt::Done;
    ec_ = {EPROTO, boost::system::system_category()};  // no keys left to seal with (TlsRecordWriter::seal)
    return Attempt::Failed;
  }

  // Repeats `step` (an Attempt; it sets the bytes it moved) until it succeeds or fails for
  // good, receiving or waiting whenever OpenSSL wants the socket; ec_ says how it ended, with
  // the codes asio::ssl::stream gives. The bytes moved, 0 on failure. The receive is awaited
  // here, not through a coroutine of its own: a frame fewer on every read. `first` WantRead:
  // receive before the first step (Done: step first). Records the BIO sealed meanwhile (an
  // alert, a session ticket) are all sent before it returns.
  template <class Step>
  awaitable<std::size_t> until_done(Step step, Attempt first = Attempt::Done) {
    std::size_t n = 0;
    bool stepped = false;  // what is left is sending the rest of the sealed records
    for (bool tried = first != Attempt::WantRead;; tried = true) {
      boost::system::error_code ec;
      Attempt now = !tried ? Attempt::WantRead : stepped ? send_unsent() : step(n);
      if (now == Attempt::Done && !stepped && bio_state_.has_unsent()) {
        stepped = true;
        now = send_unsent();
      }
      switch (now) {
        case Attempt::Done: co_return n;
        case Attempt::Failed: co_return 0;
        case Attempt::WantRead: {
          auto& in = bio_state_.in;
          if (!in) in = std::make_unique_for_overwrite<std::uint8_t[]>(kReceive);  // once, at the first read
          std::size_t got = co_await socket_.async_read_some(asio::buffer(in.get(), kReceive), asio::redirect_error(use_awaitable, ec));
          ec = received(got, ec);
          break;
        }
        case Attempt::WantWrite:
          co_await socket_.async_wait(tcp::socket::wait_write, asio::redirect_error(use_awaitable, ec));
          break;
      }
      if (ec) {
        ec_ = ec;
        co_return 0;
      }
    }
  }

  // The rest of the records the BIO sealed that the socket took in part: Done once all are sent.
  Attempt send_unsent() {
    if (!socket_.is_open()) {
      ec_ = asio::error::bad_descriptor;
      return Attempt::Failed;
    }
    int sent = bio_state_.send_unsent();
    if (sent > 0) ec_ = {};
    else if (sent < 0) ec_ = {errno, boost::system::system_category()};
    return sent > 0 ? Attempt::Done : sent == 0 ? Attempt::WantWrite : Attempt::Failed;
  }

  // Gives the BIO what a receive brought; the error, if the socket failed. The end of the
  // stream is not a failure here: OpenSSL tells a close_notify from a cut.
  boost::system::error_code received(std::size_t n, boost::system::error_code ec) {
    bio_state_.at = 0;
    bio_state_.end = ec ? 0 : n;
    if (ec != asio::error::eof) return ec;
    bio_state_.eof = true;
    return {};
  }

  static boost::system::error_code failure(int why, int saved_errno) {
    if (why == SSL_ERROR_ZERO_RETURN) return asio::error::eof;  // the peer's close_notify
    unsigned long e = ERR_peek_last_error();
    // The peer closed TCP without close_notify.
    if ((why == SSL_ERROR_SYSCALL && e == 0 && saved_errno == 0) ||
        (why == SSL_ERROR_SSL && ERR_GET_REASON(e) == SSL_R_UNEXPECTED_EOF_WHILE_READING))
      return asio::ssl::error::stream_truncated;
    if (why == SSL_ERROR_SYSCALL && e == 0) return {saved_errno, boost::system::system_category()};
    if (e == 0) return asio::ssl::error::unspecified_system_error;
    return {static_cast<int>(e), asio::error::get_ssl_category()};
  }

  tcp::socket socket_;
  SocketBio bio_state_{static_cast<int>(socket_.native_handle())};
  SSL* ssl_;
  std::size_t taken_ = 0;  // bytes of the write being repeated that the BIO sealed, sent or not
  bool ssl_mid_write_ = false;  // SSL_write wants to be called again with the same bytes
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

bool WriteQueue::send_now(Bytes& bytes) {
  if (writing_ || failed_ || stopped_ || bytes.empty()) return false;
  switch (stream_.write_now(bytes)) {
    case ByteStream::WriteNow::Done:
      recycle(std::move(bytes));
      return true;
    case ByteStream::WriteNow::Failed:
      failed_ = true;
      drained_.notify();
      return true;
    case ByteStream::WriteNow::Pending: break;  // OpenSSL may hold part of it: write() retries with the same bytes
  }
  return false;
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
    recycle(std::move(next));
    if (!ok) failed_ = true;
    drained_.notify();
  }
  writing_ = false;
  drained_.notify();
}

void WriteQueue::recycle(Bytes written) {
  if (spares_.size() >= kSpares || written.capacity() > kSpareCapacity) return;
  written.clear();
  spares_.push_back(std::move(written));
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
