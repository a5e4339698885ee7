// Capture files for tests, written by a small generator: Ethernet/IPv4/TCP segments between
// 127.0.0.1:<client_port> and 127.0.0.1:7080 with correct checksums (or deliberately wrong
// ones), and lab anthro-v1 connections sealed with the vector conversation's keys.
#pragma once

#include <QFloat16>
#include <QTest>

#include <optional>
#include <string>
#include <vector>

#include "capture/capture_file.h"
#include "crypto/aead.h"
#include "crypto/keylog.h"
#include "protocol/frame.h"
#include "protocol/stream_decoder.h"
#include "vectors.h"

namespace anthro::test {

struct Segment {
  bool from_client;
  std::uint32_t seq;  // relative to the direction's first data byte
  Bytes payload;
  std::uint8_t flags = 0x18;  // PSH+ACK
  std::uint16_t window = 65535;
  bool bad_checksum = false;
  std::uint16_t client_port = 40000;
  std::uint32_t client_isn = 1000, server_isn = 5000;
  std::optional<std::size_t> captured = std::nullopt;  // payload bytes in the file (a snaplen cut), when set
};

inline std::uint16_t checksum(const std::uint8_t* p, std::size_t n, std::uint32_t sum = 0) {
  for (std::size_t i = 0; i + 1 < n; i += 2) sum += static_cast<std::uint32_t>(p[i] << 8 | p[i + 1]);
  if (n % 2) sum += static_cast<std::uint32_t>(p[n - 1] << 8);
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

// Ethernet + IPv4 + TCP, client 127.0.0.1:<client_port>, server 127.0.0.1:7080.
inline Bytes packet(const Segment& s) {
  const std::uint32_t client_isn = s.client_isn, server_isn = s.server_isn;
  Bytes tcp(20);
  store_u16(tcp.data(), s.from_client ? s.client_port : 7080);
  store_u16(tcp.data() + 2, s.from_client ? 7080 : s.client_port);
  store_u32(tcp.data() + 4, (s.from_client ? client_isn : server_isn) + 1 + s.seq);
  store_u32(tcp.data() + 8, s.flags & 0x10 ? (s.from_client ? server_isn : client_isn) + 1 : 0);
  tcp[12] = 5 << 4;
  tcp[13] = s.flags;
  store_u16(tcp.data() + 14, s.window);
  append(tcp, s.payload);
  Bytes pseudo = {127, 0, 0, 1, 127, 0, 0, 1, 0, 6};
  append_u16(pseudo, static_cast<std::uint16_t>(tcp.size()));
  append(pseudo, tcp);
  std::uint16_t sum = checksum(pseudo.data(), pseudo.size());
  store_u16(tcp.data() + 16, s.bad_checksum ? static_cast<std::uint16_t>(sum ^ 0x5555) : sum);
  Bytes ip = {0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 6, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1};
  store_u16(ip.data() + 2, static_cast<std::uint16_t>(20 + tcp.size()));
  store_u16(ip.data() + 10, checksum(ip.data(), ip.size()));
  Bytes frame(12, 0);
  append_u16(frame, 0x0800);
  append(frame, ip);
  append(frame, tcp);
  return frame;
}

constexpr std::size_t kHandshake = 3;

// The three-way handshake, then the conversation cut into segments of at most `mss` bytes,
// client bytes first.
inline std::vector<Segment> conversation(std::size_t mss) {
  constexpr std::uint32_t isn = 0xFFFFFFFF;  // relative -1: the SYN's own sequence number
  std::vector<Segment> out = {{true, isn, {}, 0x02}, {false, isn, {}, 0x12}, {true, 0, {}, 0x10}};
  const auto& conv = vectors()["conversation"];
  for (bool client : {true, false}) {
    Bytes bytes = hex(conv[client ? "client_to_server" : "server_to_client"]);
    for (std::size_t at = 0; at < bytes.size(); at += mss)
      out.push_back({client, static_cast<std::uint32_t>(at),
                     Bytes(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                           bytes.begin() + static_cast<std::ptrdiff_t>(std::min(bytes.size(), at + mss)))});
  }
  return out;
}

// The handshake, then each piece (from the client when `first` is true) in a segment of its own,
// sequence numbers running on per direction.
inline std::vector<Segment> exchange(const std::vector<std::pair<bool, std::string>>& pieces) {
  constexpr std::uint32_t isn = 0xFFFFFFFF;
  std::vector<Segment> out = {{true, isn, {}, 0x02}, {false, isn, {}, 0x12}, {true, 0, {}, 0x10}};
  std::uint32_t seq[2] = {0, 0};
  for (const auto& [client, text] : pieces) {
    out.push_back({client, seq[client], Bytes(text.begin(), text.end())});
    seq[client] += static_cast<std::uint32_t>(text.size());
  }
  return out;
}

inline void write_capture(const std::string& path, const std::vector<Segment>& segments) {
  auto writer = PcapWriter::create(path, kLinkEthernet);
  if (!writer) qFatal("cannot write the capture");
  double ts = 1700000000.0;
  for (const Segment& s : segments) {
    Bytes p = packet(s);
    auto wire = static_cast<std::uint32_t>(p.size());
    if (s.captured) p.resize(p.size() - s.payload.size() + std::min(*s.captured, s.payload.size()));
    (*writer)->write_packet(ts += 0.001, p, wire);
  }
  if (!(*writer)->close()) qFatal("cannot close the capture");
}

// Text with every character JSON must escape, and some it must not.
inline std::string token_text(unsigned conn, unsigned stream, unsigned token) {
  static const std::string special[] = {"\"q\"", "back\\slash", "\b\f\n\r\t", std::string("\x01\x1f\x7f", 3),
                                        "caf\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x99\x82", "/"};
  return "c" + std::to_string(conn) + "s" + std::to_string(stream) + special[(conn + stream + token) % 8];
}

// `connections` lab connections to 127.0.0.1:7080 with the vector's negotiation and keys, each
// with `streams` streams of `tokens` tokens (texts from token_text), their segments interleaved.
// Each REQUEST carries `api_key` when one is given.
inline std::vector<Segment> many_connections(unsigned connections, unsigned streams, unsigned tokens,
                                             std::optional<std::string> api_key = std::nullopt) {
  const auto& conv = vectors()["conversation"];
  Bytes c2s_preface = hex(conv["client_to_server"]), s2c_preface = hex(conv["server_to_client"]);
  c2s_preface.resize(kPrefaceSize);
  s2c_preface.resize(kPrefaceSize);
  KeyLog log = parse_keylog(anthro::test::read_file(vectors_path("lab-conversation.keylog")), "keylog");
  const AnthroKeyLine& line = log.anthro.at(0);
  std::vector<std::vector<Segment>> per_conn(connections);
  for (unsigned c = 0; c < connections; ++c) {
    Aead c2s_key(Suite::Aes256Gcm, line.keys.c2s), s2c_key(Suite::Aes256Gcm, line.keys.s2c);
    NonceSequence c2s_nonces, s2c_nonces;
    Bytes up = c2s_preface, down = s2c_preface;
    for (unsigned k = 0; k < streams; ++k) {
      std::uint32_t id = 2 * k + 1;
      RequestSpec request;
      request.model = "m";
      request.messages = {{"user", "hi"}};
      request.max_tokens = 100;
      request.api_key = api_key;
      seal_frame(c2s_key, FrameType::Request, 1, line.token, c2s_nonces.next(), encode_request(id, request), up);
      for (unsigned t = 0; t < tokens; ++t)
        seal_frame(s2c_key, FrameType::StreamToken, 1, line.token, s2c_nonces.next(),
                   encode_token(id, t, 1, as_bytes(token_text(c, k, t))), down);
      ResponseSpec response;
      response.output_tokens = tokens;
      seal_frame(s2c_key, FrameType::Response, 1, line.token, s2c_nonces.next(), encode_response(id, response), down);
    }
    auto port = static_cast<std::uint16_t>(41000 + c);
    constexpr std::uint32_t isn = 0xFFFFFFFF;
    auto& out = per_conn[c];
    out = {{true, isn, {}, 0x02}, {false, isn, {}, 0x12}, {true, 0, {}, 0x10}};
    for (bool client : {true, false}) {
      const Bytes& bytes = client ? up : down;
      for (std::size_t at = 0; at < bytes.size(); at += 300)
        out.push_back({client, static_cast<std::uint32_t>(at),
                       Bytes(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                             bytes.begin() + static_cast<std::ptrdiff_t>(std::min(bytes.size(), at + 300)))});
    }
    for (auto& segment : out) segment.client_port = port;
  }
  std::vector<Segment> all;
  for (std::size_t i = 0;; ++i) {
    bool any = false;
    for (const auto& conn : per_conn)
      if (i < conn.size()) {
        all.push_back(conn[i]);
        any = true;
      }
    if (!any) return all;
  }
}

inline std::string expected_text(unsigned conn, unsigned stream, unsigned tokens) {
  std::string text;
  for (unsigned t = 0; t < tokens; ++t) text += token_text(conn, stream, t);
  return text;
}

}  // namespace anthro::test
