// A value or the reason it could not be produced (GCC 12 has no std::expected).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace anthro {

// What kind of failure, for a caller that must choose what follows (the CLI's exit code).
enum class ErrorClass {
  Input,      // a file, packet, frame or answer was malformed or unreadable
  Usage,      // the caller asked for something impossible (a bad option, target or filter)
  Network,    // a socket, an interface or a peer failed
  Cancelled,  // the caller stopped the work
};
// "input", "usage", "network", "cancelled"
inline const char* to_string(ErrorClass kind) {
  switch (kind) {
    case ErrorClass::Input: return "input";
    case ErrorClass::Usage: return "usage";
    case ErrorClass::Network: return "network";
    case ErrorClass::Cancelled: return "cancelled";
  }
  return "input";
}

// `reason` is a short stable name (a spec reason such as "authentication");
// `detail` says what was wrong and where, for a person.
struct Error {
  std::string reason;
  std::string detail;
  ErrorClass kind = ErrorClass::Input;
};

// `E`: Error, or a codec's own refusal (its reason an enum, with the offending byte) where callers choose by reason.
template <class T, class E = Error>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(E error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const E& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, E> v_;
};

inline Error make_error(std::string reason, std::string detail) {
  return Error{std::move(reason), std::move(detail)};
}
inline Error make_error(ErrorClass kind, std::string reason, std::string detail) {
  return Error{std::move(reason), std::move(detail), kind};
}
// An error whose reason is its class's name.
inline Error make_error(ErrorClass kind, std::string detail) {
  return Error{to_string(kind), std::move(detail), kind};
}

}  // namespace anthro
