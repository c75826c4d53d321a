// Result<T>: a parsed value or the reason it could not be parsed.
//
// Value parsers (time windows, resource requirements, limits, ...) know nothing of
// files or lines; they return a Result and the caller attaches the file:line.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace lsf::config {

template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  static Result failure(std::string why) {
    Result r;
    r.error_ = std::move(why);
    return r;
  }

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  const T& operator*() const { return *value_; }
  const T* operator->() const { return &*value_; }
  const std::string& error() const { return error_; }

 private:
  Result() = default;
  std::optional<T> value_;
  std::string error_;
};

// Shorthand so parsers can write `return fail("...")` whatever T is.
struct Failure {
  std::string why;
  template <typename T>
  operator Result<T>() const {  // NOLINT: implicit by design
    return Result<T>::failure(why);
  }
};
inline Failure fail(std::string why) { return Failure{std::move(why)}; }

}  // namespace lsf::config
