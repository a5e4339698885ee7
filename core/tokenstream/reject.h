// Why the token-stream profile (../shared/spec/profiles/token-stream.md) refuses a body
// or a header, spelt as the profile's vectors spell it, and a result that carries the refusal.
#pragma once

#include <cstddef>
#include <string>

#include "util/result.h"

namespace anthro {

enum class TokenStreamReject {
  Alignment,      // the body's length is not a multiple of 4
  PaddingInside,  // a non-zero token id after padding (id 0)
  ContextId,      // X-Claude-Context-ID is not a plain decimal u64
};

// "alignment", "padding-inside", "context-id"
inline const char* to_string(TokenStreamReject reason) {
  switch (reason) {
    case TokenStreamReject::Alignment: return "alignment";
    case TokenStreamReject::PaddingInside: return "padding-inside";
    case TokenStreamReject::ContextId: return "context-id";
  }
  return "alignment";
}

struct TokenStreamRejection {
  TokenStreamReject reason = TokenStreamReject::Alignment;
  std::size_t offset = 0;  // the byte of the body or header where it goes wrong
  std::string detail;      // for a person
};

// For callers that carry the project's Result: the reason's name, class Input.
inline Error to_error(const TokenStreamRejection& r) {
  return make_error(ErrorClass::Input, to_string(r.reason), r.detail);
}

// A value or its rejection.
template <class T>
using TokenStreamResult = Result<T, TokenStreamRejection>;

}  // namespace anthro
