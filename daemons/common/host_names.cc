#include "daemons/common/host_names.h"

#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>

#include "daemons/common/asio.h"

namespace lsf::net {

std::string strip_domain(const std::string& host, std::string_view suffixes) {
  auto lower = [](std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
  };
  const std::string name = lower(host);
  while (!suffixes.empty()) {
    auto colon = suffixes.find(':');
    std::string suffix = lower(suffixes.substr(0, colon));
    suffixes = colon == std::string_view::npos ? std::string_view() : suffixes.substr(colon + 1);
    if (suffix.empty()) continue;
    if (suffix.front() != '.') suffix.insert(suffix.begin(), '.');
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      return host.substr(0, host.size() - suffix.size());
  }
  return host;
}

daemon::Result<std::string> resolve_host(const std::string& host) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &found); rc != 0)
    return daemon::fail("cannot resolve host name " + host + ": " + ::gai_strerror(rc));
  std::string v4, any;
  for (addrinfo* a = found; a; a = a->ai_next) {
    char text[NI_MAXHOST] = {};
    if (::getnameinfo(a->ai_addr, a->ai_addrlen, text, sizeof text, nullptr, 0, NI_NUMERICHOST) != 0) continue;
    if (a->ai_family == AF_INET && v4.empty()) v4 = text;
    if (any.empty()) any = text;
  }
  ::freeaddrinfo(found);
  if (v4.empty() && any.empty()) return daemon::fail("host name " + host + " has no address");
  return v4.empty() ? any : v4;
}

bool is_loopback_address(const std::string& address) {
  boost::system::error_code ec;
  auto a = asio::ip::make_address(address, ec);
  return !ec && a.is_loopback();
}

bool is_unspecified_address(const std::string& address) {
  boost::system::error_code ec;
  auto a = asio::ip::make_address(address, ec);
  return !ec && a.is_unspecified();
}

}  // namespace lsf::net
