// Status and Result<T>: the daemons' one way to say that something failed and why,
// as libconfig's Result (libconfig/result.h) does for its parsers.
//
// A Status is ok, or carries the reason ("cannot listen on port 6881: Address already
// in use"); a Result<T> is a value or the reason there is none. They replace the
// "empty string on success" that daemon functions returned.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace lsf::daemon {

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok
  static Status ok_status() { return {}; }
  static Status error(std::string why) {
    Status s;
    s.error_ = std::move(why);
    s.failed_ = true;
    return s;
  }
  // From the old convention: empty is ok, anything else the reason.
  static Status from_message(std::string why) { return why.empty() ? Status() : error(std::move(why)); }

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  // Why it failed; empty when ok.
  const std::string& message() const { return error_; }

 private:
  std::string error_;
  bool failed_ = false;
};

// `return fail("why");` wherever a Status or Result is returned.
inline Status fail(std::string why) { return Status::error(std::move(why)); }

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : error_(std::move(status)) {}  // NOLINT: a failed Status
  static Result failure(std::string why) { return Result(Status::error(std::move(why))); }

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  const T& operator*() const { return *value_; }
  T& operator*() { return *value_; }
  const T* operator->() const { return &*value_; }
  T* operator->() { return &*value_; }
  const std::string& error() const { return error_.message(); }
  const Status& status() const { return error_; }

 private:
  std::optional<T> value_;
  Status error_;
};

}  // namespace lsf::daemon
