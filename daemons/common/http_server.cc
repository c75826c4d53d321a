// HttpServer: see http_server.h for what it serves and the bounds it keeps.
#include "daemons/common/http_server.h"

#include <array>
#include <cctype>

namespace lsf::net {
namespace {

std::string http_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view http_trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

const char* http_reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Error";
  }
}

// Where the head ends (past its blank line), or npos while it has not.
std::size_t head_end(std::string_view buffer) {
  auto crlf = buffer.find("\r\n\r\n");
  auto lf = buffer.find("\n\n");
  if (crlf != std::string_view::npos && (lf == std::string_view::npos || crlf < lf)) return crlf + 4;
  if (lf != std::string_view::npos) return lf + 2;
  return std::string_view::npos;
}

}  // namespace

std::variant<HttpRequest, int> parse_http_request(std::string_view head) {
  auto line_end = head.find('\n');
  if (line_end == std::string_view::npos) return 400;
  std::string_view line = http_trim(head.substr(0, line_end));
  auto sp1 = line.find(' ');
  auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp1 == std::string_view::npos || sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != line.npos)
    return 400;
  HttpRequest request;
  request.method = std::string(line.substr(0, sp1));
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line.substr(sp2 + 1);
  if (version.substr(0, 5) != "HTTP/") return 400;
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return 505;
  if (target.empty() || target.front() != '/') return 400;
  for (char c : target)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return 400;
  auto q = target.find('?');
  request.path = std::string(target.substr(0, q));
  if (q != std::string_view::npos) request.query = std::string(target.substr(q + 1));
  std::string_view rest = head.substr(line_end + 1);
  while (!rest.empty()) {
    auto end = rest.find('\n');
    std::string_view h = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    h = http_trim(h);
    if (h.empty()) break;
    auto colon = h.find(':');
    if (colon == std::string_view::npos || colon == 0) return 400;
    std::string name = http_lower(h.substr(0, colon));
    for (char c : name)
      if (c == ' ' || c == '\t') return 400;
    request.headers[name] = std::string(http_trim(h.substr(colon + 1)));
  }
  if (request.method != "GET" && request.method != "HEAD") return 405;
  return request;
}

std::string format_http_response(const HttpResponse& response, bool head_only) {
  std::string out = "HTTP/1.1 " + std::to_string(response.status) + " " + http_reason_phrase(response.status) + "\r\n";
  out += "Content-Type: " + response.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  out += "Cache-Control: no-store\r\nConnection: close\r\n";
  if (response.status == 405) out += "Allow: GET, HEAD\r\n";
  for (const auto& [name, value] : response.headers) out += name + ": " + value + "\r\n";
  out += "\r\n";
  if (!head_only) out += response.body;
  return out;
}

struct HttpServer::Shared {
  Handler handler;
  HttpServerOptions options;
  std::size_t connections = 0;
};

namespace {

class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  HttpConnection(tcp::socket socket, std::shared_ptr<HttpServer::Shared> shared)
      : socket_(std::move(socket)), timer_(socket_.get_executor()), shared_(std::move(shared)) {
    ++shared_->connections;
  }
  ~HttpConnection() { --shared_->connections; }

  void start() {
    timer_.expires_after(shared_->options.timeout);
    timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (!ec) self->close();
    });
    read();
  }

 private:
  void read() {
    socket_.async_read_some(asio::buffer(chunk_),
                            [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
                              if (ec) return self->close();
                              self->on_read(n);
                            });
  }

  void on_read(std::size_t n) {
    const std::size_t before = buffer_.size();
    buffer_.append(chunk_.data(), n);
    // The blank line may straddle two reads: look from a little before the new bytes.
    std::size_t end = head_end(std::string_view(buffer_).substr(before > 3 ? before - 3 : 0));
    if (end != std::string::npos) end += before > 3 ? before - 3 : 0;
    if (end == std::string::npos || end > shared_->options.max_head) {
      if (buffer_.size() > shared_->options.max_head) {
        HttpResponse r;
        r.status = 431;
        r.body = "request head larger than " + std::to_string(shared_->options.max_head) + " bytes\n";
        return respond(r, false);
      }
      return read();
    }
    auto parsed = parse_http_request(std::string_view(buffer_).substr(0, end));
    if (const int* status = std::get_if<int>(&parsed)) {
      HttpResponse r;
      r.status = *status;
      r.body = std::string(http_reason_phrase(*status)) + "\n";
      return respond(r, false);
    }
    const auto& request = std::get<HttpRequest>(parsed);
    HttpResponse r;
    try {
      r = shared_->handler(request);
    } catch (const std::exception& e) {
      r = HttpResponse{};
      r.status = 503;
      r.body = std::string("cannot answer: ") + e.what() + "\n";
    }
    respond(r, request.method == "HEAD");
  }

  void respond(const HttpResponse& response, bool head_only) {
    out_ = format_http_response(response, head_only);
    asio::async_write(socket_, asio::buffer(out_),
                      [self = shared_from_this()](const boost::system::error_code&, std::size_t) { self->close(); });
  }

  void close() {
    boost::system::error_code ignored;
    timer_.cancel();
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

  tcp::socket socket_;
  asio::steady_timer timer_;
  std::shared_ptr<HttpServer::Shared> shared_;
  std::array<char, 2048> chunk_{};
  std::string buffer_;
  std::string out_;
};

}  // namespace

daemon::Result<std::unique_ptr<HttpServer>> HttpServer::start(asio::io_context& io, const std::string& address,
                                                              std::uint16_t port, Handler handler,
                                                              HttpServerOptions options) {
  boost::system::error_code ec;
  auto ip = asio::ip::make_address(address, ec);
  if (ec) return daemon::fail("cannot serve HTTP on " + address + ": not an IP address");
  tcp::endpoint endpoint(ip, port);
  tcp::acceptor acceptor(io);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return daemon::fail("cannot serve HTTP on " + address + ":" + std::to_string(port) + ": " + ec.message());
  auto shared = std::make_shared<Shared>();
  shared->handler = std::move(handler);
  shared->options = options;
  std::unique_ptr<HttpServer> server(new HttpServer(io, std::move(acceptor), std::move(shared)));
  server->accept();
  return server;
}

HttpServer::HttpServer(asio::io_context& io, tcp::acceptor acceptor, std::shared_ptr<Shared> shared)
    : acceptor_(std::move(acceptor)), retry_timer_(io), shared_(std::move(shared)) {
  boost::system::error_code ec;
  port_ = acceptor_.local_endpoint(ec).port();
}

HttpServer::~HttpServer() { stop(); }

std::size_t HttpServer::connections() const { return shared_->connections; }

void HttpServer::stop() {
  boost::system::error_code ignored;
  retry_timer_.cancel();
  acceptor_.close(ignored);
}

void HttpServer::accept() {
  acceptor_.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
    if (ec) {
      // Out of descriptors, say: try again shortly rather than spin.
      retry_timer_.expires_after(std::chrono::milliseconds(100));
      retry_timer_.async_wait([this](const boost::system::error_code& e) {
        if (!e && acceptor_.is_open()) accept();
      });
      return;
    }
    if (shared_->connections >= shared_->options.max_connections) {
      boost::system::error_code ignored;
      socket.close(ignored);  // unanswered: a scraper retries, a flood costs nothing kept
    } else {
      std::make_shared<HttpConnection>(std::move(socket), shared_)->start();
    }
    accept();
  });
}

}  // namespace lsf::net
