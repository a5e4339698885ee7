// A value or the reason it could not be produced (GCC 12 has no std::expected).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace anthro {

// `reason` is a short stable name (a spec reason such as "authentication");
// `detail` says what was wrong and where, for a person.
struct Error {
  std::string reason;
  std::string detail;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

inline Error make_error(std::string reason, std::string detail) {
  return Error{std::move(reason), std::move(detail)};
}

}  // namespace anthro
