#include "net/tls.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <algorithm>
#include <memory>

#include "crypto/key_schedule.h"
#include "crypto/keylog.h"
#include "net/tls_record_writer.h"
#include "protocol/blob.h"
#include "util/files.h"

namespace anthro {
namespace {

constexpr unsigned kExtContexts =
    SSL_EXT_CLIENT_HELLO | SSL_EXT_TLS1_2_SERVER_HELLO | SSL_EXT_TLS1_3_ENCRYPTED_EXTENSIONS;

int ssl_index() {
  static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

// The key log sink lives with the SSL_CTX (and whoever else holds it) and is let go with it.
void free_keylog_sink(void*, void* ptr, CRYPTO_EX_DATA*, int, long, void*) {
  delete static_cast<std::shared_ptr<KeyLogSink>*>(ptr);
}

int ctx_keylog_index() {
  static const int index = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, free_keylog_sink);
  return index;
}

ExtensionState* state_of(SSL* s) { return static_cast<ExtensionState*>(SSL_get_ex_data(s, ssl_index())); }

Error tls_error(const std::string& what) { return make_error("tls", what + ": " + openssl_error()); }

// Client: the offer goes into the ClientHello. Server: the answer into EncryptedExtensions
// (ServerHello in TLS 1.2), only when anthro-v1 was selected and the offer was accepted.
int add_extension(SSL* s, unsigned, unsigned context, const unsigned char** out, size_t* outlen, X509*,
                  size_t, int*, void*) {
  ExtensionState* st = state_of(s);
  if (!st) return 0;
  const Bytes& blob = context == SSL_EXT_CLIENT_HELLO ? st->offer : st->answer;
  if (blob.empty()) return 0;
  if (context != SSL_EXT_CLIENT_HELLO && selected_alpn(s) != kAlpnAnthro) return 0;
  *out = blob.data();
  *outlen = blob.size();
  return 1;
}

int parse_extension(SSL* s, unsigned, unsigned context, const unsigned char* in, size_t inlen, X509*,
                    size_t, int* al, void*) {
  ExtensionState* st = state_of(s);
  if (!st) return 1;
  ByteView data(in, inlen);
  if (context == SSL_EXT_CLIENT_HELLO) {
    st->offer.assign(data.begin(), data.end());
    if (!st->answer_offer) return 1;
    auto answer = st->answer_offer(data);
    if (!answer) {
      st->refusal = answer.error().reason + ": " + answer.error().detail;
      *al = SSL_AD_ILLEGAL_PARAMETER;
      return 0;
    }
    st->answer = std::move(*answer);
    return 1;
  }
  st->answer.assign(data.begin(), data.end());
  auto offer = decode_blob(st->offer);
  if (!offer) return 1;
  if (auto refusal = check_answer(*offer, data)) {
    st->refusal = std::string(to_string(refusal->reason)) + ": " + refusal->detail;
    *al = SSL_AD_ILLEGAL_PARAMETER;
    return 0;
  }
  return 1;
}

bool register_extension(SSL_CTX* ctx) {
  return SSL_CTX_add_custom_ext(ctx, kNegotiationExtension, kExtContexts, add_extension, nullptr, nullptr,
                                parse_extension, nullptr) == 1;
}

// What the server selects, as its callback reads it from the context.
struct AlpnChoice {
  std::vector<std::string> preference, passed_over;
  Bytes fallback;  // length-prefixed, as on the wire
};

void free_alpn_choice(void*, void* ptr, CRYPTO_EX_DATA*, int, long, void*) { delete static_cast<AlpnChoice*>(ptr); }

int ctx_alpn_index() {
  static const int index = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, free_alpn_choice);
  return index;
}

// Where `id` stands in `ids`; ids.size() when absent.
std::size_t rank_of(const std::vector<std::string>& ids, std::string_view id) {
  return static_cast<std::size_t>(std::ranges::find(ids, id) - ids.begin());
}

// The offered id (length-prefixed, as on the wire) the server prefers, or nullptr.
const unsigned char* preferred_alpn(const unsigned char* in, unsigned inlen, const std::vector<std::string>& ids) {
  const unsigned char* best = nullptr;
  std::size_t best_rank = ids.size();
  for (unsigned i = 0; i < inlen && i + 1 + in[i] <= inlen; i += 1 + in[i]) {
    const std::size_t rank = rank_of(ids, std::string_view(reinterpret_cast<const char*>(in + i + 1), in[i]));
    if (rank < best_rank) {
      best = in + i;
      best_rank = rank;
    }
  }
  return best;
}

int select_alpn(SSL* ssl, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                unsigned inlen, void*) {
  const auto* choice = static_cast<const AlpnChoice*>(SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), ctx_alpn_index()));
  if (!choice) return SSL_TLSEXT_ERR_ALERT_FATAL;
  const unsigned char* chosen = preferred_alpn(in, inlen, choice->preference);
  if (!chosen && !choice->fallback.empty() && preferred_alpn(in, inlen, choice->passed_over))
    chosen = choice->fallback.data();
  if (!chosen) return SSL_TLSEXT_ERR_ALERT_FATAL;
  *out = chosen + 1;
  *outlen = chosen[0];
  return SSL_TLSEXT_ERR_OK;
}

int ssl_secret_index() {
  static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

void write_keylog(const SSL* s, const char* line) {
  auto* sink = static_cast<std::shared_ptr<KeyLogSink>*>(SSL_CTX_get_ex_data(SSL_get_SSL_CTX(s), ctx_keylog_index()));
  if (sink && *sink) (*sink)->append(line);  // an error is kept by the sink, for its run's warning
}

// The secret this side's TLS 1.3 application records go under, for a stream watching for it.
void keep_sending_secret(const SSL* s, std::string_view line) {
  auto* into = static_cast<net::TrafficSecret*>(SSL_get_ex_data(s, ssl_secret_index()));
  if (!into || !line.starts_with(SSL_is_server(s) ? "SERVER_TRAFFIC_SECRET_0 " : "CLIENT_TRAFFIC_SECRET_0 ")) return;
  auto secret = from_hex(line.substr(line.rfind(' ') + 1));  // LABEL client_random secret
  if (!secret) return;
  into->clear();
  if (secret->size() <= into->bytes.size()) {
    std::copy(secret->begin(), secret->end(), into->bytes.begin());
    into->size = secret->size();
  }
  OPENSSL_cleanse(secret->data(), secret->size());
}

// Every key-log line OpenSSL makes: to the key log asked for (--keylog), if any, to the
// stream that seals its own records, and a client's to the process's own record for a capture
// watching it. Never replaced: a context has this one callback.
void on_keylog(const SSL* s, const char* line) {
  write_keylog(s, line);
  keep_sending_secret(s, line);
  if (!SSL_is_server(s)) OwnKeyLog::record(line);
}

Bytes alpn_wire(const std::vector<std::string>& protocols) {
  Bytes wire;
  for (const auto& p : protocols) {
    wire.push_back(static_cast<std::uint8_t>(p.size()));
    append(wire, as_bytes(p));
  }
  return wire;
}

}  // namespace

void attach_extension(SSL* ssl, ExtensionState* state) { SSL_set_ex_data(ssl, ssl_index(), state); }

namespace {

using Bio = std::unique_ptr<BIO, decltype(&BIO_free)>;

// A PEM file read by the bounded reader, for OpenSSL to parse from memory: its own file loaders
// would wait on a FIFO and read /dev/zero without end.
Result<Bio> pem_bio(const std::string& path, const FileLimit& limit) {
  auto text = read_file(path, limit);
  if (!text) return text.error();
  Bio bio(BIO_new(BIO_s_mem()), BIO_free);
  if (!bio || BIO_write(bio.get(), text->data(), static_cast<int>(text->size())) != static_cast<int>(text->size()))
    return tls_error(path + ": cannot buffer");
  return bio;
}

// The leaf certificate, then the chain after it, as SSL_CTX_use_certificate_chain_file does.
Result<bool> use_certificate_chain(SSL_CTX* ctx, const std::string& path) {
  auto bio = pem_bio(path, file_limit::kCertificates);
  if (!bio) return bio.error();
  std::unique_ptr<X509, decltype(&X509_free)> leaf(PEM_read_bio_X509_AUX(bio->get(), nullptr, nullptr, nullptr), X509_free);
  if (!leaf || SSL_CTX_use_certificate(ctx, leaf.get()) != 1) return tls_error(path + ": cannot load the certificate");
  SSL_CTX_clear_chain_certs(ctx);
  while (X509* ca = PEM_read_bio_X509(bio->get(), nullptr, nullptr, nullptr))
    if (SSL_CTX_add0_chain_cert(ctx, ca) != 1) {
      X509_free(ca);
      return tls_error(path + ": cannot load the certificate chain");
    }
  ERR_clear_error();  // the loop ends on "no start line"
  return true;
}

Result<bool> use_private_key(SSL_CTX* ctx, const std::string& path) {
  auto bio = pem_bio(path, file_limit::kPemKey);
  if (!bio) return bio.error();
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(PEM_read_bio_PrivateKey(bio->get(), nullptr, nullptr, nullptr),
                                                          EVP_PKEY_free);
  if (!key || SSL_CTX_use_PrivateKey(ctx, key.get()) != 1) return tls_error(path + ": cannot load the TLS private key");
  return true;
}

// Every certificate of a PEM bundle trusted, as SSL_CTX_load_verify_locations(ctx, path) does.
Result<bool> load_ca_file(SSL_CTX* ctx, const std::string& path) {
  auto bio = pem_bio(path, file_limit::kCertificates);
  if (!bio) return bio.error();
  STACK_OF(X509_INFO)* infos = PEM_X509_INFO_read_bio(bio->get(), nullptr, nullptr, nullptr);
  if (!infos) return tls_error(path + ": cannot load CA");
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  int added = 0;
  for (int i = 0; i < sk_X509_INFO_num(infos); ++i)
    if (X509* cert = sk_X509_INFO_value(infos, i)->x509; cert && X509_STORE_add_cert(store, cert) == 1) ++added;
  sk_X509_INFO_pop_free(infos, X509_INFO_free);
  if (added == 0) return tls_error(path + ": cannot load CA (no certificate in it)");
  return true;
}

}  // namespace

Result<bool> configure_server_tls(SSL_CTX* ctx, const ServerTlsConfig& config) {
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  if (auto ok = use_certificate_chain(ctx, config.cert_path); !ok) return ok.error();
  if (auto ok = use_private_key(ctx, config.key_path); !ok) return ok.error();
  if (SSL_CTX_check_private_key(ctx) != 1)
    return tls_error(config.key_path + ": the key does not match " + config.cert_path);
  auto choice = std::make_unique<AlpnChoice>(AlpnChoice{config.alpn, config.alpn_passed_over, {}});
  if (!config.alpn_fallback.empty()) choice->fallback = alpn_wire({config.alpn_fallback});
  delete static_cast<AlpnChoice*>(SSL_CTX_get_ex_data(ctx, ctx_alpn_index()));  // configured again
  if (SSL_CTX_set_ex_data(ctx, ctx_alpn_index(), choice.release()) != 1) return tls_error("cannot keep the ALPN choice");
  SSL_CTX_set_alpn_select_cb(ctx, select_alpn, nullptr);
  if (!register_extension(ctx)) return tls_error("cannot register the 0xFFA1 extension");
  SSL_CTX_set_keylog_callback(ctx, on_keylog);
  // No client of this endpoint resumes a session: TLS 1.3's two NewSessionTickets after every
  // handshake were work on both sides (a ticket sealed, a session copied) and a write a connection.
  SSL_CTX_set_num_tickets(ctx, 0);
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  return true;
}

namespace {

std::string local_endpoint_cert() {
  auto dir = data_dir();
  if (!dir) return {};
  std::string path = *dir + "/endpoint-cert.pem";
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? path : std::string();
}

}  // namespace

Result<bool> configure_client_tls(SSL_CTX* ctx, const ClientTlsConfig& config) {
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  if (config.insecure) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  } else {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    if (!config.ca_file.empty()) {
      if (auto ok = load_ca_file(ctx, config.ca_file); !ok) return ok.error();
    } else if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
      return tls_error("system store: cannot load CA");
    }
    // The local endpoint's own certificate is trusted without flags (cli.md), beside the system store.
    if (config.ca_file.empty())
      if (std::string cert = local_endpoint_cert(); !cert.empty()) (void)load_ca_file(ctx, cert);
  }
  Bytes wire = alpn_wire(config.alpn);
  if (!wire.empty() && SSL_CTX_set_alpn_protos(ctx, wire.data(), static_cast<unsigned>(wire.size())) != 0)
    return tls_error("cannot set ALPN");
  if (!register_extension(ctx)) return tls_error("cannot register the 0xFFA1 extension");
  if (config.keylog) SSL_CTX_set_ex_data(ctx, ctx_keylog_index(), new std::shared_ptr<KeyLogSink>(config.keylog));
  SSL_CTX_set_keylog_callback(ctx, on_keylog);
  return true;
}

bool watch_sending_secret(SSL* ssl, net::TrafficSecret* into) {
  SSL_CTX* ctx = SSL_get_SSL_CTX(ssl);
  auto logging = SSL_CTX_get_keylog_callback(ctx);
  // configure_*_tls set it before the context's first connection; only a context nobody
  // configured (a test's) is written here, by its first stream.
  if (!logging) SSL_CTX_set_keylog_callback(ctx, on_keylog);
  else if (logging != on_keylog) return false;
  return SSL_set_ex_data(ssl, ssl_secret_index(), into) == 1;
}

Result<bool> set_client_host(SSL* ssl, const std::string& host) {
  bool is_ip = host.find(':') != std::string::npos ||
               host.find_first_not_of("0123456789.") == std::string::npos;
  if (!is_ip) SSL_set_tlsext_host_name(ssl, host.c_str());
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
  int ok = is_ip ? X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str()) : X509_VERIFY_PARAM_set1_host(param, host.c_str(), 0);
  if (ok != 1) return tls_error(host + ": cannot set the name to verify");
  return true;
}

std::string selected_alpn(const SSL* ssl) {
  const unsigned char* data = nullptr;
  unsigned len = 0;
  SSL_get0_alpn_selected(ssl, &data, &len);
  return data ? std::string(reinterpret_cast<const char*>(data), len) : std::string();
}

std::string tls_suite_name(const SSL* ssl) {
  const SSL_CIPHER* cipher = SSL_get_current_cipher(ssl);
  return cipher ? SSL_CIPHER_standard_name(cipher) : "";
}

namespace {

struct PkeyFree { void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); } };
struct X509Free { void operator()(X509* x) const { X509_free(x); } };

bool add_ext(X509* cert, int nid, const char* value) {
  X509V3_CTX v3;
  X509V3_set_ctx(&v3, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &v3, nid, value);
  if (!ext) return false;
  bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

Result<std::pair<std::string, std::string>> make_self_signed() {
  std::unique_ptr<EVP_PKEY, PkeyFree> key(EVP_EC_gen("P-256"));
  std::unique_ptr<X509, X509Free> cert(X509_new());
  if (!key || !cert) return tls_error("cannot generate the endpoint key");
  X509_set_version(cert.get(), 2);
  std::uint8_t serial[8];
  random_bytes(serial, sizeof serial);
  serial[0] &= 0x7F;
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 10L * 365 * 24 * 3600);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("anthro-workbench local endpoint"), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  if (!add_ext(cert.get(), NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1") ||
      !add_ext(cert.get(), NID_basic_constraints, "critical,CA:FALSE") ||
      X509_sign(cert.get(), key.get(), EVP_sha256()) == 0)
    return tls_error("cannot sign the endpoint certificate");
  auto to_pem = [](auto write) {
    BIO* bio = BIO_new(BIO_s_mem());
    write(bio);
    char* data = nullptr;
    long len = BIO_get_mem_data(bio, &data);
    std::string out(data, static_cast<std::size_t>(len));
    BIO_free(bio);
    return out;
  };
  std::string cert_pem = to_pem([&](BIO* b) { PEM_write_bio_X509(b, cert.get()); });
  std::string key_pem = to_pem([&](BIO* b) {
    PEM_write_bio_PrivateKey(b, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  });
  return std::pair{cert_pem, key_pem};
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

Result<EndpointCredentials> ensure_endpoint_credentials(const std::string& dir) {
  EndpointCredentials c{dir + "/endpoint-cert.pem", dir + "/endpoint-key.pem", dir + "/server-static.pem"};
  if (!exists(c.cert_path) || !exists(c.key_path)) {
    auto pems = make_self_signed();
    if (!pems) return pems.error();
    if (auto w = write_file_atomic(c.key_path, pems->second, 0600); !w) return w.error();
    if (auto w = write_file_atomic(c.cert_path, pems->first, 0600); !w) return w.error();
  }
  if (!exists(c.server_key_path)) {
    auto w = write_file_atomic(c.server_key_path, x25519_private_to_pem(generate_x25519().private_key), 0600);
    if (!w) return w.error();
  }
  return c;
}

}  // namespace anthro
