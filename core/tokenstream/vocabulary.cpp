#include "tokenstream/vocabulary.h"

#include "tokenstream/token_body.h"
#include "util/json.h"

namespace anthro {

TokenStreamVocabulary::TokenStreamVocabulary(const std::vector<std::string>& texts) {
  for (const auto& t : texts)
    if (!ids_.count(t)) add(t);
}

void TokenStreamVocabulary::add(std::string text) {
  ids_.emplace(text, static_cast<std::uint32_t>(texts_.size()));
  texts_.push_back(std::move(text));
}

std::optional<std::uint32_t> TokenStreamVocabulary::id_of(std::string_view text) const {
  auto it = ids_.find(std::string(text));
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string_view> TokenStreamVocabulary::text_of(std::uint32_t id) const {
  if (id == kTokenStreamPadding || id >= texts_.size()) return std::nullopt;
  return texts_[id];
}

std::string TokenStreamVocabulary::to_json() const {
  std::string out = "[";
  for (std::size_t i = 0; i < texts_.size(); ++i) {
    if (i) out += ',';
    out += '"';
    append_json_escaped(out, texts_[i]);
    out += '"';
  }
  return out + "]";
}

Result<TokenStreamVocabulary> TokenStreamVocabulary::from_json(std::string_view body) {
  auto doc = parse_json(body);
  if (!doc) return doc.error();
  if (!doc->is_array()) return make_error("vocabulary", "GET /v1/vocab: the body is not a JSON array");
  if (doc->size() > kMaxVocabularyEntries)
    return make_error("vocabulary", "GET /v1/vocab: " + std::to_string(doc->size()) + " entries, more than " +
                                        std::to_string(kMaxVocabularyEntries));
  TokenStreamVocabulary v;
  for (std::size_t i = 1; i < doc->size(); ++i) {
    const auto& entry = (*doc)[i];
    if (!entry.is_string())
      return make_error("vocabulary", "GET /v1/vocab: entry " + std::to_string(i) + " is not a string");
    // An id keeps its place even when its text repeats an earlier one's.
    std::string text = entry.get<std::string>();
    v.ids_.emplace(text, static_cast<std::uint32_t>(i));
    v.texts_.push_back(std::move(text));
  }
  return v;
}

std::string token_stream_text(std::span<const std::uint32_t> ids, const TokenStreamVocabulary& vocabulary) {
  std::string out;
  for (auto id : ids) {
    if (id == kTokenStreamPadding) continue;
    if (id == kTokenStreamDegraded) {
      out += "⟦degraded⟧";
    } else if (auto text = vocabulary.text_of(id)) {
      out += *text;
    } else {
      out += "⟦" + std::to_string(id) + "⟧";
    }
  }
  return out;
}

std::string token_id_lines(std::span<const std::uint32_t> ids, std::size_t first_index,
                           const TokenStreamVocabulary& vocabulary) {
  std::string out;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    out += "#" + std::to_string(first_index + i) + ": " + std::to_string(ids[i]);
    if (ids[i] == kTokenStreamDegraded) out += " degraded marker";
    else if (ids[i] == kTokenStreamPadding) out += " padding";
    else if (auto text = vocabulary.text_of(ids[i])) {
      out += " \"";
      append_json_escaped(out, *text);
      out += '"';
    }
    out += '\n';
  }
  return out;
}

}  // namespace anthro
