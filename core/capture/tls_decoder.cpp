#include "capture/tls_decoder.h"

#include <algorithm>

#include "capture/tls_crypto.h"
#include "capture/tls_handshake.h"

namespace anthro {
namespace {

constexpr std::uint8_t kChangeCipherSpec = 20;
constexpr std::uint8_t kAlert = 21;
constexpr std::uint8_t kHandshake = 22;
constexpr std::uint8_t kApplicationData = 23;
constexpr std::uint8_t kHeartbeat = 24;

constexpr std::size_t kHeader = 5;
// RFC 5246 §6.2.3 allows 2048 bytes of expansion; TLS 1.3 only 256, so this covers both.
constexpr std::size_t kMaxFragment = 16384 + 2048;
constexpr std::size_t kTag = 16;
constexpr std::size_t kExplicitNonce = 8;

const char* long_name(Direction d) {
  return d == Direction::ClientToServer ? "client_to_server" : "server_to_client";
}

// TLS 1.3 and ChaCha20 in TLS 1.2: the 64-bit sequence number XORed into the low end of the IV.
void xor_nonce(const Bytes& iv, std::uint64_t seq, std::uint8_t* nonce) {
  std::copy(iv.begin(), iv.end(), nonce);
  for (int i = 0; i < 8; ++i) nonce[11 - i] ^= static_cast<std::uint8_t>(seq >> (8 * i));
}

}  // namespace

struct TlsDecoder::Side {
  explicit Side(Direction d) : dir(d) { record.reserve(kHeader + kMaxFragment); }

  Direction dir;
  Bytes record;  // header and fragment of the record being assembled
  double record_ts = 0;
  std::uint64_t records = 0;  // complete records so far, for messages
  tls::HandshakeReader handshake;
  std::optional<tls::RecordOpener> opener;
  Bytes iv;  // 12 bytes, or the 4-byte implicit part for TLS 1.2 GCM
  std::uint64_t seq = 0;
  Bytes secret;            // TLS 1.3 current traffic secret, for KeyUpdate
  bool encrypted = false;  // records are protected from here on
  bool finished = false;   // this side's Finished was seen
  // TLS 1.2: the keys are known at ServerHello but apply from this side's ChangeCipherSpec.
  std::optional<tls::RecordOpener> pending;
  Bytes pending_iv;
  bool dead = false;
  Bytes scratch;  // decrypted record
};

TlsDecoder::TlsDecoder(TlsSecretLookup secrets, Events events)
    : secrets_(std::move(secrets)), events_(std::move(events)) {
  sides_[0] = std::make_unique<Side>(Direction::ClientToServer);
  sides_[1] = std::make_unique<Side>(Direction::ServerToClient);
}

TlsDecoder::~TlsDecoder() = default;

void TlsDecoder::feed(Direction dir, ByteView bytes, double ts) {
  Side& s = side(dir);
  while (!bytes.empty() && !s.dead) take_record_bytes(s, bytes, ts);
}

// Takes a whole record where `bytes` holds one and nothing is buffered (most records: no copy),
// else moves bytes into the record buffer, at most up to the end of the current record.
void TlsDecoder::take_record_bytes(Side& s, ByteView& bytes, double ts) {
  if (s.record.empty() && bytes.size() >= kHeader && header_plausible(bytes.first(kHeader))) {
    const std::size_t size = kHeader + load_u16(bytes.data() + 3);
    if (bytes.size() >= size) {
      s.record_ts = ts;
      ++s.records;
      process_record(s, bytes.first(size));
      bytes = bytes.subspan(size);
      return;
    }
  }
  s.record_ts = s.record.empty() ? ts : std::max(s.record_ts, ts);
  std::size_t want = kHeader - std::min(kHeader, s.record.size());
  if (want == 0) want = kHeader + load_u16(s.record.data() + 3) - s.record.size();
  const std::size_t n = std::min(want, bytes.size());
  const bool in_header = s.record.size() < kHeader;
  s.record.insert(s.record.end(), bytes.begin(), bytes.begin() + n);
  bytes = bytes.subspan(n);
  if (in_header && !header_plausible(s.record)) {
    fail(s, s.records == 0 ? "not TLS"
                           : std::string("malformed record (") + long_name(s.dir) + " record " +
                                 std::to_string(s.records + 1) + ")");
    return;
  }
  if (s.record.size() >= kHeader && s.record.size() == kHeader + load_u16(s.record.data() + 3)) {
    ++s.records;
    process_record(s, s.record);
    s.record.clear();
  }
}

// Checks as much of the header as has arrived, so garbage is rejected from its first byte.
bool TlsDecoder::header_plausible(ByteView r) const {
  if (r.size() >= 1 && (r[0] < kChangeCipherSpec || r[0] > kHeartbeat)) return false;
  if (r.size() >= 2 && r[1] != 3) return false;
  if (r.size() >= 5 && load_u16(r.data() + 3) > kMaxFragment) return false;
  return true;
}

void TlsDecoder::process_record(Side& s, ByteView record) {
  const std::uint8_t type = record[0];
  if (!client_hello_seen_ && !(s.dir == Direction::ClientToServer && type == kHandshake))
    return fail_all("no ClientHello seen");
  if (!s.encrypted) return process_plain(s, type, record.subspan(kHeader));
  // TLS 1.3 middlebox compatibility sends unprotected ChangeCipherSpec records; skip them.
  if (tls13_ && type == kChangeCipherSpec) return;
  if (tls13_ && type != kApplicationData) return;  // e.g. a plaintext alert: nothing to read
  std::uint8_t inner = type;
  Bytes& content = s.scratch;
  if (!open_record(s, record, content, inner))
    return fail(s, std::string("tag mismatch (") + long_name(s.dir) + " record " +
                       std::to_string(s.records) + ")");
  dispatch(s, inner, content);
}

void TlsDecoder::process_plain(Side& s, std::uint8_t type, ByteView fragment) {
  switch (type) {
    case kHandshake:
      return dispatch(s, type, fragment);
    case kChangeCipherSpec:
      if (tls13_ || !server_hello_seen_) return;
      if (!s.pending) return fail(s, "no keys for " + std::string(long_name(s.dir)));
      s.opener = std::move(s.pending);
      s.pending.reset();
      s.iv = s.pending_iv;
      s.seq = 0;
      s.encrypted = true;
      return;
    case kApplicationData:
      return fail(s, std::string("application data before keys (") + long_name(s.dir) +
                         " record " + std::to_string(s.records) + ")");
    default:
      return;  // alerts and heartbeats carry nothing to decrypt
  }
}

// Decrypts `record` into `content`; `type` becomes the real content type.
// The sequence number advances only when the tag verifies.
bool TlsDecoder::open_record(Side& s, ByteView record, Bytes& content, std::uint8_t& type) {
  ByteView header = record.first(kHeader);
  ByteView fragment = record.subspan(kHeader);
  std::uint8_t nonce[12];
  bool ok = false;
  if (tls13_) {
    xor_nonce(s.iv, s.seq, nonce);
    ok = s.opener->open(nonce, header, fragment, content);
  } else {
    const bool gcm = s.iv.size() == 4;
    if (gcm) {
      if (fragment.size() < kExplicitNonce + kTag) return false;
      std::copy(s.iv.begin(), s.iv.end(), nonce);
      std::copy(fragment.begin(), fragment.begin() + kExplicitNonce, nonce + 4);
      fragment = fragment.subspan(kExplicitNonce);
    } else {
      xor_nonce(s.iv, s.seq, nonce);
    }
    if (fragment.size() < kTag) return false;
    // additional_data = seq_num + type + version + length of the plaintext (RFC 5246 §6.2.3.3)
    std::uint8_t aad[13];
    store_u64(aad, s.seq);
    aad[8] = type;
    aad[9] = header[1];
    aad[10] = header[2];
    store_u16(aad + 11, static_cast<std::uint16_t>(fragment.size() - kTag));
    ok = s.opener->open(nonce, aad, fragment, content);
  }
  if (!ok) return false;
  ++s.seq;
  if (!tls13_) return true;
  // TLSInnerPlaintext: content, the real type, then zero padding (RFC 8446 §5.4).
  while (!content.empty() && content.back() == 0) content.pop_back();
  if (content.empty()) return false;
  type = content.back();
  content.pop_back();
  return true;
}

void TlsDecoder::dispatch(Side& s, std::uint8_t type, ByteView content) {
  if (type == kHandshake) {
    s.handshake.feed(content, [&](std::uint8_t t, ByteView body, bool complete) {
      if (!s.dead) on_handshake_message(s, t, body, complete);
    });
  } else if (type == kApplicationData) {
    app_data_seen_ = true;
    if (events_.on_application_data && !content.empty())
      events_.on_application_data(s.dir, content, s.record_ts);
  }
  // Alerts and the rest say nothing the caller asked for.
}

void TlsDecoder::on_handshake_message(Side& s, std::uint8_t type, ByteView body, bool complete) {
  const bool client = s.dir == Direction::ClientToServer;
  if (!client_hello_seen_ && !(client && type == tls::kClientHello))
    return fail_all("no ClientHello seen");
  if (!complete && (type == tls::kClientHello || type == tls::kServerHello))
    return fail_all("malformed handshake (oversized hello)");
  if (client && type == tls::kClientHello) return on_client_hello(body);
  if (!client && type == tls::kServerHello) return on_server_hello(body);
  if (type == tls::kFinished && !s.finished) {  // a renegotiation's later Finished is not the handshake's
    s.finished = true;
    info_.finished_ts = std::max(info_.finished_ts.value_or(s.record_ts), s.record_ts);
  }
  if (!tls13_) return;  // TLS 1.2 keys change on ChangeCipherSpec, not on messages
  if (!client && type == tls::kEncryptedExtensions) return on_encrypted_extensions(body);
  if (type == tls::kFinished && s.secret.size() && !s.dead) {
    // Finished is the last message under the handshake keys of its sender.
    install_tls13_secret(s, client ? "CLIENT_TRAFFIC_SECRET_0" : "SERVER_TRAFFIC_SECRET_0");
  } else if (type == tls::kKeyUpdate) {
    auto next = tls::hkdf_expand_label(suite_->digest, s.secret, "traffic upd", {},
                                       suite_->hash_len);
    if (!next) return fail(s, next.error().detail);
    install_tls13_key(s, *next);
  }
}

void TlsDecoder::on_client_hello(ByteView body) {
  auto ch = tls::parse_client_hello(body);
  if (!ch) return fail_all("malformed ClientHello");
  // A second ClientHello (after HelloRetryRequest) keeps the same random.
  client_hello_seen_ = true;
  info_.client_random = ch->random;
  info_.alpn_offered = ch->alpn;
  info_.extension_offer = ch->anthro_offer;
}

void TlsDecoder::on_server_hello(ByteView body) {
  auto sh = tls::parse_server_hello(body);
  if (!sh) return fail_all("malformed ServerHello");
  info_.version = tls::version_name(sh->selected_version);
  info_.cipher_suite = tls::suite_name(sh->cipher_suite);
  if (sh->hello_retry_request) return;  // the real ServerHello follows the second ClientHello
  server_hello_seen_ = true;
  server_random_ = sh->random;
  suite_ = tls::find_suite(sh->cipher_suite);
  if (sh->selected_version != 0x0304 && sh->selected_version != 0x0303)
    return fail_all("unsupported version " + info_.version);
  tls13_ = sh->selected_version == 0x0304;
  if (!suite_ || suite_->tls13 != tls13_) {
    suite_ = nullptr;
    return fail_all("unsupported suite " + info_.cipher_suite);
  }
  if (tls13_) return setup_tls13();
  info_.alpn_selected = sh->alpn;
  info_.extension_answer = sh->anthro_answer;
  report_handshake();
  setup_tls12();
}

void TlsDecoder::on_encrypted_extensions(ByteView body) {
  auto ee = tls::parse_encrypted_extensions(body);
  if (!ee) return fail_all("malformed EncryptedExtensions");
  info_.alpn_selected = ee->alpn;
  info_.extension_answer = ee->anthro_answer;
  report_handshake();
}

// Everything after ServerHello is protected in TLS 1.3, in both directions.
void TlsDecoder::setup_tls13() {
  Side& c = side(Direction::ClientToServer);
  Side& s = side(Direction::ServerToClient);
  c.encrypted = s.encrypted = true;
  install_tls13_secret(c, "CLIENT_HANDSHAKE_TRAFFIC_SECRET");
  install_tls13_secret(s, "SERVER_HANDSHAKE_TRAFFIC_SECRET");
}

bool TlsDecoder::install_tls13_secret(Side& s, std::string_view label) {
  auto secret = secrets_ ? secrets_(label, info_.client_random) : std::nullopt;
  if (!secret) {
    fail(s, "no secret for this client_random");
    return false;
  }
  return install_tls13_key(s, *secret);
}

bool TlsDecoder::install_tls13_key(Side& s, const Bytes& secret) {
  auto key = tls::hkdf_expand_label(suite_->digest, secret, "key", {}, suite_->key_len);
  auto iv = tls::hkdf_expand_label(suite_->digest, secret, "iv", {}, 12);
  if (!key || !iv) {
    fail(s, (key ? iv : key).error().detail);
    return false;
  }
  auto opener = tls::RecordOpener::create(suite_->aead, *key);
  if (!opener) {
    fail(s, opener.error().detail);
    return false;
  }
  s.opener = std::move(*opener);
  s.iv = std::move(*iv);
  s.secret = secret;
  s.seq = 0;
  return true;
}

// key_block = PRF(master_secret, "key expansion", server_random + client_random), cut into
// client key, server key, client IV, server IV (AEAD suites have no MAC keys).
void TlsDecoder::setup_tls12() {
  Side& c = side(Direction::ClientToServer);
  Side& s = side(Direction::ServerToClient);
  auto master = secrets_ ? secrets_("CLIENT_RANDOM", info_.client_random) : std::nullopt;
  if (!master) return fail_all("no secret for this client_random");
  const std::size_t kl = suite_->key_len;
  const std::size_t ivl = suite_->aead == tls::AeadAlg::ChaCha20Poly1305 ? 12 : 4;
  Bytes seed = server_random_;
  append(seed, info_.client_random);
  auto block = tls::tls12_prf(suite_->digest, *master, "key expansion", seed, 2 * kl + 2 * ivl);
  if (!block) return fail_all(block.error().detail);
  const ByteView kb(*block);
  auto ck = tls::RecordOpener::create(suite_->aead, kb.subspan(0, kl));
  auto sk = tls::RecordOpener::create(suite_->aead, kb.subspan(kl, kl));
  if (!ck || !sk) return fail_all((ck ? sk : ck).error().detail);
  c.pending = std::move(*ck);
  s.pending = std::move(*sk);
  c.pending_iv.assign(kb.begin() + 2 * kl, kb.begin() + 2 * kl + ivl);
  s.pending_iv.assign(kb.begin() + 2 * kl + ivl, kb.begin() + 2 * kl + 2 * ivl);
}

void TlsDecoder::report_handshake() {
  if (handshake_reported_) return;
  handshake_reported_ = true;
  if (events_.on_handshake) events_.on_handshake(info_);
}

void TlsDecoder::fail(Side& s, const std::string& reason) {
  s.dead = true;
  s.record.clear();
  if (failure_.empty()) failure_ = reason;
}

void TlsDecoder::fail_all(const std::string& reason) {
  fail(*sides_[0], reason);
  fail(*sides_[1], reason);
}

void TlsDecoder::finish() {
  for (auto& s : sides_) s->record.clear();
}

std::string TlsDecoder::status() const {
  if (!failure_.empty()) return failure_;
  if (app_data_seen_) return "ok";
  if (!client_hello_seen_) return "no ClientHello seen";
  if (!server_hello_seen_) return "no ServerHello seen";
  return "no application data";
}

}  // namespace anthro
