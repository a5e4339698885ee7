// codec_bench: throughput of the anthro-v1 frame codec against a plain OpenSSL EVP loop
// doing the same AEAD work, plus libsodium's ChaCha20-Poly1305 for comparison.
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "bench_args.h"
#include "crypto/aead.h"
#include "protocol/frame.h"
#include "util/bytes.h"

namespace {

using anthro::Bytes;
using anthro::ByteView;
using anthro::Key32;
using anthro::Suite;
using Clock = std::chrono::steady_clock;
using Nonce = std::array<std::uint8_t, anthro::kNonceSize>;

constexpr std::uint64_t kToken = 0x0123456789abcdefULL;
constexpr std::size_t kSealedOffset = anthro::kHeaderSize + anthro::kNonceSize;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "codec_bench: %s\n", what.c_str());
  std::exit(1);
}

// ---- timing ----

struct Timing {
  double warm_s;
  double batch_s;
  int batches;
};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

template <class Fn>
double run_for(Fn& fn, std::int64_t iters) {
  auto start = Clock::now();
  for (std::int64_t i = 0; i < iters; ++i) fn();
  return seconds_since(start);
}

// Warms up and returns how many calls fill one batch, so batches read the clock only twice.
template <class Fn>
std::int64_t batch_size(Fn& fn, const Timing& t) {
  std::int64_t iters = 1, done = 0;
  double spent = 0;
  while (spent < t.warm_s) {
    spent += run_for(fn, iters);
    done += iters;
    iters *= 2;
  }
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(done / spent * t.batch_s));
}

double mbps(std::size_t bytes, std::int64_t iters, double seconds) {
  return static_cast<double>(bytes) * static_cast<double>(iters) / seconds / 1e6;
}

struct Pair {
  double a = 0, b = 0;
};

// Batches of the two sides alternate so a change in machine load hits both alike.
template <class A, class B>
Pair measure_pair(A& a, B& b, std::size_t bytes, const Timing& t) {
  std::int64_t na = batch_size(a, t), nb = batch_size(b, t);
  Pair best;
  for (int i = 0; i < t.batches; ++i) {
    best.a = std::max(best.a, mbps(bytes, na, run_for(a, na)));
    best.b = std::max(best.b, mbps(bytes, nb, run_for(b, nb)));
  }
  return best;
}

// ---- the raw reference: one EVP context per direction, key set once ----

struct CtxFree {
  void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};
using CtxPtr = std::unique_ptr<EVP_CIPHER_CTX, CtxFree>;

const EVP_CIPHER* cipher_for(Suite suite) {
  return suite == Suite::Aes256Gcm ? EVP_aes_256_gcm() : EVP_chacha20_poly1305();
}

CtxPtr make_ctx(Suite suite, const Key32& key, int encrypt) {
  CtxPtr ctx(EVP_CIPHER_CTX_new());
  if (!ctx || EVP_CipherInit_ex(ctx.get(), cipher_for(suite), nullptr, key.data(), nullptr,
                                encrypt) != 1)
    fail("cannot set up the raw EVP context");
  return ctx;
}

class RawAead {
 public:
  RawAead(Suite suite, const Key32& key) : enc_(make_ctx(suite, key, 1)), dec_(make_ctx(suite, key, 0)) {}

  // Writes ciphertext then the tag to `out`, like the codec's sealed part.
  bool seal(const std::uint8_t* nonce, const std::uint8_t* aad, ByteView pt, std::uint8_t* out) {
    EVP_CIPHER_CTX* c = enc_.get();
    int len = 0;
    return EVP_EncryptInit_ex(c, nullptr, nullptr, nullptr, nonce) == 1 &&
           EVP_EncryptUpdate(c, nullptr, &len, aad, anthro::kHeaderSize) == 1 &&
           EVP_EncryptUpdate(c, out, &len, pt.data(), static_cast<int>(pt.size())) == 1 &&
           EVP_EncryptFinal_ex(c, out + len, &len) == 1 &&
           EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, anthro::kTagSize, out + pt.size()) == 1;
  }

  bool open(const std::uint8_t* nonce, const std::uint8_t* aad, ByteView sealed, std::uint8_t* out) {
    EVP_CIPHER_CTX* c = dec_.get();
    int ct_len = static_cast<int>(sealed.size() - anthro::kTagSize);
    int len = 0;
    // OpenSSL only reads the tag, but takes a non-const pointer.
    auto* tag = const_cast<std::uint8_t*>(sealed.data() + ct_len);
    return EVP_DecryptInit_ex(c, nullptr, nullptr, nullptr, nonce) == 1 &&
           EVP_DecryptUpdate(c, nullptr, &len, aad, anthro::kHeaderSize) == 1 &&
           EVP_DecryptUpdate(c, out, &len, sealed.data(), ct_len) == 1 &&
           EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, anthro::kTagSize, tag) == 1 &&
           EVP_DecryptFinal_ex(c, out + len, &len) == 1;
  }

 private:
  CtxPtr enc_, dec_;
};

// ---- one case: a suite and a payload size ----

struct Case {
  Suite suite;
  std::size_t size;
  std::string name;  // "aes-256-gcm-16KiB"
};

std::string size_name(std::size_t size) {
  return size >= 1024 ? std::to_string(size / 1024) + "KiB" : std::to_string(size) + "B";
}

Key32 test_key() {
  Key32 key{};
  for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::uint8_t>(0xA0 + i);
  return key;
}

Bytes test_plaintext(std::size_t size) {
  Bytes pt(size);
  for (std::size_t i = 0; i < size; ++i) pt[i] = static_cast<std::uint8_t>(i * 31 + 7);
  return pt;
}

Nonce fixed_nonce() {
  Nonce n{};
  for (std::size_t i = 0; i < n.size(); ++i) n[i] = static_cast<std::uint8_t>(0x10 + i);
  return n;
}

Bytes codec_frame(anthro::Aead& aead, ByteView pt) {
  return anthro::seal_frame(aead, anthro::FrameType::Response, 0, kToken, fixed_nonce(), pt);
}

bool same(ByteView a, ByteView b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

// The codec and the raw loop must do the same AEAD work, else the ratio means nothing.
void check_same_work(const Case& c) {
  Key32 key = test_key();
  anthro::Aead aead(c.suite, key);
  RawAead raw(c.suite, key);
  Bytes pt = test_plaintext(c.size);
  Bytes frame = codec_frame(aead, pt);
  Bytes opened;
  if (!anthro::open_frame(aead, frame, opened) || !same(opened, pt))
    fail(c.name + ": the codec does not open its own frame to the plaintext");

  Bytes raw_sealed(c.size + anthro::kTagSize);
  if (!raw.seal(fixed_nonce().data(), frame.data(), pt, raw_sealed.data()) ||
      !same(raw_sealed, ByteView(frame).subspan(kSealedOffset)))
    fail(c.name + ": raw EVP ciphertext and tag differ from the codec's");
  Bytes raw_opened(c.size);
  if (!raw.open(fixed_nonce().data(), frame.data(), raw_sealed, raw_opened.data()) ||
      !same(raw_opened, pt))
    fail(c.name + ": raw EVP does not open the codec's ciphertext");

  frame.back() ^= 1;  // a bad tag must be refused, so open really verifies
  if (anthro::open_frame(aead, frame, opened)) fail(c.name + ": the codec accepted a bad tag");
}

// libsodium against raw EVP ChaCha20-Poly1305 on the same key, nonce and AAD.
void check_sodium(std::size_t size) {
  Key32 key = test_key();
  RawAead raw(Suite::ChaCha20Poly1305, key);
  Bytes pt = test_plaintext(size), aad(anthro::kHeaderSize, 0x5A);
  Bytes a(size + anthro::kTagSize), b(size + anthro::kTagSize);
  unsigned long long len = 0;
  crypto_aead_chacha20poly1305_ietf_encrypt(b.data(), &len, pt.data(), pt.size(), aad.data(),
                                            aad.size(), nullptr, fixed_nonce().data(), key.data());
  if (!raw.seal(fixed_nonce().data(), aad.data(), pt, a.data()) || !same(a, b))
    fail("libsodium and raw EVP ChaCha20-Poly1305 disagree");
}

struct Figures {
  Pair seal;  // a = codec, b = raw
  Pair open;
};

Figures measure_case(const Case& c, const Timing& t) {
  Key32 key = test_key();
  anthro::Aead aead(c.suite, key);
  RawAead raw(c.suite, key);
  Bytes pt = test_plaintext(c.size);
  const Bytes frame = codec_frame(aead, pt);
  const std::uint8_t* header = frame.data();
  ByteView sealed = ByteView(frame).subspan(kSealedOffset);

  anthro::NonceSequence nonces;
  Bytes out, opened;
  out.reserve(frame.size());
  auto codec_seal = [&] {
    out.clear();
    anthro::seal_frame(aead, anthro::FrameType::Response, 0, kToken, nonces.next(), pt, out);
  };
  auto codec_open = [&] {
    if (!anthro::open_frame(aead, frame, opened)) fail(c.name + ": codec open failed");
  };

  Nonce nonce = fixed_nonce();
  std::uint64_t counter = 0;
  Bytes raw_out(sealed.size()), raw_pt(c.size);
  // A fresh nonce per message, as the codec's NonceSequence gives.
  auto raw_seal = [&] {
    anthro::store_u64(nonce.data() + 4, ++counter);
    if (!raw.seal(nonce.data(), header, pt, raw_out.data())) fail(c.name + ": raw seal failed");
  };
  auto raw_open = [&] {
    if (!raw.open(frame.data() + anthro::kHeaderSize, header, sealed, raw_pt.data()))
      fail(c.name + ": raw open failed");
  };
  return {measure_pair(codec_seal, raw_seal, c.size, t),
          measure_pair(codec_open, raw_open, c.size, t)};
}

// a = libsodium, b = raw EVP, interleaved like the codec figures.
Pair measure_sodium(std::size_t size, const Timing& t) {
  Key32 key = test_key();
  RawAead raw(Suite::ChaCha20Poly1305, key);
  Bytes pt = test_plaintext(size), aad(anthro::kHeaderSize, 0x5A);
  Bytes out(size + anthro::kTagSize);
  Nonce nonce = fixed_nonce();
  std::uint64_t counter = 0;
  unsigned long long len = 0;
  auto sodium_seal = [&] {
    anthro::store_u64(nonce.data() + 4, ++counter);
    crypto_aead_chacha20poly1305_ietf_encrypt(out.data(), &len, pt.data(), pt.size(), aad.data(),
                                              aad.size(), nullptr, nonce.data(), key.data());
  };
  auto raw_seal = [&] {
    anthro::store_u64(nonce.data() + 4, ++counter);
    if (!raw.seal(nonce.data(), aad.data(), pt, out.data())) fail("raw chacha seal failed");
  };
  return measure_pair(sodium_seal, raw_seal, size, t);
}

// ---- output ----

double rounded(double v, int digits) {
  double scale = std::pow(10.0, digits);
  return std::round(v * scale) / scale;
}

struct Row {
  Case c;
  Figures f;
};

void print_table(const std::vector<Row>& rows, Pair sodium, const Timing& t) {
  std::printf("anthro-v1 codec vs raw OpenSSL EVP (%s, libsodium %s)\n",
              OpenSSL_version(OPENSSL_VERSION), sodium_version_string());
  std::printf("MB/s of payload (1 MB = 10^6 B), best of %d batches of %.0f ms\n\n", t.batches,
              t.batch_s * 1e3);
  std::printf("%-18s %6s %5s %12s %12s %9s\n", "suite", "size", "dir", "codec MB/s", "raw MB/s",
              "codec/raw");
  for (const Row& r : rows) {
    std::string suite(anthro::to_string(r.c.suite)), size = size_name(r.c.size);
    for (auto [dir, p] : {std::pair{"seal", r.f.seal}, std::pair{"open", r.f.open}})
      std::printf("%-18s %6s %5s %12.1f %12.1f %9.3f\n", suite.c_str(), size.c_str(), dir, p.a,
                  p.b, p.a / p.b);
  }
  std::printf("\nlibsodium chacha20-poly1305-ietf 16KiB seal: %.1f MB/s; raw OpenSSL EVP in the "
              "same interleaved run: %.1f MB/s (libsodium/OpenSSL %.3f)\n",
              sodium.a, sodium.b, sodium.a / sodium.b);
}

void print_json(const std::vector<Row>& rows, Pair sodium) {
  nlohmann::json figures = nlohmann::json::object(), ratios = nlohmann::json::object();
  for (const Row& r : rows) {
    for (auto [dir, p] : {std::pair{"seal", r.f.seal}, std::pair{"open", r.f.open}}) {
      std::string key = r.c.name + "-" + dir;
      figures[key + "-MBps"] = rounded(p.a, 1);
      figures[key + "-raw-MBps"] = rounded(p.b, 1);
      ratios[key] = rounded(p.a / p.b, 3);
    }
    // The lower direction: the codec is only as close to raw as its worse side.
    ratios[r.c.name] = std::min(ratios[r.c.name + "-seal"].get<double>(),
                                ratios[r.c.name + "-open"].get<double>());
  }
  figures["chacha20-poly1305-16KiB-seal-sodium-MBps"] = rounded(sodium.a, 1);
  nlohmann::json doc = {{"figures", figures}, {"ratios", ratios}};
  std::printf("%s\n", doc.dump().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  anthro::bench::BenchArgs opt = anthro::bench::parse_bench_args(argc, argv, "codec_bench");
  if (sodium_init() < 0) fail("libsodium failed to initialise");
  Timing timing = opt.quick ? Timing{0.003, 0.02 / 3, 3} : Timing{0.03, 0.1, 3};

  std::vector<Case> cases;
  for (Suite suite : {Suite::Aes256Gcm, Suite::ChaCha20Poly1305})
    for (std::size_t size : {std::size_t{256}, std::size_t{16384}})
      cases.push_back({suite, size, std::string(anthro::to_string(suite)) + "-" + size_name(size)});

  for (const Case& c : cases) check_same_work(c);
  check_sodium(16384);

  std::vector<Row> rows;
  for (const Case& c : cases) rows.push_back({c, measure_case(c, timing)});
  Pair sodium = measure_sodium(16384, timing);

  if (opt.json)
    print_json(rows, sodium);
  else
    print_table(rows, sodium, timing);
  return 0;
}
