#include "protocol/streams.h"

namespace anthro {

std::optional<std::string> StreamTable::open(std::uint32_t id) {
  if (id == 0) return "REQUEST on stream 0";
  if (id % 2 == 0) return "REQUEST on even stream " + std::to_string(id);
  if (id <= last_id_)
    return "REQUEST stream " + std::to_string(id) + " does not increase (last " +
           std::to_string(last_id_) + ")";
  if (open_.size() >= max_streams_)
    return "REQUEST stream " + std::to_string(id) + " would open more than " +
           std::to_string(max_streams_) + " concurrent streams";
  last_id_ = id;
  open_[id] = 0;
  return std::nullopt;
}

TokenOrder StreamTable::on_tokens(std::uint32_t id, std::uint32_t index, std::uint16_t count) {
  auto it = open_.find(id);
  if (it == open_.end()) return TokenOrder::InOrder;
  std::uint64_t expected = it->second;
  TokenOrder order = index == expected ? TokenOrder::InOrder
                     : index > expected ? TokenOrder::Gap
                                        : TokenOrder::Duplicate;
  if (std::uint64_t end = std::uint64_t{index} + count; end > expected) it->second = end;
  return order;
}

std::uint32_t StreamTable::next_token_index(std::uint32_t id) const {
  auto it = open_.find(id);
  return it == open_.end() ? 0 : static_cast<std::uint32_t>(it->second);
}

const char* to_string(TokenOrder order) {
  switch (order) {
    case TokenOrder::InOrder: return "in-order";
    case TokenOrder::Gap: return "gap";
    case TokenOrder::Duplicate: return "duplicate";
  }
  return "?";
}

}  // namespace anthro
