// Host names as LSF takes them, and the address a host name stands for.
#pragma once

#include <string>
#include <string_view>

#include "daemons/common/status.h"

namespace lsf::net {

// `host` without the first of `suffixes` (LSF_STRIP_DOMAIN: ".example.com:.corp.com",
// each starting with a dot) that ends it, compared without regard to case; a name that
// is only a suffix is kept whole.
std::string strip_domain(const std::string& host, std::string_view suffixes);

// What a host name resolves to here (an IPv4 address when it has one), or why it
// does not resolve.
daemon::Result<std::string> resolve_host(const std::string& host);

// Whether `address` is a literal loopback (127.0.0.0/8, ::1) or unspecified
// (0.0.0.0, ::) address.
bool is_loopback_address(const std::string& address);
bool is_unspecified_address(const std::string& address);

}  // namespace lsf::net
