// Signing and checking requests with the cluster key.
//
// A signed request says "whoever sent this holds the key", so its claimed identity is
// believed; that is how daemons talk to each other and how an administrator's command
// reaches a master on another host. The time and a random nonce are signed too: a
// captured request cannot be replayed, and a host whose clock is off by more than the
// allowed skew is told so (LSF's eauth allows five minutes). Each request names the
// daemon it is for, and a daemon believes nothing signed before it started, so neither
// another daemon nor a restart gives a captured request a second use.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include "daemons/common/cluster_key.h"
#include "daemons/common/status.h"
#include "lsf.pb.h"

namespace lsf::net {

inline constexpr std::chrono::seconds kMaxClockSkew{300};

// Sets request.auth for `now` (seconds since the epoch), addressed to `destination`
// (see RequestAuth.destination). `cluster`, when given, says which cluster speaks
// (MultiCluster: `key` is then the pair key).
void sign_request(wire::RequestEnvelope& request, const ClusterKey& key, std::int64_t now,
                  const std::string& destination, const std::string& cluster = {});

// Checks signatures and remembers the nonces it accepted within the skew window.
class RequestVerifier {
 public:
  // Accepts requests addressed to `destination` and signed at or after `not_before`
  // (the daemon's start: the nonces seen before it are forgotten, so nothing older is
  // believed). `key_name` says which key a mismatch is against, and where to look.
  RequestVerifier(ClusterKey key, std::string destination, std::int64_t not_before,
                  std::string key_name = "the cluster key (LSF_EAUTH_KEY differs between hosts?)")
      : key_(std::move(key)),
        destination_(std::move(destination)),
        not_before_(not_before),
        key_name_(std::move(key_name)) {}

  // Ok when the request is signed with this key, addressed here, fresh and not seen
  // before; otherwise why not. Clears request.auth either way.
  daemon::Status verify(wire::RequestEnvelope& request, std::int64_t now);

 private:
  void forget_before(std::int64_t time);

  ClusterKey key_;
  std::string destination_;
  std::int64_t not_before_ = 0;
  std::string key_name_;
  std::multimap<std::int64_t, std::string> seen_by_time_;  // for pruning
  std::map<std::string, std::int64_t> seen_;               // nonce -> time
};

}  // namespace lsf::net
