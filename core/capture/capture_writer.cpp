// PcapngWriter and PcapWriter: buffered writes to PATH.tmp, renamed over PATH on close(), or
// (PcapngWriter::to_descriptor) to a pipe.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "capture/capture_file.h"

namespace anthro {

struct CaptureSink {
  std::string path, tmp;
  int fd = -1;
  Bytes buf;
  std::optional<Error> error;
  std::uint64_t written = 0;
  bool big = false;  // byte order of the put_* helpers
  bool borrowed = false;  // fd is the caller's (a pipe): no temporary, no rename, left open

  static constexpr std::size_t kFlushAt = 1u << 20;

  ~CaptureSink() {
    if (fd >= 0 && !borrowed) {
      ::close(fd);
      ::unlink(tmp.c_str());
    }
  }

  static Result<std::unique_ptr<CaptureSink>> create(const std::string& path) {
    auto s = std::make_unique<CaptureSink>();
    s->path = path;
    s->tmp = path + ".tmp";
    s->fd = ::open(s->tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (s->fd < 0) return make_error("io", s->tmp + ": cannot create: " + std::strerror(errno));
    s->buf.reserve(kFlushAt + 65536);
    return s;
  }

  static std::unique_ptr<CaptureSink> on_descriptor(int fd, const std::string& name) {
    auto s = std::make_unique<CaptureSink>();
    s->path = s->tmp = name;
    s->fd = fd;
    s->borrowed = true;
    s->buf.reserve(kFlushAt + 65536);
    return s;
  }

  void fail(const std::string& what) {
    if (!error) error = make_error("io", tmp + ": " + what + ": " + std::strerror(errno));
  }

  void flush() {
    std::size_t done = 0;
    while (done < buf.size() && !error) {
      ssize_t n = ::write(fd, buf.data() + done, buf.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        fail("cannot write");
        break;
      }
      done += static_cast<std::size_t>(n);
    }
    buf.clear();
  }

  void maybe_flush() {
    if (buf.size() >= kFlushAt) flush();
  }

  void put(ByteView b) {
    buf.insert(buf.end(), b.begin(), b.end());
    written += b.size();
  }
  void pad4() {
    static constexpr std::uint8_t zeros[4] = {};
    put(ByteView(zeros, (4 - written % 4) % 4));
  }
  void put16(std::uint16_t v) {
    std::uint8_t b[2];
    if (big) {
      store_u16(b, v);
    } else {
      b[0] = static_cast<std::uint8_t>(v);
      b[1] = static_cast<std::uint8_t>(v >> 8);
    }
    put(b);
  }
  void put32(std::uint32_t v) {
    if (big) {
      put16(static_cast<std::uint16_t>(v >> 16));
      put16(static_cast<std::uint16_t>(v));
    } else {
      put16(static_cast<std::uint16_t>(v));
      put16(static_cast<std::uint16_t>(v >> 16));
    }
  }
  void put64(std::uint64_t v) {
    if (big) {
      put32(static_cast<std::uint32_t>(v >> 32));
      put32(static_cast<std::uint32_t>(v));
    } else {
      put32(static_cast<std::uint32_t>(v));
      put32(static_cast<std::uint32_t>(v >> 32));
    }
  }
  // pcapng option: code, length, value padded to 4.
  void option(std::uint16_t code, ByteView value) {
    put16(code);
    put16(static_cast<std::uint16_t>(value.size()));
    put(value);
    pad4();
  }

  Result<bool> commit() {
    if (fd < 0) return make_error("io", path + ": already closed");
    flush();
    if (borrowed) {
      fd = -1;
      if (error) return *error;
      return true;
    }
    if (!error && ::fsync(fd) != 0) fail("cannot flush");
    if (::close(fd) != 0) fail("cannot close");
    fd = -1;
    if (!error && ::rename(tmp.c_str(), path.c_str()) != 0)
      error = make_error("io", path + ": cannot rename into place: " + std::strerror(errno));
    if (error) {
      ::unlink(tmp.c_str());
      return *error;
    }
    return true;
  }
};

namespace {

std::uint32_t padded(std::size_t n) { return static_cast<std::uint32_t>((n + 3) & ~std::size_t{3}); }

// Length of an option with its header and padding.
std::uint32_t option_size(std::size_t value_len) { return 4 + padded(value_len); }

std::uint32_t checked_length(std::size_t n) {
  return static_cast<std::uint32_t>(std::min<std::size_t>(n, 0xFFFFFFFFu));
}

}  // namespace

// ---- pcapng ----

PcapngWriter::~PcapngWriter() = default;

Result<std::unique_ptr<PcapngWriter>> PcapngWriter::create(const std::string& path) {
  auto sink = CaptureSink::create(path);
  if (!sink) return sink.error();
  return start(std::move(*sink));
}

std::unique_ptr<PcapngWriter> PcapngWriter::to_descriptor(int fd, const std::string& name) {
  return start(CaptureSink::on_descriptor(fd, name));
}

std::unique_ptr<PcapngWriter> PcapngWriter::start(std::unique_ptr<CaptureSink> sink) {
  std::unique_ptr<PcapngWriter> w(new PcapngWriter());
  w->out_ = std::move(sink);
  CaptureSink& o = *w->out_;
  static constexpr std::string_view kApp = "anthro-workbench";
  const std::uint32_t len = 28 + option_size(kApp.size()) + 4;
  o.put32(0x0A0D0D0A);
  o.put32(len);
  o.put32(0x1A2B3C4D);
  o.put16(1);
  o.put16(0);
  o.put64(~std::uint64_t{0});  // section length not specified
  o.option(4, as_bytes(kApp));  // shb_userappl
  o.put32(0);                   // opt_endofopt
  o.put32(len);
  return w;
}

std::uint32_t PcapngWriter::add_interface(std::uint32_t link_type, std::uint32_t snaplen, const std::string& name) {
  CaptureSink& o = *out_;
  static constexpr std::uint8_t kNanoseconds[1] = {9};
  std::uint32_t options = option_size(1) + 4 + (name.empty() ? 0 : option_size(name.size()));
  std::uint32_t len = 20 + options;
  o.put32(1);
  o.put32(len);
  o.put16(static_cast<std::uint16_t>(link_type));
  o.put16(0);
  o.put32(snaplen);
  if (!name.empty()) o.option(2, as_bytes(name));  // if_name
  o.option(9, kNanoseconds);                          // if_tsresol
  o.put32(0);
  o.put32(len);
  o.maybe_flush();
  return interfaces_++;
}

void PcapngWriter::add_secrets(std::string_view keylog_text) {
  CaptureSink& o = *out_;
  std::uint32_t len = 20 + padded(keylog_text.size());
  o.put32(0x0000000A);
  o.put32(len);
  o.put32(kSecretsTlsKeyLog);
  o.put32(static_cast<std::uint32_t>(keylog_text.size()));
  o.put(as_bytes(keylog_text));
  o.pad4();
  o.put32(len);
  o.maybe_flush();
}

void PcapngWriter::add_statistics(std::uint32_t interface, std::int64_t ts_ns, const InterfaceStatistics& stats) {
  CaptureSink& o = *out_;
  const auto ticks = static_cast<std::uint64_t>(std::max<std::int64_t>(ts_ns, 0));
  const std::uint32_t len = 20 + 3 * option_size(8) + 4 + 4;
  auto counter = [&o](std::uint16_t code, std::uint64_t value) {
    o.put16(code);
    o.put16(8);
    o.put64(value);
  };
  o.put32(5);
  o.put32(len);
  o.put32(interface);
  o.put32(static_cast<std::uint32_t>(ticks >> 32));
  o.put32(static_cast<std::uint32_t>(ticks));
  counter(4, stats.received);         // isb_ifrecv
  counter(5, stats.interface_drops);  // isb_ifdrop
  counter(7, stats.os_drops);         // isb_osdrop
  o.put32(0);
  o.put32(len);
  o.maybe_flush();
}

void PcapngWriter::write_packet(std::uint32_t interface, double ts, ByteView data, std::uint32_t original_length) {
  write_packet_ns(interface, seconds_to_ns(ts), data, original_length);
}

void PcapngWriter::write_packet_ns(std::uint32_t interface, std::int64_t ts_ns, ByteView data,
                                   std::uint32_t original_length) {
  CaptureSink& o = *out_;
  if (interface >= interfaces_) {
    if (!o.error)
      o.error = make_error("capture", o.path + ": packet written on interface " + std::to_string(interface) + " but only " +
                                          std::to_string(interfaces_) + " added");
    return;
  }
  const std::uint32_t caplen = checked_length(data.size());
  const std::uint32_t len = 32 + padded(caplen);
  const auto ticks = static_cast<std::uint64_t>(std::max<std::int64_t>(ts_ns, 0));
  o.put32(6);
  o.put32(len);
  o.put32(interface);
  o.put32(static_cast<std::uint32_t>(ticks >> 32));
  o.put32(static_cast<std::uint32_t>(ticks));
  o.put32(caplen);
  o.put32(std::max(original_length, caplen));
  o.put(data.first(caplen));
  o.pad4();
  o.put32(len);
  o.maybe_flush();
}

std::uint64_t PcapngWriter::bytes_written() const { return out_->written; }
void PcapngWriter::flush() { out_->flush(); }
Result<bool> PcapngWriter::close() { return out_->commit(); }

// ---- classic pcap ----

PcapWriter::~PcapWriter() = default;

Result<std::unique_ptr<PcapWriter>> PcapWriter::create(const std::string& path, std::uint32_t link_type,
                                                       bool nanoseconds, bool big_endian, std::uint32_t snaplen) {
  auto sink = CaptureSink::create(path);
  if (!sink) return sink.error();
  std::unique_ptr<PcapWriter> w(new PcapWriter());
  w->out_ = std::move(*sink);
  w->nanoseconds_ = nanoseconds;
  CaptureSink& o = *w->out_;
  o.big = big_endian;
  o.put32(nanoseconds ? 0xa1b23c4d : 0xa1b2c3d4);
  o.put16(2);
  o.put16(4);
  o.put32(0);  // thiszone
  o.put32(0);  // sigfigs
  o.put32(snaplen);
  o.put32(link_type);
  return w;
}

void PcapWriter::write_packet(double ts, ByteView data, std::uint32_t original_length) {
  write_packet_ns(seconds_to_ns(ts), data, original_length);
}

void PcapWriter::write_packet_ns(std::int64_t ts_ns, ByteView data, std::uint32_t original_length) {
  CaptureSink& o = *out_;
  const std::int64_t t = std::max<std::int64_t>(ts_ns, 0);
  const std::uint32_t caplen = checked_length(data.size());
  o.put32(static_cast<std::uint32_t>(t / 1000000000));
  o.put32(static_cast<std::uint32_t>(nanoseconds_ ? t % 1000000000 : t % 1000000000 / 1000));
  o.put32(caplen);
  o.put32(std::max(original_length, caplen));
  o.put(data.first(caplen));
  o.maybe_flush();
}

std::uint64_t PcapWriter::bytes_written() const { return out_->written; }
Result<bool> PcapWriter::close() { return out_->commit(); }

}  // namespace anthro
