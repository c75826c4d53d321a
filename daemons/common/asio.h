// The one way the project reaches Boost.Asio.
//
// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>; GCC 12 in
// C++20 mode then fails to compile it. Including <utility> first fixes that for every
// file that goes through this header.
#pragma once

#include <utility>

#include <boost/asio.hpp>

namespace lsf::net {
namespace asio = boost::asio;
using tcp = boost::asio::ip::tcp;
}  // namespace lsf::net
