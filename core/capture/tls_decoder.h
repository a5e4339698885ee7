// Passive TLS decryption of a captured connection from NSS key log secrets (SSLKEYLOGFILE).
// The caller feeds each direction's reassembled TCP bytes; application data comes out in order.
//
// Feed the two directions interleaved in arrival order: keys for one direction depend on the
// other's handshake (the client's records can only be opened once the ServerHello is known), and
// only one record per direction is buffered, so memory stays at about 2 x (16 KiB + overhead).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crypto/keyring.h"
#include "util/bytes.h"

namespace anthro {

namespace tls {
struct CipherSuite;
}

struct TlsHandshakeInfo {
  Bytes client_random;
  std::vector<std::string> alpn_offered;  // ClientHello ALPN list
  // From ServerHello (1.2) or the decrypted EncryptedExtensions (1.3); empty if none.
  std::string alpn_selected;
  std::string version;       // "TLSv1.3" / "TLSv1.2"
  std::string cipher_suite;  // IANA name, e.g. "TLS_AES_256_GCM_SHA384"
  // Extension 0xFFA1 in the ClientHello (the anthro-v1 negotiation offer), empty if absent.
  Bytes extension_offer;
  // Extension 0xFFA1 in EncryptedExtensions (1.3) / ServerHello (1.2).
  Bytes extension_answer;
  // When the handshake's last Finished arrived (TLS 1.3: the client's; 1.2: the server's, in a
  // full handshake): the completion time of the record carrying it. Needs the secrets.
  std::optional<double> finished_ts;
};

// Looks a secret up by NSS key log label and client_random (32 bytes); nullopt when unknown.
using TlsSecretLookup =
    std::function<std::optional<Bytes>(std::string_view label, ByteView client_random)>;

class TlsDecoder {
 public:
  struct Events {
    // Once the handshake info is complete: after EncryptedExtensions (1.3), ServerHello (1.2).
    std::function<void(const TlsHandshakeInfo&)> on_handshake;
    // In order; ts is the arrival time of the last byte of the record carrying the data.
    std::function<void(Direction, ByteView plaintext, double ts)> on_application_data;
  };

  TlsDecoder(TlsSecretLookup secrets, Events events);
  ~TlsDecoder();
  TlsDecoder(const TlsDecoder&) = delete;
  TlsDecoder& operator=(const TlsDecoder&) = delete;

  void feed(Direction dir, ByteView bytes, double ts);
  // End of capture: a record still incomplete is dropped.
  void finish();

  // "ok" once application data was decrypted and nothing failed; else the first failure:
  // "not TLS", "no ClientHello seen", "no secret for this client_random",
  // "tag mismatch (client_to_server record N)" (N counts that direction's records from 1),
  // "unsupported suite TLS_…", "unsupported version …", "malformed …"; or, with no failure,
  // what is still missing ("no ServerHello seen", "no application data").
  std::string status() const;
  bool decrypted() const { return failure_.empty() && app_data_seen_; }  // status() is "ok"
  const TlsHandshakeInfo& handshake() const { return info_; }

 private:
  struct Side;

  Side& side(Direction dir) { return *sides_[dir == Direction::ClientToServer ? 0 : 1]; }
  void take_record_bytes(Side& s, ByteView& bytes, double ts);
  bool header_plausible(ByteView header_so_far) const;
  void process_record(Side& s, ByteView record);
  void process_plain(Side& s, std::uint8_t type, ByteView fragment);
  bool open_record(Side& s, ByteView record, Bytes& content, std::uint8_t& type);
  void dispatch(Side& s, std::uint8_t type, ByteView content);
  void on_handshake_message(Side& s, std::uint8_t type, ByteView body, bool complete);
  void on_client_hello(ByteView body);
  void on_server_hello(ByteView body);
  void on_encrypted_extensions(ByteView body);
  void setup_tls13();
  void setup_tls12();
  bool install_tls13_secret(Side& s, std::string_view label);
  bool install_tls13_key(Side& s, const Bytes& secret);
  void report_handshake();
  void fail(Side& s, const std::string& reason);
  void fail_all(const std::string& reason);

  TlsSecretLookup secrets_;
  Events events_;
  TlsHandshakeInfo info_;
  std::unique_ptr<Side> sides_[2];
  const tls::CipherSuite* suite_ = nullptr;
  Bytes server_random_;
  bool client_hello_seen_ = false;
  bool server_hello_seen_ = false;
  bool tls13_ = false;
  bool handshake_reported_ = false;
  bool app_data_seen_ = false;
  std::string failure_;
};

}  // namespace anthro
