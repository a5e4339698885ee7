#include "util/json.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace anthro {

namespace {

// Whether any of the eight bytes at `p` is below 0x20, '"' or '\\' (the classic "has a byte less
// than" and "has a zero byte" word tricks, exact as a yes/no): texts are mostly plain, and one
// test a word is a quarter of the work of one a byte.
bool word_needs_escape(const char* p) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  std::uint64_t w;
  std::memcpy(&w, p, sizeof w);
  auto has_zero = [](std::uint64_t x) { return (x - kOnes) & ~x & kHighs; };
  return (((w - kOnes * 0x20) & ~w & kHighs) | has_zero(w ^ (kOnes * '"')) | has_zero(w ^ (kOnes * '\\'))) != 0;
}

#if defined(__SSE2__)
// The same test sixteen bytes at a time (SSE2 is x86-64's baseline): a stream's text of a few
// KiB is escaped in a few hundred steps.
bool block_needs_escape(const char* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i below_space = _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(0x1F)), _mm_set1_epi8(0x1F));
  const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
  const __m128i backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
  return _mm_movemask_epi8(_mm_or_si128(below_space, _mm_or_si128(quote, backslash))) != 0;
}
#endif

// The end of the run of plain bytes from `i`, in steps of a block or a word (it may stop short,
// at a block or word that holds an escape).
std::size_t skip_plain(std::string_view text, std::size_t i) {
#if defined(__SSE2__)
  while (i + 16 <= text.size() && !block_needs_escape(text.data() + i)) i += 16;
#endif
  while (i + 8 <= text.size() && !word_needs_escape(text.data() + i)) i += 8;
  return i;
}

}  // namespace

void append_json_escaped(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::size_t run = 0;  // start of the bytes not yet copied
  for (std::size_t i = 0; i < text.size(); ++i) {
    i = skip_plain(text, i);
    if (i == text.size()) break;
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(text, run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: out += "\\u00"; out += kHex[c >> 4]; out += kHex[c & 15];
    }
  }
  out.append(text, run, text.size() - run);
}

std::optional<std::size_t> json_too_deep_at(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

namespace {

// nlohmann's message without its "[json.exception...] parse error at line L, column C: "
// prefix and the "last read" token (which may be long or raw).
std::string syntax_reason(const std::string& what) {
  auto bracket = what.find("] ");
  std::string reason = bracket == std::string::npos ? what : what.substr(bracket + 2);
  if (reason.rfind("parse error", 0) == 0 && reason.find(": ") != std::string::npos)
    reason = reason.substr(reason.find(": ") + 2);
  return reason.substr(0, std::min(reason.find("; last read"), std::size_t{120}));
}

template <class Json>
Result<Json> parse_with_limit(std::string_view text, const typename Json::parser_callback_t& callback = nullptr) {
  if (auto at = json_too_deep_at(text))
    return make_error(ErrorClass::Input, "json",
                      "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels at byte " + std::to_string(*at));
  try {
    return Json::parse(text, callback);
  } catch (const nlohmann::json::parse_error& e) {
    return make_error(ErrorClass::Input, "json",
                      "not valid JSON at byte " + std::to_string(e.byte > 0 ? e.byte - 1 : 0) + ": " + syntax_reason(e.what()));
  } catch (const nlohmann::json::exception& e) {  // a number out of range (406)
    return make_error(ErrorClass::Input, "json", "not valid JSON: " + syntax_reason(e.what()));
  }
}

}  // namespace

Result<nlohmann::json> parse_json(std::string_view text) { return parse_with_limit<nlohmann::json>(text); }
Result<nlohmann::json> parse_json(std::string_view text, const nlohmann::json::parser_callback_t& callback) {
  return parse_with_limit<nlohmann::json>(text, callback);
}
Result<nlohmann::ordered_json> parse_ordered_json(std::string_view text) {
  return parse_with_limit<nlohmann::ordered_json>(text);
}

nlohmann::json parse_or_null(std::string_view text) {
  auto doc = parse_json(text);
  return doc ? std::move(*doc) : nlohmann::json();
}

}  // namespace anthro
