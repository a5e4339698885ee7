// TLS handshake messages as a passive observer needs them: reassembly of messages across
// records, and the few fields of ClientHello, ServerHello and EncryptedExtensions it reads.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "util/bytes.h"

namespace anthro::tls {

inline constexpr std::uint8_t kClientHello = 1;
inline constexpr std::uint8_t kServerHello = 2;
inline constexpr std::uint8_t kEncryptedExtensions = 8;
inline constexpr std::uint8_t kFinished = 20;
inline constexpr std::uint8_t kKeyUpdate = 24;
inline constexpr std::uint16_t kAnthroExtension = 0xFFA1;

// Splits a handshake byte stream into messages, whatever the record boundaries. Bodies longer
// than the cap (certificate chains, say) are skipped rather than buffered: memory stays bounded
// and the observer reads nothing from them anyway. A skipped message is reported with
// `complete` false and an empty body.
class HandshakeReader {
 public:
  using Sink = std::function<void(std::uint8_t type, ByteView body, bool complete)>;
  static constexpr std::size_t kMaxBody = 64 * 1024;

  void feed(ByteView bytes, const Sink& sink);
  // True between messages: TLS 1.3 key changes must fall on a record boundary there.
  bool idle() const { return header_have_ == 0; }

 private:
  std::uint8_t header_[4]{};
  std::size_t header_have_ = 0;
  std::size_t remaining_ = 0;
  bool skipping_ = false;
  Bytes body_;
};

struct ClientHello {
  Bytes random;
  std::vector<std::string> alpn;
  Bytes anthro_offer;
};

struct ServerHello {
  Bytes random;
  std::uint16_t legacy_version = 0;
  std::uint16_t selected_version = 0;  // supported_versions, else legacy_version
  std::uint16_t cipher_suite = 0;
  std::string alpn;
  Bytes anthro_answer;
  bool hello_retry_request = false;
};

struct EncryptedExtensions {
  std::string alpn;
  Bytes anthro_answer;
};

// nullopt when the body is malformed.
std::optional<ClientHello> parse_client_hello(ByteView body);
std::optional<ServerHello> parse_server_hello(ByteView body);
std::optional<EncryptedExtensions> parse_encrypted_extensions(ByteView body);

std::string version_name(std::uint16_t version);

}  // namespace anthro::tls
