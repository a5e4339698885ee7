#include "capture/tls_handshake.h"

#include <algorithm>
#include <cstdio>

namespace anthro::tls {
namespace {

constexpr std::uint16_t kExtAlpn = 16;
constexpr std::uint16_t kExtSupportedVersions = 43;

// RFC 8446 §4.1.3: a ServerHello with this random is a HelloRetryRequest.
constexpr std::uint8_t kHrrRandom[32] = {
    0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
    0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C};

// Bounds-checked reading of a handshake body; any overrun latches `bad`.
struct Reader {
  ByteView in;
  std::size_t pos = 0;
  bool bad = false;

  bool has(std::size_t n) {
    if (in.size() - pos < n) bad = true;
    return !bad;
  }
  std::uint8_t u8() { return has(1) ? in[pos++] : 0; }
  std::uint16_t u16() {
    if (!has(2)) return 0;
    pos += 2;
    return load_u16(in.data() + pos - 2);
  }
  ByteView take(std::size_t n) {
    if (!has(n)) return {};
    pos += n;
    return in.subspan(pos - n, n);
  }
  ByteView vec8() { return take(u8()); }
  ByteView vec16() { return take(u16()); }
  bool done() const { return pos == in.size(); }
};

std::vector<std::string> parse_alpn_list(ByteView data) {
  Reader r{data};
  Reader list{r.vec16()};
  std::vector<std::string> out;
  while (!list.bad && !list.done()) {
    auto name = list.vec8();
    if (!list.bad) out.emplace_back(as_text(name));
  }
  return out;
}

// Calls `on_ext(type, data)` for each extension; false when the block is malformed.
template <class F>
bool for_each_extension(ByteView block, F&& on_ext) {
  Reader r{block};
  while (!r.bad && !r.done()) {
    std::uint16_t type = r.u16();
    ByteView data = r.vec16();
    if (!r.bad) on_ext(type, data);
  }
  return !r.bad;
}

// Extensions are optional at the end of both hellos (RFC 5246 §7.4.1.2).
ByteView optional_extensions(Reader& r) { return r.done() ? ByteView{} : r.vec16(); }

}  // namespace

void HandshakeReader::feed(ByteView bytes, const Sink& sink) {
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    if (header_have_ < 4) {
      header_[header_have_++] = bytes[pos++];
      if (header_have_ < 4) continue;
      remaining_ = std::size_t{header_[1]} << 16 | std::size_t{header_[2]} << 8 | header_[3];
      skipping_ = remaining_ > kMaxBody;
      body_.clear();
    }
    std::size_t n = std::min(remaining_, bytes.size() - pos);
    if (!skipping_) body_.insert(body_.end(), bytes.begin() + pos, bytes.begin() + pos + n);
    pos += n;
    remaining_ -= n;
    if (remaining_ == 0) {
      header_have_ = 0;
      sink(header_[0], skipping_ ? ByteView{} : ByteView(body_), !skipping_);
    }
  }
}

std::optional<ClientHello> parse_client_hello(ByteView body) {
  Reader r{body};
  ClientHello ch;
  r.u16();  // legacy_version
  auto random = r.take(32);
  ch.random.assign(random.begin(), random.end());
  r.vec8();   // session id
  r.vec16();  // cipher suites
  r.vec8();   // compression methods
  if (r.bad) return std::nullopt;
  bool ok = for_each_extension(optional_extensions(r), [&](std::uint16_t type, ByteView data) {
    if (type == kExtAlpn) ch.alpn = parse_alpn_list(data);
    if (type == kAnthroExtension) ch.anthro_offer.assign(data.begin(), data.end());
  });
  if (!ok || r.bad) return std::nullopt;
  return ch;
}

std::optional<ServerHello> parse_server_hello(ByteView body) {
  Reader r{body};
  ServerHello sh;
  sh.legacy_version = r.u16();
  sh.selected_version = sh.legacy_version;
  auto random = r.take(32);
  sh.random.assign(random.begin(), random.end());
  r.vec8();  // session id
  sh.cipher_suite = r.u16();
  r.u8();  // compression method
  if (r.bad) return std::nullopt;
  sh.hello_retry_request = std::equal(random.begin(), random.end(), kHrrRandom);
  bool ok = for_each_extension(optional_extensions(r), [&](std::uint16_t type, ByteView data) {
    if (type == kExtSupportedVersions && data.size() == 2) sh.selected_version = load_u16(data.data());
    if (type == kExtAlpn) {
      auto names = parse_alpn_list(data);
      if (!names.empty()) sh.alpn = names.front();
    }
    if (type == kAnthroExtension) sh.anthro_answer.assign(data.begin(), data.end());
  });
  if (!ok || r.bad) return std::nullopt;
  return sh;
}

std::optional<EncryptedExtensions> parse_encrypted_extensions(ByteView body) {
  Reader r{body};
  EncryptedExtensions ee;
  bool ok = for_each_extension(r.vec16(), [&](std::uint16_t type, ByteView data) {
    if (type == kExtAlpn) {
      auto names = parse_alpn_list(data);
      if (!names.empty()) ee.alpn = names.front();
    }
    if (type == kAnthroExtension) ee.anthro_answer.assign(data.begin(), data.end());
  });
  if (!ok || r.bad) return std::nullopt;
  return ee;
}

std::string version_name(std::uint16_t version) {
  switch (version) {
    case 0x0300: return "SSLv3";
    case 0x0301: return "TLSv1.0";
    case 0x0302: return "TLSv1.1";
    case 0x0303: return "TLSv1.2";
    case 0x0304: return "TLSv1.3";
  }
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04X", version);
  return buf;
}

}  // namespace anthro::tls
