#include "bench_capture.h"

#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "capture/capture_file.h"
#include "crypto/aead.h"
#include "crypto/keylog.h"
#include "protocol/body.h"
#include "protocol/frame.h"
#include "protocol/stream_decoder.h"
#include "tls_test_identity.h"

namespace anthro::bench {
namespace {

constexpr unsigned kConnections = kCaptureConnections;
constexpr std::uint16_t kServerPort = kCaptureServerPort;
constexpr std::uint16_t kClientPortBase = 40000;
constexpr unsigned kTokensPerStream = 240;
constexpr std::size_t kRecordTarget = 650;  // frames batched per SSL_write: ~700-byte records
constexpr std::size_t kMss = 1448;
constexpr std::int64_t kPacketStepNs = 50'000;

[[noreturn]] void die(const std::string& what) {
  std::cerr << "capture generator: " << what << "\n";
  std::exit(1);
}

// NSS key log text: TLS secrets from OpenSSL, then the ANTHRO_V1 lines. OpenSSL's key log
// callback takes no user pointer, so the one generation running writes here.
std::string g_keylog;

// ---- TCP/IPv4/Ethernet framing -------------------------------------------------------------

std::uint32_t sum16(const std::uint8_t* p, std::size_t n, std::uint32_t sum = 0) {
  for (; n > 1; p += 2, n -= 2) sum += load_u16(p);
  if (n) sum += std::uint32_t{p[0]} << 8;
  return sum;
}
std::uint16_t fold(std::uint32_t sum) {
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

enum Tcp : std::uint8_t { kFin = 0x01, kSyn = 0x02, kPsh = 0x08, kAck = 0x10 };

class Wire {
 public:
  explicit Wire(PcapngWriter& w) : w_(w), if_(w.add_interface(kLinkEthernet, 262144, "lo")) {}

  void packet(bool from_client, std::uint16_t client_port, std::uint32_t seq, std::uint32_t ack,
              std::uint8_t flags, const std::uint8_t* data, std::size_t n) {
    buf_.assign(54 + n, 0);
    std::uint8_t* e = buf_.data();
    std::uint8_t mac_c[6] = {2, 0, 0, 0, 0, 1}, mac_s[6] = {2, 0, 0, 0, 0, 2};
    std::copy(from_client ? mac_s : mac_c, (from_client ? mac_s : mac_c) + 6, e);
    std::copy(from_client ? mac_c : mac_s, (from_client ? mac_c : mac_s) + 6, e + 6);
    store_u16(e + 12, 0x0800);
    std::uint8_t* ip = e + 14;
    ip[0] = 0x45;
    store_u16(ip + 2, static_cast<std::uint16_t>(40 + n));
    store_u16(ip + 4, ip_id_++);
    store_u16(ip + 6, 0x4000);  // DF
    ip[8] = 64;
    ip[9] = 6;
    const std::uint8_t lo[4] = {127, 0, 0, 1};
    std::copy(lo, lo + 4, ip + 12);
    std::copy(lo, lo + 4, ip + 16);
    store_u16(ip + 10, fold(sum16(ip, 20)));
    std::uint8_t* tcp = ip + 20;
    store_u16(tcp, from_client ? client_port : kServerPort);
    store_u16(tcp + 2, from_client ? kServerPort : client_port);
    store_u32(tcp + 4, seq);
    store_u32(tcp + 8, (flags & kAck) ? ack : 0);
    tcp[12] = 5 << 4;
    tcp[13] = flags;
    store_u16(tcp + 14, 65535);
    if (n) std::copy(data, data + n, tcp + 20);
    std::uint32_t pseudo = sum16(ip + 12, 8) + 6 + static_cast<std::uint32_t>(20 + n);
    store_u16(tcp + 16, fold(sum16(tcp, 20 + n, pseudo)));
    w_.write_packet_ns(if_, now_ns_, ByteView(buf_), static_cast<std::uint32_t>(buf_.size()));
    now_ns_ += kPacketStepNs;
    ++packets;
  }
  std::uint64_t packets = 0;

 private:
  PcapngWriter& w_;
  std::uint32_t if_;
  Bytes buf_;
  std::uint16_t ip_id_ = 1;
  std::int64_t now_ns_ = 1'700'000'000'000'000'000;
};

// ---- TLS 1.3 in memory ---------------------------------------------------------------------

struct Contexts {
  SSL_CTX* client = SSL_CTX_new(TLS_client_method());
  SSL_CTX* server = SSL_CTX_new(TLS_server_method());
  explicit Contexts(const anthro::test::TlsTestIdentity& id) {
    for (SSL_CTX* c : {client, server}) {
      SSL_CTX_set_min_proto_version(c, TLS1_3_VERSION);
      SSL_CTX_set_max_proto_version(c, TLS1_3_VERSION);
    }
    SSL_CTX_use_certificate(server, id.cert);
    SSL_CTX_use_PrivateKey(server, id.key);
    SSL_CTX_set_alpn_select_cb(server, anthro::test::select_anthro_alpn, nullptr);
    static const unsigned char protos[] = "\x09" "anthro-v1";
    SSL_CTX_set_alpn_protos(client, protos, sizeof protos - 1);
    SSL_CTX_set_keylog_callback(client, [](const SSL*, const char* line) { (g_keylog += line) += '\n'; });
  }
  ~Contexts() {
    SSL_CTX_free(client);
    SSL_CTX_free(server);
  }
};

// One TCP connection carrying one TLS 1.3 session: both ends in memory, every byte on the Wire.
class Conn {
 public:
  Conn(const Contexts& ctx, Wire& wire, std::uint16_t port) : wire_(wire), port_(port) {
    client_ = make_ssl(ctx.client, cin_, cout_);
    server_ = make_ssl(ctx.server, sin_, sout_);
    SSL_set_connect_state(client_);
    SSL_set_accept_state(server_);
    side_[0].seq = 0x10000000u + port * 7919u;
    side_[1].seq = 0x70000000u + port * 104729u;
    wire_.packet(true, port_, side_[0].seq++, 0, kSyn, nullptr, 0);
    wire_.packet(false, port_, side_[1].seq++, side_[0].seq, kSyn | kAck, nullptr, 0);
    wire_.packet(true, port_, side_[0].seq, side_[1].seq, kAck, nullptr, 0);
  }
  ~Conn() {
    SSL_free(client_);
    SSL_free(server_);
  }
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  void handshake() {
    for (int i = 0; i < 20 && !(SSL_is_init_finished(client_) && SSL_is_init_finished(server_)); ++i) {
      SSL_do_handshake(client_);
      move(true);
      SSL_do_handshake(server_);
      move(false);
    }
    pump();
    if (!SSL_is_init_finished(client_) || !SSL_is_init_finished(server_)) die("TLS handshake failed");
  }
  void send(bool from_client, const Bytes& data) {
    SSL* ssl = from_client ? client_ : server_;
    if (SSL_write(ssl, data.data(), static_cast<int>(data.size())) != static_cast<int>(data.size()))
      die("SSL_write failed");
    pump();
  }
  Bytes client_random() const {
    Bytes random(SSL3_RANDOM_SIZE);
    SSL_get_client_random(client_, random.data(), random.size());
    return random;
  }
  std::uint16_t suite() const { return SSL_CIPHER_get_protocol_id(SSL_get_current_cipher(client_)); }
  void close() {  // FIN, FIN-ACK, ACK
    wire_.packet(true, port_, side_[0].seq++, side_[1].seq, kFin | kAck, nullptr, 0);
    wire_.packet(false, port_, side_[1].seq++, side_[0].seq, kFin | kAck, nullptr, 0);
    wire_.packet(true, port_, side_[0].seq, side_[1].seq, kAck, nullptr, 0);
  }

 private:
  struct Side {
    std::uint32_t seq = 0;
    unsigned unacked = 0;  // segments received and not yet acknowledged
  };
  static SSL* make_ssl(SSL_CTX* ctx, BIO*& in, BIO*& out) {
    SSL* ssl = SSL_new(ctx);
    in = BIO_new(BIO_s_mem());
    out = BIO_new(BIO_s_mem());
    SSL_set_bio(ssl, in, out);
    return ssl;
  }
  // Whatever one end wrote goes on the wire as segments and into the other end's BIO.
  bool move(bool from_client) {
    BIO* from = from_client ? cout_ : sout_;
    BIO* to = from_client ? sin_ : cin_;
    Side& me = side_[from_client ? 0 : 1];
    Side& peer = side_[from_client ? 1 : 0];
    bool any = false;
    for (int n; (n = BIO_read(from, buf_.data(), static_cast<int>(buf_.size()))) > 0; any = true) {
      for (std::size_t off = 0; off < static_cast<std::size_t>(n); off += kMss) {
        std::size_t len = std::min(kMss, static_cast<std::size_t>(n) - off);
        wire_.packet(from_client, port_, me.seq, peer.seq, kAck | kPsh, buf_.data() + off, len);
        me.seq += static_cast<std::uint32_t>(len);
        me.unacked = 0;  // this segment acknowledged everything the peer sent
        if (++peer.unacked >= 2) {  // delayed ACK: one for every two segments
          wire_.packet(!from_client, port_, peer.seq, me.seq, kAck, nullptr, 0);
          peer.unacked = 0;
        }
      }
      BIO_write(to, buf_.data(), n);
    }
    return any;
  }
  bool drain(SSL* ssl) {
    bool any = false;
    while (SSL_read(ssl, buf_.data(), static_cast<int>(buf_.size())) > 0) any = true;
    return any;
  }
  void pump() {
    for (bool moved = true; moved;) {
      moved = move(true);
      moved |= move(false);
      moved |= drain(server_);
      moved |= drain(client_);
    }
  }

  Wire& wire_;
  std::uint16_t port_;
  SSL *client_ = nullptr, *server_ = nullptr;
  BIO *cin_ = nullptr, *cout_ = nullptr, *sin_ = nullptr, *sout_ = nullptr;
  Side side_[2];
  std::vector<std::uint8_t> buf_ = std::vector<std::uint8_t>(1 << 17);
};

// ---- anthro-v1 inside TLS ------------------------------------------------------------------

const char* const kWords[] = {"the", "model", "streams", "tokens", "over", "a", "secure", "channel", "while",
                              "latency", "stays", "low", "and", "every", "frame", "is", "sealed", "with",
                              "fresh", "nonce", "quickly", "through", "capture", "analysis"};

struct Session {
  std::unique_ptr<Conn> conn;
  Negotiated neg;
  std::unique_ptr<Aead> c2s, s2c;
  NonceSequence c2s_nonces, s2c_nonces;
  std::uint32_t next_stream = 1;
  FrameKeys keys;
};

void negotiate(Session& s, const Key32& server_public) {
  X25519KeyPair client_key = generate_x25519();
  Blob offer;
  offer.max_streams = 8;
  offer.flags = kFlagStreaming;
  do random_bytes(reinterpret_cast<std::uint8_t*>(&offer.connection_token), 8);
  while (offer.connection_token == 0);
  offer.x25519_public = client_key.public_key;
  random_bytes(offer.random.data(), offer.random.size());
  Blob answer = offer;
  answer.role = kRoleAnswer;
  answer.aead = kSuiteAes256Gcm;
  answer.x25519_public = server_public;
  random_bytes(answer.random.data(), answer.random.size());
  Bytes offer_bytes = encode_blob(offer), answer_bytes = encode_blob(answer);
  if (check_offer(offer_bytes) || check_answer(offer, answer_bytes)) die("generated blobs are not valid");
  Bytes preface(kPrefaceMagic.begin(), kPrefaceMagic.end());
  append(preface, offer_bytes);
  s.conn->send(true, preface);
  preface.assign(kPrefaceMagic.begin(), kPrefaceMagic.end());
  append(preface, answer_bytes);
  s.conn->send(false, preface);
  auto keys = client_frame_keys(client_key.private_key, offer, answer);
  if (!keys) die("key derivation: " + keys.error().detail);
  s.neg = negotiated_from(answer);
  s.keys = *keys;
  s.c2s = std::make_unique<Aead>(s.neg.suite, keys->c2s);
  s.s2c = std::make_unique<Aead>(s.neg.suite, keys->s2c);
  g_keylog += format_anthro_line(s.neg.token, *keys) + "\n";
}

// One request and its streamed reply: tokens batched into ~700-byte TLS records.
void run_stream(Session& s, std::mt19937& rng, GeneratedCapture& totals) {
  std::uint32_t id = s.next_stream;
  s.next_stream += 2;
  RequestSpec req;
  req.model = "bench-model";
  req.messages = {{"user", "Tell me a long story about packet captures, please."}};
  req.max_tokens = kTokensPerStream;
  Bytes frame = seal_frame(*s.c2s, FrameType::Request, kFlagStreaming, s.neg.token, s.c2s_nonces.next(),
                           encode_request(id, req));
  s.conn->send(true, frame);
  Bytes batch;
  std::string text;
  for (std::uint32_t i = 0; i < kTokensPerStream; ++i) {
    text.clear();
    for (unsigned w = 0, n = 2 + rng() % 3; w < n; ++w) (text += kWords[rng() % std::size(kWords)]) += ' ';
    seal_frame(*s.s2c, FrameType::StreamToken, kFlagStreaming, s.neg.token, s.s2c_nonces.next(),
               encode_token(id, i, 1, as_bytes(text)), batch);
    if (batch.size() >= kRecordTarget) {
      s.conn->send(false, batch);
      batch.clear();
    }
  }
  ResponseSpec resp;
  resp.id = "msg_" + std::to_string(id);
  resp.model = req.model;
  resp.input_tokens = 12;
  resp.output_tokens = kTokensPerStream;
  seal_frame(*s.s2c, FrameType::Response, kFlagStreaming, s.neg.token, s.s2c_nonces.next(),
             encode_response(id, resp), batch);
  s.conn->send(false, batch);
  ++totals.streams;
  totals.tokens += kTokensPerStream;
  totals.frames += kTokensPerStream + 2;
}

}  // namespace

GeneratedCapture generate_capture(const std::string& pcap, const std::string& keylog, std::uint64_t target_bytes) {
  g_keylog.clear();
  anthro::test::TlsTestIdentity id;
  Contexts ctx(id);
  X25519KeyPair server_key = generate_x25519();
  auto writer = PcapngWriter::create(pcap);
  if (!writer) die(writer.error().detail);
  Wire wire(**writer);
  std::vector<Session> sessions(kConnections);
  GeneratedCapture g;
  for (unsigned i = 0; i < kConnections; ++i) {
    const auto port = static_cast<std::uint16_t>(kClientPortBase + i);
    sessions[i].conn = std::make_unique<Conn>(ctx, wire, port);
    sessions[i].conn->handshake();
    negotiate(sessions[i], server_key.public_key);
    g.connections.push_back(
        {port, sessions[i].conn->client_random(), sessions[i].conn->suite(), sessions[i].neg.suite, sessions[i].keys});
  }
  std::mt19937 rng(42);
  while ((*writer)->bytes_written() < target_bytes)  // whole rounds: every connection, one stream
    for (auto& s : sessions) run_stream(s, rng, g);
  for (auto& s : sessions) s.conn->close();
  g.packets = wire.packets;
  if (auto ok = (*writer)->close(); !ok) die(ok.error().detail);
  std::ofstream(keylog) << g_keylog;
  g.keylog_text = g_keylog;
  g.file_bytes = std::filesystem::file_size(pcap);
  return g;
}

}  // namespace anthro::bench
