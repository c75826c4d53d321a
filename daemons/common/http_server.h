// A small HTTP/1.1 server for read-only pages (mbatchd's /metrics), inside a
// caller-owned io_context.
//
// It serves GET and HEAD only, one request per connection (the response closes it):
// what Prometheus and a browser need, and nothing a hostile peer can stretch. Every
// input is bounded before anything is kept for it: the request head (8 KiB, else 431),
// the connections open at once (64; more are closed unanswered) and the time a
// connection may take to send its head and take its response (10 s). A request body is
// never read. The handler runs on the io_context's thread, so it may read state owned
// by that thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "daemons/common/asio.h"
#include "daemons/common/status.h"

namespace lsf::net {

struct HttpRequest {
  std::string method;                          // GET or HEAD
  std::string path;                            // the target up to '?'
  std::string query;                           // after '?', undecoded
  std::map<std::string, std::string> headers;  // names lower-cased, values trimmed
  std::string header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string() : it->second;
  }
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra ones
};

// The head of a request (request line and headers, up to and including the blank
// line): the request, or the status to answer with (400 malformed, 405 not GET or
// HEAD, 505 not HTTP/1.x).
std::variant<HttpRequest, int> parse_http_request(std::string_view head);
// The bytes of a response; with `head_only` (HEAD) without the body, its length kept.
std::string format_http_response(const HttpResponse& response, bool head_only);

struct HttpServerOptions {
  std::size_t max_head = 8192;
  std::size_t max_connections = 64;
  std::chrono::milliseconds timeout{10000};
};

class HttpServer {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&)>;

  // Binds `address`:`port` (0: any free port) and starts accepting; else why not.
  static daemon::Result<std::unique_ptr<HttpServer>> start(asio::io_context& io, const std::string& address,
                                                           std::uint16_t port, Handler handler,
                                                           HttpServerOptions options = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  std::uint16_t port() const { return port_; }
  std::size_t connections() const;
  void stop();

  struct Shared;  // what the server's connections share

 private:
  HttpServer(asio::io_context& io, tcp::acceptor acceptor, std::shared_ptr<Shared> shared);
  void accept();

  tcp::acceptor acceptor_;
  asio::steady_timer retry_timer_;
  std::shared_ptr<Shared> shared_;
  std::uint16_t port_ = 0;
};

}  // namespace lsf::net
