// What "no English sentence" means for a text rendered in 简体中文: no run of three or more
// English words in a row. A word is a token of ASCII letters (an apostrophe allowed), lowercase
// or capitalised; ids, names and units are not words: anything with a digit, '-', '_', '/', '='
// or '.' inside (anthro-v1, server-stall, retry_after_ms), an acronym in capitals (TTFT,
// RESPONSE), a CamelCase name (OpenSSL, TextDecoder), and the units ms, s, B.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace anthro::test {

inline bool english_word(std::string_view token) {
  // Punctuation around a word does not make it a name: "(have", "requests:".
  const std::string_view edges = "()[]{},.;:!?\"'";
  while (!token.empty() && edges.find(token.front()) != std::string_view::npos) token.remove_prefix(1);
  while (!token.empty() && edges.find(token.back()) != std::string_view::npos) token.remove_suffix(1);
  if (token.empty() || token == "ms" || token == "s" || token == "B") return false;
  for (char c : token)
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != '\'') return false;
  bool later_capital = std::any_of(token.begin() + 1, token.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); });
  return !later_capital;  // "TTFT", "OpenSSL": a name
}

// The first run of `min_run` or more English words in `text`, or "" when there is none. Tokens
// are split at ASCII spaces; a token holding any other byte (Chinese) is no word.
inline std::string english_run(std::string_view text, std::size_t min_run = 3) {
  std::vector<std::string_view> run;
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t end = text.find_first_of(" \t\n", at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view token = text.substr(at, end - at);
    if (!token.empty()) {
      if (english_word(token)) {
        run.push_back(token);
      } else {
        if (run.size() >= min_run) break;
        run.clear();
      }
    }
    at = end + 1;
  }
  if (run.size() < min_run) return {};
  std::string out;
  for (auto w : run) out += (out.empty() ? "" : " ") + std::string(w);
  return out;
}

}  // namespace anthro::test
