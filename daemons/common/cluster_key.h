// The cluster key: the secret every daemon (and an administrator's command on a host
// without the master's local socket) signs requests with. It is LSF_EAUTH_KEY in
// LSF_ENVDIR/lsf.sudoers, as in LSF, and the file must be readable by its owner only:
// anyone who can read the key can speak for any user.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace lsf::net {

struct ClusterKey {
  std::string secret;
};

// A key two clusters share for MultiCluster (LSB_MC_KEY_<remote cluster> in
// lsf.sudoers on both sides, an extension: LSF's own MultiCluster uses its eauth).
inline constexpr std::string_view kPairKeyPrefix = "LSB_MC_KEY_";

struct KeyResult {
  std::optional<ClusterKey> key;
  std::map<std::string, ClusterKey> pair_keys;  // by remote cluster name
  std::string error;                            // the file exists but cannot be used; names the file and why
  bool missing = false;                         // no lsf.sudoers, or no LSF_EAUTH_KEY in it
  bool unreadable = false;                      // the caller may not read it (an ordinary user)
};

// Reads envdir/lsf.sudoers: LSF_EAUTH_KEY and the MultiCluster pair keys. The file must be a regular file owned by root
// or by the calling user, with no permission for group or others; the key must be at least 6 printable characters
// (LSF's rule).
KeyResult load_cluster_key(const std::filesystem::path& envdir);

}  // namespace lsf::net
