// capture_bench: `anthro-wb analyze` on a large TLS 1.3 capture of anthro-v1 token streams,
// against tshark decrypting the same file with the same key log in the same run.
// The capture is generated first (not timed): 20 interleaved connections, each a real in-memory
// TLS 1.3 handshake (OpenSSL, memory BIOs) followed by the in-band preface and many REQUEST /
// STREAM_TOKEN / RESPONSE frames sealed with the real frame keys, cut into ~700-byte TCP
// segments with correct sequence numbers and checksums. Each tool runs as a child process;
// wall time gives MB/s over the file size and wait4() its peak RSS.
// Ratios: throughput ours ÷ tshark, peak RSS ÷ file size (ours and tshark's). Then the capture
// reader alone on the same file (from the disk, from the page cache, with parse_tcp) against
// plain read() of it: reader ÷ read().
// With ANTHRO_BENCH_KEEP set in the environment the capture and key log are kept (for profiling).
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_args.h"
#include "capture/capture_file.h"
#include "capture/capture_index.h"
#include "capture/packet.h"
#include "crypto/aead.h"
#include "crypto/key_schedule.h"
#include "crypto/keylog.h"
#include "protocol/body.h"
#include "protocol/frame.h"
#include "protocol/stream_decoder.h"
#include "tls_test_identity.h"

#ifndef ANTHRO_WB
#error "ANTHRO_WB (the path of the anthro-wb binary) must be defined"
#endif

extern char** environ;

using namespace anthro;

namespace {

constexpr unsigned kConnections = 20;
constexpr std::uint16_t kServerPort = 7443;
constexpr std::uint16_t kClientPortBase = 40000;
constexpr unsigned kTokensPerStream = 240;
constexpr std::size_t kRecordTarget = 650;  // frames batched per SSL_write: ~700-byte records
constexpr std::size_t kMss = 1448;
constexpr std::int64_t kPacketStepNs = 50'000;

[[noreturn]] void die(const std::string& what) {
  std::cerr << "capture_bench: " << what << "\n";
  std::exit(1);
}

std::string g_keylog;  // NSS key log text: TLS secrets from OpenSSL, then the ANTHRO_V1 lines

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
  s.c2s = std::make_unique<Aead>(s.neg.suite, keys->c2s);
  s.s2c = std::make_unique<Aead>(s.neg.suite, keys->s2c);
  g_keylog += format_anthro_line(s.neg.token, *keys) + "\n";
}

struct Totals {
  std::uint64_t streams = 0, tokens = 0;
};

// One request and its streamed reply: tokens batched into ~700-byte TLS records.
void run_stream(Session& s, std::mt19937& rng, Totals& totals) {
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
}

struct Generated {
  std::uint64_t file_bytes = 0, packets = 0;
  Totals totals;
};

Generated generate(const std::string& pcap, const std::string& keylog, std::uint64_t target_bytes) {
  anthro::test::TlsTestIdentity id;
  Contexts ctx(id);
  X25519KeyPair server_key = generate_x25519();
  auto writer = PcapngWriter::create(pcap);
  if (!writer) die(writer.error().detail);
  Wire wire(**writer);
  std::vector<Session> sessions(kConnections);
  for (unsigned i = 0; i < kConnections; ++i) {
    sessions[i].conn = std::make_unique<Conn>(ctx, wire, static_cast<std::uint16_t>(kClientPortBase + i));
    sessions[i].conn->handshake();
    negotiate(sessions[i], server_key.public_key);
  }
  std::mt19937 rng(42);
  Generated g;
  while ((*writer)->bytes_written() < target_bytes)  // whole rounds: every connection, one stream
    for (auto& s : sessions) run_stream(s, rng, g.totals);
  for (auto& s : sessions) s.conn->close();
  g.packets = wire.packets;
  if (auto ok = (*writer)->close(); !ok) die(ok.error().detail);
  std::ofstream(keylog) << g_keylog;
  g.file_bytes = std::filesystem::file_size(pcap);
  return g;
}

// ---- measuring a child process -------------------------------------------------------------

struct Run {
  int status = -1;
  double wall_s = 0;
  double peak_rss_mb = 0;
};

Run run_child(const std::vector<std::string>& argv, const std::string& out_path, const std::string& err_path) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  Run r;
  pid_t pid = 0;
  auto start = std::chrono::steady_clock::now();
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return r;
  rusage ru{};
  if (wait4(pid, &r.status, 0, &ru) != pid) return r;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.peak_rss_mb = static_cast<double>(ru.ru_maxrss) / 1024.0;  // KiB on Linux
  return r;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool exited_ok(const Run& r) { return WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0; }

// `analyze` must have decoded everything: a comparison is only fair between working decoders.
void check_ours(const std::string& json_text, const Generated& g) {
  auto j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.contains("connections")) die("anthro-wb analyze printed no JSON");
  const auto& conns = j["connections"];
  if (conns.size() != kConnections)
    die("anthro-wb analyze found " + std::to_string(conns.size()) + " connections, expected " +
        std::to_string(kConnections));
  std::uint64_t streams = 0, tokens = 0;
  for (const auto& c : conns) {
    if (c.value("decryption", "") != "ok")
      die("connection " + c.value("conn", "?") + ": decryption \"" + c.value("decryption", "") + "\"");
    for (const auto& s : c["streams"]) {
      ++streams;
      tokens += s.value("tokens", std::uint64_t{0});
    }
  }
  if (streams != g.totals.streams || tokens != g.totals.tokens)
    die("anthro-wb analyze found " + std::to_string(streams) + " streams / " + std::to_string(tokens) +
        " tokens, expected " + std::to_string(g.totals.streams) + " / " + std::to_string(g.totals.tokens));
}

// The SUM column of the io,stat table's one interval row; -1 when absent.
double tshark_data_bytes(const std::string& out) {
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("<>") == std::string::npos) continue;
    auto bar = line.find('|', 1);
    if (bar == std::string::npos) continue;
    return std::strtod(line.c_str() + bar + 1, nullptr);
  }
  return -1;
}

// MB/s of each way through the capture: plain read() (the reference), the reader from the disk
// (the file's pages dropped from the cache first), from the cache, and with parse_tcp and
// checksums. Each pass must see every packet; a reader warning is a failure.
struct ReadSpeed {
  double raw = 0, cold = 0, warm = 0, parsed = 0;
};

double mb_per_s(double mb, std::chrono::steady_clock::time_point start) {
  return mb / std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

ReadSpeed read_speed(const std::string& pcap, std::uint64_t packets, double file_mb) {
  auto pass = [&](bool parse) {
    auto reader = CaptureReader::open(pcap);
    if (!reader) die(reader.error().detail);
    auto t0 = std::chrono::steady_clock::now();
    std::uint64_t n = 0;
    while (auto p = (*reader)->next()) {
      ++n;
      if (!parse) continue;
      auto seg = parse_tcp(*p);
      if (!seg || !*seg || !(*seg)->checksum_ok) die("packet " + std::to_string(n) + " does not parse");
    }
    if (n != packets || !(*reader)->warnings().empty()) die("the reader saw " + std::to_string(n) + " packets");
    return mb_per_s(file_mb, t0);
  };
  ReadSpeed speed;
  int fd = ::open(pcap.c_str(), O_RDONLY);
  if (fd < 0) die("cannot open " + pcap);
  ::fdatasync(fd);  // clean pages can be dropped: the first pass reads from the disk
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  speed.cold = pass(false);
  std::vector<char> chunk(1 << 20);
  auto start = std::chrono::steady_clock::now();
  while (::read(fd, chunk.data(), chunk.size()) > 0) {
  }
  speed.raw = mb_per_s(file_mb, start);  // from the page cache, as the next two
  ::close(fd);
  speed.warm = pass(false);
  speed.parsed = pass(true);
  return speed;
}

bool have_tshark() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string d; std::getline(dirs, d, ':');)
    if (!d.empty() && access((d + "/tshark").c_str(), X_OK) == 0) return true;
  return false;
}

}  // namespace

// `capture_bench --index-child FILE KEYLOG`: the GUI's indexing pass (CaptureIndex::load), run
// as a child so its own peak RSS can be measured. Prints the frame count.
int index_child(const std::string& pcap, const std::string& keylog) {
  auto index = CaptureIndex::create();
  if (!index) die(index.error().detail);
  auto ok = (*index)->load(pcap, {{keylog}, {}});
  if (!ok) die(ok.error().detail);
  std::printf("%zu\n", (*index)->frame_count());
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 4 && std::string_view(argv[1]) == "--index-child") return index_child(argv[2], argv[3]);
  auto [json_out, quick] = bench::parse_bench_args(argc, argv, "capture_bench");
  const char* tmp = std::getenv("TMPDIR");
  std::string dir_template = std::string(tmp && *tmp ? tmp : "/tmp") + "/anthro-capture-bench-XXXXXX";
  if (!mkdtemp(dir_template.data())) die("cannot create a temporary directory");
  const std::filesystem::path dir = dir_template;
  const std::string pcap = dir / "tls.pcapng", keylog = dir / "keylog.txt";
  const std::string out = dir / "out.txt", err = dir / "err.txt";

  std::uint64_t target = quick ? std::uint64_t{5} << 20 : std::uint64_t{250} << 20;
  auto gen_start = std::chrono::steady_clock::now();
  Generated g = generate(pcap, keylog, target);
  double gen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - gen_start).count();
  double file_mb = static_cast<double>(g.file_bytes) / (1 << 20);
  if (!json_out)
    std::printf("generated %.1f MB, %llu packets, %u connections, %llu streams, %llu tokens in %.1f s\n", file_mb,
                static_cast<unsigned long long>(g.packets), kConnections,
                static_cast<unsigned long long>(g.totals.streams), static_cast<unsigned long long>(g.totals.tokens),
                gen_s);

  // Ours.
  // Each child is measured before this process reads any big output: a child's peak RSS
  // (wait4) includes this process's own peak up to its exec (posix_spawn shares the memory).
  const std::string ours_out = dir / "ours.json";
  Run ours = run_child({ANTHRO_WB, "analyze", pcap, "--keylog", keylog, "--format", "json"}, ours_out, err);
  if (!exited_ok(ours)) {
    std::filesystem::remove_all(dir);
    die("anthro-wb analyze failed (status " + std::to_string(ours.status) + "): " + slurp(err));
  }

  // The GUI's index of the same file.
  Run index = run_child({"/proc/self/exe", "--index-child", pcap, keylog}, out, err);
  if (!exited_ok(index)) {
    std::filesystem::remove_all(dir);
    die("the index pass failed (status " + std::to_string(index.status) + "): " + slurp(err));
  }
  std::uint64_t indexed_frames = std::strtoull(slurp(out).c_str(), nullptr, 10);

  // tshark, same file, same keys.
  Run ts;
  double ts_data = -1;
  bool ts_ok = have_tshark();
  if (!ts_ok) {
    std::cerr << "capture_bench: note: tshark not found on PATH; its figures are null and ratios 0\n";
  } else {
    ts = run_child({"tshark", "-r", pcap, "-o", "tls.keylog_file:" + keylog, "-o",
                    "tcp.reassemble_out_of_order:TRUE", "-q", "-z", "io,stat,0,SUM(data.len)data.len"},
                   out, err);
    ts_ok = exited_ok(ts);
    if (!ts_ok) std::cerr << "capture_bench: note: tshark failed (status " << ts.status << "): " << slurp(err) << "\n";
    else ts_data = tshark_data_bytes(slurp(out));
    if (ts_ok && ts_data <= 0)
      std::cerr << "capture_bench: note: tshark reported no decrypted data (SUM(data.len) " << ts_data
                << "); it may not have decrypted the TLS\n";
  }
  const ReadSpeed reads = read_speed(pcap, g.packets, file_mb);
  {
    std::string text = slurp(ours_out);
    std::filesystem::remove(ours_out);
    check_ours(text, g);
  }
  if (std::getenv("ANTHRO_BENCH_KEEP")) std::cerr << "capture_bench: kept " << pcap << " and " << keylog << "\n";
  else std::filesystem::remove_all(dir);

  double ours_mbps = file_mb / ours.wall_s;
  double ts_mbps = ts_ok ? file_mb / ts.wall_s : 0;
  nlohmann::json null;
  nlohmann::json figures = {
      {"file_mb", file_mb},
      {"packets", g.packets},
      {"connections", kConnections},
      {"streams", g.totals.streams},
      {"tokens", g.totals.tokens},
      {"ours_s", ours.wall_s},
      {"ours_mb_per_s", ours_mbps},
      {"ours_peak_rss_mb", ours.peak_rss_mb},
      {"index_s", index.wall_s},
      {"index_mb_per_s", file_mb / index.wall_s},
      {"index_peak_rss_mb", index.peak_rss_mb},
      {"index_frames", indexed_frames},
      {"tshark_s", ts_ok ? nlohmann::json(ts.wall_s) : null},
      {"tshark_mb_per_s", ts_ok ? nlohmann::json(ts_mbps) : null},
      {"tshark_peak_rss_mb", ts_ok ? nlohmann::json(ts.peak_rss_mb) : null},
      {"tshark_data_mb", ts_ok && ts_data >= 0 ? nlohmann::json(ts_data / (1 << 20)) : null},
      {"raw_read_mb_per_s", reads.raw},
      {"reader_cold_mb_per_s", reads.cold},
      {"reader_mb_per_s", reads.warm},
      {"reader_parse_mb_per_s", reads.parsed},
  };
  nlohmann::json ratios = {
      {"throughput_vs_tshark", ts_ok ? ours_mbps / ts_mbps : 0.0},
      {"rss_vs_file", ours.peak_rss_mb / file_mb},
      {"index_throughput_vs_tshark", ts_ok ? file_mb / index.wall_s / ts_mbps : 0.0},
      {"index_rss_vs_file", index.peak_rss_mb / file_mb},
      {"tshark_rss_vs_file", ts_ok ? ts.peak_rss_mb / file_mb : 0.0},
      {"reader_vs_raw_read", reads.warm / reads.raw},
      {"reader_parse_vs_raw_read", reads.parsed / reads.raw},
  };
  if (json_out) {
    std::cout << nlohmann::json{{"figures", figures}, {"ratios", ratios}}.dump() << "\n";
    return 0;
  }
  std::printf("%-22s %12s %12s\n", "", "anthro-wb", "tshark");
  std::printf("%-22s %12.2f %12.2f\n", "wall time (s)", ours.wall_s, ts.wall_s);
  std::printf("%-22s %12.1f %12.1f\n", "throughput (MB/s)", ours_mbps, ts_mbps);
  std::printf("%-22s %12.1f %12.1f\n", "peak RSS (MB)", ours.peak_rss_mb, ts.peak_rss_mb);
  std::printf("%-22s %12.2f %12.2f\n", "peak RSS / file", ours.peak_rss_mb / file_mb,
              ts_ok ? ts.peak_rss_mb / file_mb : 0.0);
  std::printf("throughput anthro-wb / tshark: %.2f\n", ts_ok ? ours_mbps / ts_mbps : 0.0);
  std::printf("index pass (GUI): %.2f s, %.1f MB/s, peak RSS %.1f MB (%.2f of the file), %llu frames\n", index.wall_s,
              file_mb / index.wall_s, index.peak_rss_mb, index.peak_rss_mb / file_mb,
              static_cast<unsigned long long>(indexed_frames));
  std::printf("reader alone: %.0f MB/s from the disk (cache dropped), %.0f MB/s from the page cache, %.0f MB/s "
              "with parse_tcp and checksums; plain read() %.0f MB/s\n",
              reads.cold, reads.warm, reads.parsed, reads.raw);
  return 0;
}
