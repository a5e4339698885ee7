// A self-signed P-256 identity and ALPN choices (anthro-v1, http/1.1) for TLS made in memory
// by tests and benchmarks (no files, no network).
#pragma once

#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

namespace anthro::test {

struct TlsTestIdentity {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* cert = X509_new();
  TlsTestIdentity() {
    X509_set_version(cert, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), 0);
    X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
    X509_set_pubkey(cert, key);
    X509_NAME* name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1,
                               -1, 0);
    X509_set_issuer_name(cert, name);
    X509_sign(cert, key, EVP_sha256());
  }
  ~TlsTestIdentity() {
    X509_free(cert);
    EVP_PKEY_free(key);
  }
  TlsTestIdentity(const TlsTestIdentity&) = delete;
  TlsTestIdentity& operator=(const TlsTestIdentity&) = delete;
};

// Selects the protocol of `ours` (ALPN wire format: a length byte, then the name) when the
// client offers it, else none.
inline int select_alpn(const unsigned char* ours, unsigned ours_len, const unsigned char** out, unsigned char* outlen,
                       const unsigned char* in, unsigned inlen) {
  unsigned char* sel = nullptr;
  if (SSL_select_next_proto(&sel, outlen, ours, ours_len, in, inlen) != OPENSSL_NPN_NEGOTIATED) return SSL_TLSEXT_ERR_NOACK;
  *out = sel;
  return SSL_TLSEXT_ERR_OK;
}

// SSL_CTX_set_alpn_select_cb callbacks: anthro-v1 when offered; http/1.1 (a server of HTTP/1.1
// only), else none.
inline int select_anthro_alpn(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                              unsigned inlen, void*) {
  static const unsigned char ours[] = "\x09" "anthro-v1";
  return select_alpn(ours, sizeof ours - 1, out, outlen, in, inlen);
}

inline int select_http1_alpn(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                             unsigned inlen, void*) {
  static const unsigned char ours[] = "\x08" "http/1.1";
  return select_alpn(ours, sizeof ours - 1, out, outlen, in, inlen);
}

}  // namespace anthro::test
