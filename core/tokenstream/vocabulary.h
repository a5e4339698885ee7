// A token-stream endpoint's vocabulary (../shared/spec/profiles/token-stream.md, `GET /v1/vocab`):
// a JSON array whose index is the token id. Id 0 is padding and has no text. Tools show an id
// they cannot name as the id itself.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/result.h"

namespace anthro {

inline constexpr std::size_t kMaxVocabularyEntries = 1 << 22;

class TokenStreamVocabulary {
 public:
  TokenStreamVocabulary() = default;
  // Ids from 1 in the order given; a text given twice keeps its first id.
  explicit TokenStreamVocabulary(const std::vector<std::string>& texts);

  std::optional<std::uint32_t> id_of(std::string_view text) const;
  // nullopt for padding, the degraded marker and ids beyond the table.
  std::optional<std::string_view> text_of(std::uint32_t id) const;
  std::size_t size() const { return texts_.size(); }  // entries, id 0 included

  std::string to_json() const;  // the body of GET /v1/vocab
  // A hostile body: a JSON array of strings (entry 0, padding, may be anything), at most
  // kMaxVocabularyEntries. The error names the first entry that is not a string.
  static Result<TokenStreamVocabulary> from_json(std::string_view body);

 private:
  void add(std::string text);

  std::vector<std::string> texts_{""};
  std::unordered_map<std::string, std::uint32_t> ids_;
};

// Ids as text, for a person: known ids by their text, the degraded marker as "⟦degraded⟧",
// padding as nothing, any other id as "⟦N⟧".
std::string token_stream_text(std::span<const std::uint32_t> ids, const TokenStreamVocabulary& vocabulary);

// Ids for an inspector's detail, one line each, numbered from `first_index` in the body:
// `#3: 1234 "text"` (the text JSON-escaped; an id the vocabulary does not know as itself alone).
std::string token_id_lines(std::span<const std::uint32_t> ids, std::size_t first_index,
                           const TokenStreamVocabulary& vocabulary);

}  // namespace anthro
