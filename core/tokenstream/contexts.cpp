#include "tokenstream/contexts.h"

#include <algorithm>

namespace anthro {

void TokenStreamContexts::forget(std::uint64_t id) {
  auto it = live_.find(id);
  if (it == live_.end()) return;
  auto [first, last] = by_expiry_.equal_range(it->second.expiry_s);
  for (auto e = first; e != last; ++e)
    if (e->second == id) {
      by_expiry_.erase(e);
      break;
    }
  live_.erase(it);
}

void TokenStreamContexts::forget_expired(double now_s) {
  while (!by_expiry_.empty() && by_expiry_.begin()->first <= now_s) forget(by_expiry_.begin()->second);
}

ContextTouch TokenStreamContexts::touch(TokenStreamContextId id, double now_s) {
  forget_expired(now_s);
  const std::uint64_t key = id.value();
  ContextTouch touched = ContextTouch::Renewed;
  double created = now_s;
  if (auto it = live_.find(key); it != live_.end()) {
    created = it->second.created_s;
    forget(key);
  } else {
    touched = ContextTouch::Created;
    if (capacity_ == 0) return touched;
    if (live_.size() >= capacity_) forget(by_expiry_.begin()->second);
  }
  double expiry = std::min(now_s + kTokenStreamContextIdleS, created + kTokenStreamContextMaxS);
  live_.emplace(key, Context{created, expiry});
  by_expiry_.emplace(expiry, key);
  return touched;
}

bool TokenStreamContexts::known(TokenStreamContextId id, double now_s) const {
  return expiry(id, now_s).has_value();
}

std::optional<double> TokenStreamContexts::expiry(TokenStreamContextId id, double now_s) const {
  auto it = live_.find(id.value());
  if (it == live_.end() || it->second.expiry_s <= now_s) return std::nullopt;
  return it->second.expiry_s;
}

}  // namespace anthro
