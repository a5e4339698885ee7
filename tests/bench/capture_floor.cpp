#include "capture_floor.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "capture/capture_file.h"
#include "capture/tls_crypto.h"
#include "crypto/aead.h"
#include "crypto/keylog.h"
#include "protocol/frame.h"
#include "protocol/stream_decoder.h"

namespace anthro::bench {
namespace {

[[noreturn]] void die(const std::string& what) {
  std::cerr << "capture_bench: floor: " << what << "\n";
  std::exit(1);
}

constexpr std::size_t kRecordHeader = 5;
constexpr std::size_t kMaxRecord = kRecordHeader + (1 << 14) + 256;  // TLS 1.3's limit
constexpr std::uint8_t kApplicationData = 23;
constexpr std::uint16_t kTlsAes256GcmSha384 = 0x1302;

struct RecordKey {
  std::optional<Aead> aead;
  Bytes iv;
};

// One direction of one connection: its keys and what is cut across a segment or a record.
struct Side {
  RecordKey handshake, application;
  bool on_application = false;  // TLS 1.3 moves to the application key after the Finished
  std::uint64_t seq = 0;
  Bytes record, frame;  // a record cut across segments, a frame cut across records
  std::size_t preface_left = kPrefaceSize;
  std::optional<Aead> frame_key;
  Bytes plain = Bytes(kMaxRecord), frame_plain;
  std::uint64_t records = 0, frames = 0;
};

struct Connection {
  Side side[2];  // client to server, server to client
};

RecordKey record_key(const KeyLog& log, const GeneratedConnection& c, std::string_view label) {
  for (const auto& line : log.tls) {
    if (line.label != label || line.client_random != c.client_random) continue;
    auto key = tls::hkdf_expand_label("SHA384", line.secret, "key", {}, 32);
    auto iv = tls::hkdf_expand_label("SHA384", line.secret, "iv", {}, 12);
    if (!key || !iv) die("cannot derive the keys of " + std::string(label));
    Key32 k{};
    std::copy(key->begin(), key->end(), k.begin());
    return {Aead(Suite::Aes256Gcm, k), std::move(*iv)};
  }
  die("no " + std::string(label) + " for the connection from port " + std::to_string(c.client_port));
}

std::unique_ptr<Connection> connection_keys(const KeyLog& log, const GeneratedConnection& c) {
  if (c.tls_suite != kTlsAes256GcmSha384) die("the generator's TLS suite is not TLS_AES_256_GCM_SHA384");
  auto conn = std::make_unique<Connection>();
  const char* const labels[2][2] = {{"CLIENT_HANDSHAKE_TRAFFIC_SECRET", "CLIENT_TRAFFIC_SECRET_0"},
                                    {"SERVER_HANDSHAKE_TRAFFIC_SECRET", "SERVER_TRAFFIC_SECRET_0"}};
  for (int d = 0; d < 2; ++d) {
    Side& s = conn->side[d];
    s.handshake = record_key(log, c, labels[d][0]);
    s.application = record_key(log, c, labels[d][1]);
    s.frame_key.emplace(c.frame_suite, d == 0 ? c.frame_keys.c2s : c.frame_keys.s2c);
  }
  return conn;
}

bool open_record_with(Side& s, RecordKey& key, ByteView record) {
  std::uint8_t nonce[kNonceSize];
  std::copy(key.iv.begin(), key.iv.end(), nonce);
  for (int i = 0; i < 8; ++i) nonce[11 - i] ^= static_cast<std::uint8_t>(s.seq >> (8 * i));
  return key.aead->open(nonce, record.first(kRecordHeader), record.subspan(kRecordHeader), s.plain.data());
}

// Calls `whole` for each unit of `data` (a record or a frame, sized by `unit_size` from its
// first bytes, which need `header` of them), carrying a unit cut at the end into `carry`.
template <class UnitSize, class Whole>
void cut_units(ByteView data, Bytes& carry, std::size_t header, UnitSize unit_size, Whole whole) {
  while (!data.empty()) {
    if (carry.empty() && data.size() >= header && data.size() >= unit_size(data.data())) {
      const std::size_t n = unit_size(data.data());
      whole(data.first(n));
      data = data.subspan(n);
      continue;
    }
    const std::size_t want = (carry.size() < header ? header : unit_size(carry.data())) - carry.size();
    const std::size_t n = std::min(want, data.size());
    carry.insert(carry.end(), data.begin(), data.begin() + static_cast<std::ptrdiff_t>(n));
    data = data.subspan(n);
    if (carry.size() >= header && carry.size() == unit_size(carry.data())) {
      whole(ByteView(carry));
      carry.clear();
    }
  }
}

void feed_frames(Side& s, ByteView data) {
  const std::size_t skip = std::min(s.preface_left, data.size());  // ANTHRO01 and the blob: not sealed
  s.preface_left -= skip;
  cut_units(
      data.subspan(skip), s.frame, kHeaderSize, [](const std::uint8_t* p) { return parse_header(p).frame_size(); },
      [&](ByteView frame) {
        if (!open_frame(*s.frame_key, frame, s.frame_plain)) die("a frame does not open");
        ++s.frames;
      });
}

void open_record(Side& s, ByteView record) {
  if (record[0] != kApplicationData) return;  // ClientHello, ServerHello, ChangeCipherSpec: not sealed
  if (!open_record_with(s, s.on_application ? s.application : s.handshake, record)) {
    if (s.on_application) die("a TLS record does not open");
    s.on_application = true;
    s.seq = 0;
    if (!open_record_with(s, s.application, record)) die("a TLS record opens with neither key");
  }
  ++s.seq;
  ++s.records;
  // TLSInnerPlaintext: the content, then its real type (OpenSSL adds no padding by default).
  const std::size_t n = record.size() - kRecordHeader - kTagSize;
  if (n > 0 && s.plain[n - 1] == kApplicationData) feed_frames(s, ByteView(s.plain.data(), n - 1));
}

void feed_segment(Side& s, ByteView payload) {
  cut_units(
      payload, s.record, kRecordHeader, [](const std::uint8_t* p) { return kRecordHeader + load_u16(p + 3); },
      [&](ByteView record) { open_record(s, record); });
}

// The TCP payload of an Ethernet/IPv4 packet and its connection's side; nothing else is read.
void walk(const std::string& pcap, const std::vector<Connection*>& by_port) {
  auto reader = CaptureReader::open(pcap);
  if (!reader) die(reader.error().detail);
  while (auto p = (*reader)->next()) {
    const ByteView d = p->data;
    if (d.size() < 54 || load_u16(d.data() + 12) != 0x0800 || d[23] != 6) continue;
    const std::uint8_t* ip = d.data() + 14;
    const std::size_t ihl = (ip[0] & 15u) * 4, ip_len = load_u16(ip + 2);
    const std::uint8_t* tcp = ip + ihl;
    const std::size_t doff = (tcp[12] >> 4) * 4u;
    if (14 + ip_len > d.size() || ihl + doff > ip_len || ip_len == ihl + doff) continue;
    const bool from_client = load_u16(tcp + 2) == kCaptureServerPort;
    Connection* c = by_port[load_u16(tcp + (from_client ? 0 : 2))];
    if (c) feed_segment(c->side[from_client ? 0 : 1], ByteView(tcp + doff, ip_len - ihl - doff));
  }
}

}  // namespace

FloorRun measure_floor(const std::string& pcap, const GeneratedCapture& capture, unsigned threads) {
  const KeyLog log = parse_keylog(capture.keylog_text, "generated");
  std::vector<std::unique_ptr<Connection>> conns;
  std::vector<std::vector<Connection*>> mine(threads, std::vector<Connection*>(65536));
  for (std::size_t i = 0; i < capture.connections.size(); ++i) {
    conns.push_back(connection_keys(log, capture.connections[i]));
    mine[i % threads][capture.connections[i].client_port] = conns.back().get();
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) workers.emplace_back([&, t] { walk(pcap, mine[t]); });
  for (auto& w : workers) w.join();
  FloorRun run;
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& c : conns)
    for (const Side& s : c->side) {
      run.records += s.records;
      run.frames += s.frames;
    }
  if (run.frames != capture.frames)
    die("opened " + std::to_string(run.frames) + " frames, the generator sealed " + std::to_string(capture.frames));
  return run;
}

}  // namespace anthro::bench
