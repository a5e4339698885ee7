// CaptureReader: classic pcap and pcapng, streamed through a buffer filled with pread() (another
// once a consumer holds it).
#include "capture/capture_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>

#include "util/files.h"

namespace anthro {
namespace {

constexpr std::uint32_t kShb = 0x0A0D0D0A;
constexpr std::uint32_t kIdb = 1;
constexpr std::uint32_t kPb = 2;
constexpr std::uint32_t kSpb = 3;
constexpr std::uint32_t kNrb = 4;
constexpr std::uint32_t kIsb = 5;
constexpr std::uint32_t kEpb = 6;
constexpr std::uint32_t kDsb = 0x0000000A;
constexpr std::uint32_t kByteOrderMagic = 0x1A2B3C4D;

constexpr std::size_t kBufferSize = 2u << 20;
// Buffers kept for reuse once their holders let go (CaptureReader::hold): how many a consumer
// holds at once is its own bound; this only spares the allocation and its page faults.
constexpr std::size_t kSpareBuffers = 16;
// No capture tool writes packets or blocks this big; a larger length is corruption, not data.
constexpr std::uint64_t kMaxRecord = 256u << 20;
constexpr std::int64_t kNsPerSecond = 1000000000;
constexpr std::int64_t kMaxSeconds = INT64_MAX / kNsPerSecond;  // RawPacket::ts_ns holds nanoseconds

std::uint16_t rd16(const std::uint8_t* p, bool big) {
  return big ? load_u16(p) : static_cast<std::uint16_t>(p[0] | p[1] << 8);
}
std::uint32_t rd32(const std::uint8_t* p, bool big) {
  return big ? load_u32(p)
             : std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[3]} << 24;
}
std::uint64_t rd64(const std::uint8_t* p, bool big) {
  return big ? load_u64(p) : std::uint64_t{rd32(p, false)} | std::uint64_t{rd32(p + 4, false)} << 32;
}

std::string hex32(std::uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", v);
  return text;
}

const char* block_name(std::uint32_t type) {
  switch (type) {
    case kShb: return "section header block";
    case kIdb: return "interface description block";
    case kPb: return "packet block";
    case kSpb: return "simple packet block";
    case kNrb: return "name resolution block";
    case kIsb: return "interface statistics block";
    case kEpb: return "enhanced packet block";
    case kDsb: return "decryption secrets block";
    default: return "block";
  }
}

bool is_packet_block(std::uint32_t type) { return type == kEpb || type == kSpb || type == kPb; }

// A timestamp unit from if_tsresol: 10^-exp or 2^-exp seconds.
struct TsUnit {
  bool base2 = false;
  std::uint8_t exp = 6;
};

// ticks in `unit` -> {whole seconds, nanoseconds within the second}.
std::pair<std::int64_t, std::int64_t> split_ticks(std::uint64_t ticks, TsUnit unit) {
  if (unit.base2) {
    std::uint64_t sec = unit.exp >= 64 ? 0 : ticks >> unit.exp;
    std::uint64_t frac = unit.exp >= 64 ? ticks : ticks & ((std::uint64_t{1} << unit.exp) - 1);
    int e = unit.exp;
    if (e > 30) {  // keep 30 bits of fraction so frac * 1e9 fits in 64 bits
      frac >>= (e - 30);
      e = 30;
    }
    return {static_cast<std::int64_t>(sec), static_cast<std::int64_t>((frac * kNsPerSecond) >> e)};
  }
  std::uint64_t per_second = 1;
  for (int i = 0; i < unit.exp; ++i) per_second *= 10;
  std::uint64_t sec = ticks / per_second, frac = ticks % per_second;
  std::uint64_t ns = frac;
  if (unit.exp <= 9)
    for (int i = unit.exp; i < 9; ++i) ns *= 10;
  else
    for (int i = 9; i < unit.exp; ++i) ns /= 10;
  return {static_cast<std::int64_t>(sec), static_cast<std::int64_t>(ns)};
}

struct Interface {
  TsUnit unit;
  std::int64_t offset_s = 0;  // if_tsoffset
  std::uint32_t global = 0;   // index into CaptureReader::interfaces()
};

struct Section {
  std::uint64_t offset = 0;
  bool big = false;
  std::vector<Interface> ifs;
};

// A full-size buffer is mapped on its own, not taken from the heap: let go, its pages go back to
// the system (the heap kept them, so the reading's peak stayed in the process for the rest of the
// run), and it may be backed by huge pages (one fault for 2 MiB, not 512).
class BufferBytes {
 public:
  explicit BufferBytes(std::size_t n) : size_(n) {
    if (n < kBufferSize) {
      heap_ = std::make_unique_for_overwrite<std::uint8_t[]>(n);
      bytes_ = heap_.get();
      return;
    }
    void* p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    ::madvise(p, n, MADV_HUGEPAGE);  // advice: refused where the kernel has none, which is fine
    bytes_ = static_cast<std::uint8_t*>(p);
  }
  ~BufferBytes() {
    if (!heap_) ::munmap(bytes_, size_);
  }
  BufferBytes(const BufferBytes&) = delete;
  BufferBytes& operator=(const BufferBytes&) = delete;
  std::uint8_t* get() const { return bytes_; }

 private:
  std::size_t size_;
  std::unique_ptr<std::uint8_t[]> heap_;
  std::uint8_t* bytes_ = nullptr;
};

struct ReadBuffer {
  explicit ReadBuffer(std::size_t n) : bytes(n), size(n) {}
  BufferBytes bytes;
  std::size_t size;
};

}  // namespace

struct CaptureReader::State {
  std::string path;
  int fd = -1;
  std::uint64_t size = 0;
  Format format = Format::pcap;

  // What the reader reads into. hold() shares it with a consumer; the reader then reads on into
  // another (a spare whose holders let go, else a new one), never into bytes someone holds.
  std::shared_ptr<ReadBuffer> buf = std::make_shared<ReadBuffer>(0);
  std::vector<std::shared_ptr<ReadBuffer>> spare;  // given out before; free again at use_count() 1
  std::uint64_t buf_start = 0;  // file offset of buf's first byte
  std::size_t buf_len = 0;
  bool io_failed = false;

  std::uint64_t pos = 0;    // next record
  std::uint64_t index = 0;  // next packet's index
  bool done = false;

  // classic pcap
  bool big = false;
  TsUnit pcap_unit;
  // pcapng
  std::vector<Section> sections;
  std::size_t cur = 0;
  std::uint64_t high_water = 0;  // blocks before this offset have had their side effects

  std::vector<CaptureInterface> interfaces;
  std::vector<std::optional<InterfaceStatistics>> statistics;  // by file-wide interface number
  std::vector<std::string> secrets, warnings;
  std::optional<Error> error;
  std::optional<CaptureTruncation> truncation;

  ~State() {
    if (fd >= 0) ::close(fd);
  }

  void refresh_size() {
    struct stat st {};
    if (::fstat(fd, &st) == 0) size = static_cast<std::uint64_t>(st.st_size);
  }

  // n bytes at file offset `at`, or nullptr when the file has fewer (or reading failed).
  const std::uint8_t* fetch(std::uint64_t at, std::size_t n) {
    if (at >= buf_start && at + n <= buf_start + buf_len) return buf->bytes.get() + (at - buf_start);
    if (at > size || n > size - at) {  // the file may have grown since open (a live capture)
      refresh_size();
      if (at > size || n > size - at) return nullptr;
    }
    // Reads of up to kBufferSize, but no bigger than what the file still holds: a small file
    // (a fuzzer's input, a short capture) costs a small buffer.
    std::size_t want = std::max<std::size_t>(n, std::min<std::uint64_t>(kBufferSize, size - at));
    std::shared_ptr<ReadBuffer> into = writable(want);
    std::size_t keep = 0;
    if (at >= buf_start && at < buf_start + buf_len) {
      keep = static_cast<std::size_t>(buf_start + buf_len - at);
      std::memmove(into->bytes.get(), buf->bytes.get() + (at - buf_start), keep);
    }
    if (into != buf) {
      if (spare.size() < kSpareBuffers) spare.push_back(std::move(buf));
      buf = std::move(into);
    }
    buf_start = at;
    buf_len = keep;
    while (buf_len < n) {
      ssize_t r = ::pread(fd, buf->bytes.get() + buf_len, buf->size - buf_len, static_cast<off_t>(at + buf_len));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        if (r < 0) io_failed = true;
        return nullptr;
      }
      buf_len += static_cast<std::size_t>(r);
    }
    return buf->bytes.get();
  }

  // A buffer of at least `want` bytes that nobody holds: the current one, a spare, or a new one.
  std::shared_ptr<ReadBuffer> writable(std::size_t want) {
    if (buf.use_count() == 1 && buf->size >= want) return buf;
    for (auto& s : spare) {
      if (s.use_count() != 1 || s->size < want) continue;
      // The holders' last reads of it happen before the reader writes it again.
      std::atomic_thread_fence(std::memory_order_acquire);
      std::shared_ptr<ReadBuffer> found = std::move(s);
      s = std::move(spare.back());
      spare.pop_back();
      return found;
    }
    return std::make_shared<ReadBuffer>(want);
  }

  void warn(std::string text) {
    if (std::find(warnings.begin(), warnings.end(), text) == warnings.end()) warnings.push_back(std::move(text));
  }

  std::nullopt_t fail(const std::string& detail, const char* reason = "capture") {
    std::string text = path + ": " + detail;
    if (!error) error = Error{reason, text};
    warn(text);
    done = true;
    return std::nullopt;
  }

  // The file ended inside a record that needed `need` bytes from `at`.
  std::nullopt_t truncated(std::uint64_t at, std::uint64_t need, const std::string& what) {
    if (io_failed) return fail("read error at byte " + std::to_string(at) + ": " + std::strerror(errno), "io");
    std::uint64_t present = size > at ? size - at : 0;
    warn(path + ": truncated at byte " + std::to_string(size) + ": " + what + " needs " + std::to_string(need) +
         " bytes, " + std::to_string(present) + " present");
    truncation = CaptureTruncation{size, index, what};
    done = true;
    return std::nullopt;
  }

  std::string packet_name() const { return "packet " + std::to_string(index + 1); }

  RawPacket make_packet(std::uint64_t offset, std::int64_t sec, std::int64_t ns, std::uint32_t iface,
                        const std::uint8_t* data, std::uint32_t caplen, std::uint32_t orig) {
    RawPacket p;
    p.ts_ns = sec * kNsPerSecond + ns;
    p.ts = static_cast<double>(sec) + static_cast<double>(ns) * 1e-9;
    p.interface = iface;
    p.link_type = interfaces[iface].link_type;
    p.data = ByteView(data, caplen);
    p.original_length = orig;
    p.file_offset = offset;
    p.index = index++;
    return p;
  }

  // ---- classic pcap ----

  std::optional<RawPacket> next_pcap() {
    const std::uint64_t at = pos;
    if (at == size && fetch(at, 1) == nullptr && !io_failed) {
      done = true;
      return std::nullopt;
    }
    const std::uint8_t* h = fetch(at, 16);
    if (!h) return truncated(at, 16, packet_name() + " record header (at byte " + std::to_string(at) + ")");
    std::uint32_t sec = rd32(h, big), frac = rd32(h + 4, big), caplen = rd32(h + 8, big), orig = rd32(h + 12, big);
    if (caplen > kMaxRecord)
      return fail(packet_name() + " at byte " + std::to_string(at) + " claims " + std::to_string(caplen) +
                  " captured bytes: the record header is corrupt");
    const std::uint8_t* d = fetch(at + 16, caplen);
    if (!d) return truncated(at + 16, caplen, packet_name() + " (at byte " + std::to_string(at) + ")");
    pos = at + 16 + caplen;
    auto [s, ns] = split_ticks(frac, pcap_unit);
    return make_packet(at, std::int64_t{sec} + s, ns, 0, d, caplen, orig);
  }

  // ---- pcapng ----

  Section& section() { return sections[cur]; }

  // Options as {code, value}; malformed options end the list with a warning.
  template <class F>
  void for_options(const std::uint8_t* p, std::size_t n, std::uint64_t block_at, bool big, F&& f) {
    std::size_t i = 0;
    while (i + 4 <= n) {
      std::uint16_t code = rd16(p + i, big), len = rd16(p + i + 2, big);
      if (code == 0) return;
      std::size_t padded = (std::size_t{len} + 3) & ~std::size_t{3};
      if (i + 4 + padded > n) {
        warn(path + ": " + "option " + std::to_string(code) + " of the block at byte " + std::to_string(block_at) +
             " overruns the block; its remaining options are ignored");
        return;
      }
      f(code, ByteView(p + i + 4, len));
      i += 4 + padded;
    }
  }

  // Reads the SHB at `at`; on success pos is past it. nullopt-returning fail() on error.
  bool read_shb(std::uint64_t at) {
    const std::uint8_t* h = fetch(at, 12);
    if (!h) {
      truncated(at, 12, "section header block (at byte " + std::to_string(at) + ")");
      return false;
    }
    std::uint32_t magic = rd32(h + 8, false);
    bool big;
    if (magic == kByteOrderMagic) {
      big = false;
    } else if (magic == 0x4D3C2B1A) {
      big = true;
    } else {
      fail("section header block at byte " + std::to_string(at) + ": byte-order magic " + hex32(load_u32(h + 8)) +
           " is neither 1a2b3c4d nor 4d3c2b1a");
      return false;
    }
    std::uint32_t len = rd32(h + 4, big);
    if (len < 28 || len % 4 != 0) {
      fail("section header block at byte " + std::to_string(at) + " has length " + std::to_string(len) +
           (len < 28 ? " (at least 28 needed)" : " (not a multiple of 4)"));
      return false;
    }
    if (len > kMaxRecord) {
      fail("section header block at byte " + std::to_string(at) + " claims " + std::to_string(len) + " bytes");
      return false;
    }
    const std::uint8_t* b = fetch(at, len);
    if (!b) {
      truncated(at, len, "section header block (at byte " + std::to_string(at) + ")");
      return false;
    }
    if (rd32(b + len - 4, big) != len) {
      fail("section header block at byte " + std::to_string(at) + ": trailing length " +
           std::to_string(rd32(b + len - 4, big)) + " differs from the leading length " + std::to_string(len));
      return false;
    }
    std::uint16_t major = rd16(b + 12, big), minor = rd16(b + 14, big);
    if (major != 1) {
      fail("section header block at byte " + std::to_string(at) + ": unsupported pcapng version " +
           std::to_string(major) + "." + std::to_string(minor));
      return false;
    }
    auto known = std::find_if(sections.begin(), sections.end(), [&](const Section& s) { return s.offset == at; });
    if (known != sections.end()) {
      cur = static_cast<std::size_t>(known - sections.begin());
    } else {
      sections.push_back(Section{at, big, {}});
      cur = sections.size() - 1;
    }
    pos = at + len;
    high_water = std::max(high_water, pos);
    return true;
  }

  void read_idb(std::uint64_t at, const std::uint8_t* b, std::uint32_t len) {
    bool big = section().big;
    CaptureInterface info;
    info.link_type = rd16(b + 8, big);
    info.snaplen = rd32(b + 12, big);
    info.section = static_cast<std::uint32_t>(cur);
    Interface iface;
    for_options(b + 16, len - 20, at, big, [&](std::uint16_t code, ByteView v) {
      if (code == 2) {
        info.name = std::string(as_text(v));
        while (!info.name.empty() && info.name.back() == '\0') info.name.pop_back();
      } else if (code == 9 && v.size() >= 1) {
        TsUnit u{(v[0] & 0x80) != 0, static_cast<std::uint8_t>(v[0] & 0x7f)};
        if ((u.base2 && u.exp >= 64) || (!u.base2 && u.exp > 19))
          warn(path + ": interface at byte " + std::to_string(at) + " has an unusable if_tsresol " +
               std::to_string(v[0]) + "; microseconds assumed");
        else
          iface.unit = u;
      } else if (code == 14 && v.size() >= 8) {
        iface.offset_s = static_cast<std::int64_t>(rd64(v.data(), big));
      }
    });
    iface.global = static_cast<std::uint32_t>(interfaces.size());
    interfaces.push_back(std::move(info));
    section().ifs.push_back(iface);
  }

  void read_isb(std::uint64_t at, const std::uint8_t* b, std::uint32_t len) {
    bool big = section().big;
    std::uint32_t if_id = rd32(b + 8, big);
    if (if_id >= section().ifs.size()) {
      warn(path + ": interface statistics block at byte " + std::to_string(at) + " names interface " +
           std::to_string(if_id) + " but the section has " + std::to_string(section().ifs.size()) + "; ignored");
      return;
    }
    InterfaceStatistics stats;
    for_options(b + 20, len - 24, at, big, [&](std::uint16_t code, ByteView v) {
      if (v.size() != 8) return;
      std::uint64_t value = rd64(v.data(), big);
      if (code == 4) stats.received = value;
      else if (code == 5) stats.interface_drops = value;
      else if (code == 7) stats.os_drops = value;
    });
    std::uint32_t global = section().ifs[if_id].global;
    if (statistics.size() <= global) statistics.resize(global + 1);
    statistics[global] = stats;
  }

  std::optional<RawPacket> packet_from(std::uint64_t at, std::uint32_t type, const std::uint8_t* b, std::uint32_t len) {
    bool big = section().big;
    auto where = [&] { return std::string(block_name(type)) + " at byte " + std::to_string(at); };
    std::uint32_t if_id = 0, caplen, orig;
    std::uint64_t ticks = 0;
    const std::uint8_t* data;
    if (type == kSpb) {
      if (len < 16) return fail(where() + " has length " + std::to_string(len) + " (at least 16 needed)");
      orig = rd32(b + 8, big);
      caplen = std::min(orig, len - 16);
      if (!section().ifs.empty()) {
        std::uint32_t snap = interfaces[section().ifs[0].global].snaplen;
        if (snap != 0) caplen = std::min(caplen, snap);
      }
      data = b + 12;
    } else {
      if (len < 32) return fail(where() + " has length " + std::to_string(len) + " (at least 32 needed)");
      if_id = type == kEpb ? rd32(b + 8, big) : rd16(b + 8, big);
      ticks = std::uint64_t{rd32(b + 12, big)} << 32 | rd32(b + 16, big);
      caplen = rd32(b + 20, big);
      orig = rd32(b + 24, big);
      if (caplen > len - 32)
        return fail(where() + ": captured length " + std::to_string(caplen) + " exceeds the block's " +
                    std::to_string(len - 32) + " bytes of packet data");
      data = b + 28;
    }
    if (if_id >= section().ifs.size())
      return fail(where() + " (" + packet_name() + ") names interface " + std::to_string(if_id) + " but the section has " +
                  std::to_string(section().ifs.size()) + " interface description block(s)");
    const Interface& iface = section().ifs[if_id];
    auto [s, ns] = split_ticks(ticks, iface.unit);
    std::int64_t sec = 0;
    if (__builtin_add_overflow(s, iface.offset_s, &sec) || sec <= -kMaxSeconds || sec >= kMaxSeconds)
      return fail(where() + " (" + packet_name() + "): timestamp of " + std::to_string(ticks) +
                  " ticks is out of range (nanoseconds since 1970 fit in 64 bits until the year 2262)");
    return make_packet(at, sec, ns, iface.global, data, caplen, orig);
  }

  std::optional<RawPacket> next_pcapng() {
    for (;;) {
      const std::uint64_t at = pos;
      if (at == size && fetch(at, 1) == nullptr && !io_failed) {
        done = true;
        return std::nullopt;
      }
      const std::uint8_t* h = fetch(at, 8);
      if (!h) return truncated(at, 8, "block header (at byte " + std::to_string(at) + ")");
      std::uint32_t type = rd32(h, section().big);
      if (type == kShb) {  // a palindrome in both byte orders
        if (!read_shb(at)) return std::nullopt;
        continue;
      }
      const bool big = section().big;
      const std::uint32_t len = rd32(h + 4, big);
      auto where = [&] {
        return std::string(block_name(type)) + " (type " + hex32(type) + ") at byte " + std::to_string(at);
      };
      if (len < 12 || len % 4 != 0)
        return fail(where() + " has length " + std::to_string(len) +
                    (len < 12 ? " (at least 12 needed)" : " (not a multiple of 4)"));
      const bool wanted = is_packet_block(type) || type == kIdb || type == kDsb || type == kIsb;
      if (wanted && len > kMaxRecord) return fail(where() + " claims " + std::to_string(len) + " bytes: corrupt length");
      if (len > size - at) {
        refresh_size();
        if (len > size - at) {
          if (is_packet_block(type))
            return truncated(at, len, packet_name() + " (" + block_name(type) + " at byte " + std::to_string(at) + ")");
          return truncated(at, len, where());
        }
      }
      if (!wanted) {  // skipped by length, checking only the trailing copy of it
        const std::uint8_t* t = fetch(at + len - 4, 4);
        if (!t) return truncated(at, len, where());
        if (rd32(t, big) != len)
          return fail(where() + ": trailing length " + std::to_string(rd32(t, big)) +
                      " differs from the leading length " + std::to_string(len));
        pos = at + len;
        high_water = std::max(high_water, pos);
        continue;
      }
      const std::uint8_t* b = fetch(at, len);
      if (!b) return truncated(at, len, where());
      if (rd32(b + len - 4, big) != len)
        return fail(where() + ": trailing length " + std::to_string(rd32(b + len - 4, big)) +
                    " differs from the leading length " + std::to_string(len));
      const bool first_visit = at >= high_water;
      pos = at + len;
      high_water = std::max(high_water, pos);
      if (is_packet_block(type)) return packet_from(at, type, b, len);
      if (type == kIdb) {
        if (len < 20) return fail(where() + " has length " + std::to_string(len) + " (at least 20 needed)");
        if (first_visit) read_idb(at, b, len);
      } else if (type == kIsb) {
        if (len < 24) return fail(where() + " has length " + std::to_string(len) + " (at least 24 needed)");
        read_isb(at, b, len);
      } else if (type == kDsb) {
        if (len < 20) return fail(where() + " has length " + std::to_string(len) + " (at least 20 needed)");
        std::uint32_t secrets_type = rd32(b + 8, big), secrets_len = rd32(b + 12, big);
        if (secrets_len > len - 20)
          return fail(where() + ": secrets length " + std::to_string(secrets_len) + " exceeds the block's " +
                      std::to_string(len - 20) + " bytes");
        if (first_visit && secrets_type == kSecretsTlsKeyLog)
          secrets.emplace_back(reinterpret_cast<const char*>(b + 16), secrets_len);
      }
    }
  }
};

CaptureReader::CaptureReader() : s_(std::make_unique<State>()) {}
CaptureReader::~CaptureReader() = default;

Result<std::unique_ptr<CaptureReader>> CaptureReader::open(const std::string& path) {
  std::unique_ptr<CaptureReader> r(new CaptureReader());
  State& s = *r->s_;
  s.path = path;
  auto fd = open_regular_file(path);
  if (!fd) return fd.error();
  s.fd = *fd;
  s.refresh_size();
  ::posix_fadvise(s.fd, 0, 0, POSIX_FADV_SEQUENTIAL);

  if (s.size < 4)
    return make_error("capture", path + ": not a pcap or pcapng file (" + std::to_string(s.size) + " bytes long)");
  const std::uint8_t* m = s.fetch(0, 4);
  if (!m) return make_error("io", path + ": cannot read: " + std::strerror(errno));
  const std::uint32_t magic = load_u32(m);
  if (magic == kShb) {
    s.format = Format::pcapng;
    if (!s.read_shb(0)) {
      if (s.error) return *s.error;
      return make_error("capture", s.warnings.back());
    }
    return r;
  }
  const std::uint32_t le = rd32(m, false);
  if (le == 0xa1b2c3d4 || le == 0xa1b23c4d) {
    s.big = false;
  } else if (magic == 0xa1b2c3d4 || magic == 0xa1b23c4d) {
    s.big = true;
  } else {
    std::string hint;
    if (m[0] == 0x1f && m[1] == 0x8b) hint = ": gzip-compressed, decompress it first";
    return make_error("capture", path + ": not a pcap or pcapng file (magic " + hex32(magic) + hint + ")");
  }
  s.format = Format::pcap;
  s.pcap_unit = TsUnit{false, static_cast<std::uint8_t>(rd32(m, s.big) == 0xa1b23c4d ? 9 : 6)};
  const std::uint8_t* h = s.fetch(0, 24);
  if (!h)
    return make_error("capture", path + ": truncated pcap file header: 24 bytes needed, " + std::to_string(s.size) +
                                     " present");
  std::uint16_t major = rd16(h + 4, s.big), minor = rd16(h + 6, s.big);
  if (major != 2)
    return make_error("capture", path + ": unsupported pcap version " + std::to_string(major) + "." +
                                     std::to_string(minor));
  CaptureInterface iface;
  iface.snaplen = rd32(h + 16, s.big);
  iface.link_type = rd32(h + 20, s.big) & 0x03FFFFFF;  // the upper bits carry FCS information
  s.interfaces.push_back(iface);
  s.pos = 24;
  s.high_water = 24;
  return r;
}

std::optional<RawPacket> CaptureReader::next() {
  if (s_->done) return std::nullopt;
  return s_->format == Format::pcap ? s_->next_pcap() : s_->next_pcapng();
}

const std::vector<std::string>& CaptureReader::secrets() const { return s_->secrets; }
const std::vector<std::string>& CaptureReader::warnings() const { return s_->warnings; }
const std::optional<CaptureTruncation>& CaptureReader::truncation() const { return s_->truncation; }
const std::optional<Error>& CaptureReader::error() const { return s_->error; }
const std::vector<CaptureInterface>& CaptureReader::interfaces() const { return s_->interfaces; }
std::optional<InterfaceStatistics> CaptureReader::statistics(std::uint32_t interface) const {
  return interface < s_->statistics.size() ? s_->statistics[interface] : std::nullopt;
}
CaptureReader::Format CaptureReader::format() const { return s_->format; }
std::shared_ptr<const void> CaptureReader::hold() const { return s_->buf; }
bool CaptureReader::holds(const std::shared_ptr<const void>& handle) const { return handle.get() == s_->buf.get(); }
std::uint64_t CaptureReader::file_size() const { return s_->size; }
std::uint64_t CaptureReader::position() const { return s_->pos; }

bool CaptureReader::seek(std::uint64_t file_offset, std::uint64_t index) {
  State& s = *s_;
  if (s.format == Format::pcap) {
    if (file_offset < 24 || file_offset > s.size) return false;
  } else {
    if (file_offset > s.high_water || s.sections.empty() || file_offset < s.sections.front().offset) return false;
    std::size_t i = s.sections.size();
    while (i > 0 && s.sections[i - 1].offset > file_offset) --i;
    s.cur = i - 1;
  }
  s.pos = file_offset;
  s.index = index;
  s.done = false;
  s.io_failed = false;
  return true;
}

std::int64_t seconds_to_ns(double ts) {
  double whole = std::floor(ts);
  auto ns = static_cast<std::int64_t>(std::llround((ts - whole) * 1e9));
  return static_cast<std::int64_t>(whole) * kNsPerSecond + ns;
}

}  // namespace anthro
