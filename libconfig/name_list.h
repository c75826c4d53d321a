// Lists of hosts and of users as LSF writes them in HOSTS, USERS, GROUP_MEMBER,
// -m and Limit consumers. Parsing only classifies the words; what a name refers to
// (a host, a host group, a model, a user group) is resolved by the semantic checks.
//
// Host words: `all`, `others`, `none`, `allremote`, `~name` (exclude), `name+N`
// (preference N, higher first), `name@cluster` (a borrowed host), `all@cluster`.
// User words: `all`, `~name`, `group@` (each member individually), `(!)` egroup.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "libconfig/result.h"

namespace lsf::config {

struct HostListItem {
  enum class Kind { kName, kAll, kOthers, kNone, kAllRemote };
  Kind kind = Kind::kName;
  std::string name;     // for kName: host, host group, model or type
  std::string cluster;  // `name@cluster`, `all@cluster`
  bool exclude = false;
  int preference = 0;
  bool has_preference = false;

  std::string to_string() const;
  bool operator==(const HostListItem&) const = default;
};

Result<std::vector<HostListItem>> parse_host_list(std::string_view text);
std::string format_host_list(const std::vector<HostListItem>& items);

struct UserListItem {
  enum class Kind { kName, kAll, kExternal };
  Kind kind = Kind::kName;
  std::string name;
  bool exclude = false;
  bool per_member = false;  // `group@`

  std::string to_string() const;
  bool operator==(const UserListItem&) const = default;
};

Result<std::vector<UserListItem>> parse_user_list(std::string_view text);
std::string format_user_list(const std::vector<UserListItem>& items);

// A plain list of names (queues, clusters, service classes): words or `(w w)`.
std::vector<std::string> parse_name_list(std::string_view text);

}  // namespace lsf::config
