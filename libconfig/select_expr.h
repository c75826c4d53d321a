// The select[] language of resource requirements: a boolean expression over host
// resources and load indices with `&& || !`, `+ - * /`, `== != < > <= >=`,
// parentheses, `defined(name)`, string and boolean resources. The pre-LSF-6 form
// `r15m=1.5:mem=20:-ultrix` is also read (there `=` means "at most" for increasing
// load indices, "at least" for other numbers and "equals" for strings).
//
// Evaluation is against a lookup that gives a resource's value on one host. A name the
// host does not have is undefined: comparisons with it are false, and as a boolean it
// is false (so `!fs` holds on a host without fs). An undefined name compared with a
// string resource is read as a literal (`type==LINUX86`). `type==any` always holds;
// `type==local` and `model==local` compare with the submission host's when known.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "libconfig/result.h"

namespace lsf::config {

using ResourceValue = std::variant<std::monostate, double, std::string>;
using ResourceLookup = std::function<ResourceValue(std::string_view name)>;

// One value as select[] reads it: a number, a string, or nothing (the host does not
// define the name). Strings are viewed, not copied: a pass evaluates an expression on
// thousands of hosts.
struct SelectValue {
  enum class Kind { kNone, kNumber, kText };
  Kind kind = Kind::kNone;
  double number = 0;
  std::string_view text;
  static SelectValue of(double d) { return {Kind::kNumber, d, {}}; }
  static SelectValue of(std::string_view t) { return {Kind::kText, 0, t}; }
};

// One host's resources by name, for callers that keep them in their own form (a pass's
// per-host columns). Views it returns must stay valid while matches() runs.
class SelectHost {
 public:
  virtual SelectValue value(std::string_view name) const = 0;

 protected:
  ~SelectHost() = default;
};

struct SelectContext {
  std::optional<std::string> local_type;   // type of the submission host
  std::optional<std::string> local_model;  // model of the submission host
};

class SelectExpr {
 public:
  struct Node;

  SelectExpr() = default;  // empty: matches every host
  static Result<SelectExpr> parse(std::string_view text);

  bool empty() const { return root_ == nullptr; }
  bool matches(const ResourceLookup& lookup, const SelectContext& ctx = {}) const;
  bool matches(const SelectHost& host, const SelectContext& ctx = {}) const;
  std::string to_string() const;  // canonical, fully parenthesised where needed
  // Equal when they read the same: the canonical texts are the same.
  bool operator==(const SelectExpr& other) const { return to_string() == other.to_string(); }

  // The conjunction of two expressions (queue RES_REQ select && job select).
  static SelectExpr both(const SelectExpr& a, const SelectExpr& b);

  // Calls f with every resource name the expression reads.
  void for_each_name(const std::function<void(const std::string&)>& f) const;

 private:
  explicit SelectExpr(std::shared_ptr<const Node> root) : root_(std::move(root)) {}
  std::shared_ptr<const Node> root_;
};

}  // namespace lsf::config
