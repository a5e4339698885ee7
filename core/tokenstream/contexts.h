// A token-stream endpoint's contexts (../shared/spec/profiles/token-stream.md, "Context
// lifetime"): the first request naming a well-formed id creates it; each request sets its
// expiry to min(now + 24 h, created + 7 d); after expiry the id is unknown again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>

#include "tokenstream/context_id.h"

namespace anthro {

inline constexpr double kTokenStreamContextIdleS = 24 * 3600.0;
inline constexpr double kTokenStreamContextMaxS = 7 * 24 * 3600.0;

enum class ContextTouch { Created, Renewed };

class TokenStreamContexts {
 public:
  // Beyond `capacity` live contexts the one that expires first is forgotten.
  explicit TokenStreamContexts(std::size_t capacity = 100000) : capacity_(capacity) {}

  // A request on `id` at `now_s` (any monotonic clock, seconds).
  ContextTouch touch(TokenStreamContextId id, double now_s);
  bool known(TokenStreamContextId id, double now_s) const;
  std::optional<double> expiry(TokenStreamContextId id, double now_s) const;
  std::size_t size() const { return live_.size(); }

 private:
  struct Context {
    double created_s = 0, expiry_s = 0;
  };
  void forget_expired(double now_s);
  void forget(std::uint64_t id);

  std::size_t capacity_;
  std::unordered_map<std::uint64_t, Context> live_;
  std::multimap<double, std::uint64_t> by_expiry_;
};

}  // namespace anthro
