// Share assignments `[name, n]` and `[name, n%]`, as in USER_SHARES, FAIRSHARE =
// USER_SHARES[...], DISTRIBUTION and Limit RESOURCE lists. Spacing is free:
// `([david, 1] [john,1])` and `[sc1,25%][sc2, 4]` both read.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "libconfig/result.h"

namespace lsf::config {

struct ShareAssignment {
  std::string name;
  double amount = 0;
  bool percent = false;

  std::string to_string() const;
  bool operator==(const ShareAssignment&) const = default;
};

// Reads a list of [name, n] items, optionally wrapped in parentheses.
Result<std::vector<ShareAssignment>> parse_shares(std::string_view text);

// `KEYWORD[ ... ]` where the body is a share list, e.g. `USER_SHARES[[a, 1] [b, 2]]`.
Result<std::vector<ShareAssignment>> parse_keyword_shares(std::string_view text, std::string_view keyword);

std::string format_shares(const std::vector<ShareAssignment>& shares);

}  // namespace lsf::config
