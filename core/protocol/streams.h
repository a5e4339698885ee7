// Stream rules of spec §5: odd, strictly increasing client stream ids, at most max_streams
// open at once, contiguous token indices per stream.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace anthro {

enum class TokenOrder { InOrder, Gap, Duplicate };

class StreamTable {
 public:
  explicit StreamTable(std::uint16_t max_streams) : max_streams_(max_streams) {}

  // A REQUEST opening `id`: nullopt when accepted, else why it is a connection error.
  std::optional<std::string> open(std::uint32_t id);
  bool is_open(std::uint32_t id) const { return open_.count(id) != 0; }
  // RESPONSE or ERROR ended the stream.
  void close(std::uint32_t id) { open_.erase(id); }
  std::size_t open_count() const { return open_.size(); }
  // Records a STREAM_TOKEN frame's range; a gap or repeat is reported, and the stream
  // then expects the token after this frame.
  TokenOrder on_tokens(std::uint32_t id, std::uint32_t index, std::uint16_t count);
  std::uint32_t next_token_index(std::uint32_t id) const;

 private:
  std::uint16_t max_streams_;
  std::uint32_t last_id_ = 0;
  std::map<std::uint32_t, std::uint64_t> open_;  // stream id -> next expected token index
};

const char* to_string(TokenOrder order);

}  // namespace anthro
