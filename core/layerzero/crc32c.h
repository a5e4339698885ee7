// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78, init and xorout 0xFFFFFFFF): the
// checksum that ends every Layer Zero DataFrame (../shared/spec/profiles/layer-zero.md).
#pragma once

#include <cstdint>

#include "util/bytes.h"

namespace anthro::lz {

inline constexpr std::uint32_t kCrc32cCheck = 0xE3069283;  // of "123456789"

std::uint32_t crc32c(ByteView data);
// The CRC of a message continued by `more`, from the finished CRC of its start (0 for an empty
// start): crc32c(a ‖ b) == crc32c_extend(crc32c(a), b). For bytes that arrive in pieces.
std::uint32_t crc32c_extend(std::uint32_t crc, ByteView more);

}  // namespace anthro::lz
