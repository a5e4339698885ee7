// Every digest and checksum the workbench computes, in one place: SHA-256 through OpenSSL's EVP
// (credentials, a session token's fingerprint, a Context-Hash, a report's capture file) and
// CRC-32C (Castagnoli), the checksum some wire formats end their frames with.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "util/bytes.h"

namespace anthro {

Key32 sha256(ByteView bytes);
std::string sha256_hex(std::string_view bytes);  // lowercase, 64 digits

// SHA-256 of bytes that arrive in pieces (a file read in blocks).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(ByteView more);
  Key32 finish();

 private:
  struct Context;
  std::unique_ptr<Context> ctx_;
};

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78, init and xorout 0xFFFFFFFF).
inline constexpr std::uint32_t kCrc32cCheck = 0xE3069283;  // of "123456789"

std::uint32_t crc32c(ByteView data);
// The CRC of a message continued by `more`, from the finished CRC of its start (0 for an empty
// start): crc32c(a ‖ b) == crc32c_extend(crc32c(a), b). For bytes that arrive in pieces.
std::uint32_t crc32c_extend(std::uint32_t crc, ByteView more);

}  // namespace anthro
