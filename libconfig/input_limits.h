// Bounds on what one expression a user submits or an admin configures may be: select[]
// and the whole -R string, -w dependencies, `#if` conditions, time windows, array index
// lists. The parsers and evaluators recurse only per level of nesting, never per term,
// so these two numbers bound both their stack and their time. Above either, the input
// is refused with a message that names the limit, before any tree is built: a
// submission mbatchd accepts can never overflow the stack of the scheduling pass that
// evaluates it, nor of mbatchd replaying it from lsb.events.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace lsf::config {

// Parentheses, `!` and unary `-` each open one level.
inline constexpr int kMaxNesting = 64;
inline constexpr std::size_t kMaxExpressionBytes = 64 * 1024;

// "select[] nests deeper than 64 levels"
inline std::string nests_too_deep(std::string_view what) {
  return std::string(what) + " nests deeper than " + std::to_string(kMaxNesting) + " levels";
}

// "resource requirement longer than 64 KiB"
inline std::string too_long(std::string_view what) {
  return std::string(what) + " longer than " + std::to_string(kMaxExpressionBytes / 1024) + " KiB";
}

}  // namespace lsf::config
