// Errors as values for the SASS layer: a cubin is untrusted input (a user's file, a
// truncated download, a future toolkit's format), so every reader returns either its
// value or a message saying what was wrong and where, and never throws or crashes.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace bankcheck::sass {

struct Error {
  std::string message;
};

// Either a T or an Error. `ok()` before `value()`; `value()` on an error is a bug.
template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return std::get<0>(v_); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

}  // namespace bankcheck::sass
