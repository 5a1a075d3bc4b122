#include "cudaperf/daemon/HttpServer.h"

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <spdlog/spdlog.h>

#include <functional>
#include <optional>
#include <vector>

namespace cudaperf {

namespace beast = boost::beast;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

class Session : public std::enable_shared_from_this<Session> {
public:
  Session(tcp::socket &&socket, Api &api, std::size_t maxBodyBytes, double idleSeconds)
      : stream_(std::move(socket)), api_(api), maxBodyBytes_(maxBodyBytes),
        idle_(std::chrono::milliseconds(static_cast<long long>(idleSeconds * 1000))) {}

  void start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->read(); });
  }

private:
  void read() {
    parser_.emplace();
    parser_->body_limit(maxBodyBytes_);
    parser_->header_limit(64 * 1024);
    stream_.expires_after(idle_); // a client that stalls mid-request is cut off
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code error, std::size_t) { self->onRead(error); });
  }

  void onRead(beast::error_code error) {
    if (error == http::error::end_of_stream || error == beast::error::timeout || error == net::error::eof ||
        error == net::error::connection_reset)
      return close();
    if (error == http::error::body_limit) {
      HttpRequest request;
      request.version(11);
      // Read (and drop) the rest of the body first: closing with unread
      // data resets the connection before the client sees the 413.
      const auto declared = parser_->content_length();
      drainThenAnswer(declared ? static_cast<std::size_t>(*declared) : 0,
                      Api::error(request, http::status::payload_too_large, "payload_too_large",
                                 "the body is larger than the limit of " + std::to_string(maxBodyBytes_) + " bytes"));
      return;
    }
    if (error) {
      HttpRequest request;
      request.version(11);
      write(Api::error(request, http::status::bad_request, "bad_request", "malformed HTTP request: " + error.message()),
            true);
      return;
    }
    stream_.expires_never(); // the evaluation may take minutes; the deadline is the Api's
    HttpRequest request = parser_->release();
    api_.handle(std::move(request), [self = shared_from_this()](HttpResponse &&response) {
      auto shared = std::make_shared<HttpResponse>(std::move(response));
      net::post(self->stream_.get_executor(), [self, shared] { self->write(std::move(*shared), false); });
    });
  }

  // Discards up to `bytes` more (at most 64 MiB, within the idle timeout), then answers and closes.
  void drainThenAnswer(std::size_t bytes, HttpResponse &&response) {
    auto pending = std::make_shared<HttpResponse>(std::move(response));
    auto left = std::make_shared<std::size_t>(std::min<std::size_t>(bytes, 64u << 20));
    *left -= std::min(*left, buffer_.size());
    buffer_.consume(buffer_.size());
    auto scratch = std::make_shared<std::vector<char>>(1 << 16);
    auto step = std::make_shared<std::function<void()>>();
    *step = [self = shared_from_this(), pending, left, scratch, step]() {
      if (*left == 0) {
        self->write(std::move(*pending), true);
        *step = nullptr; // breaks the cycle
        return;
      }
      self->stream_.expires_after(self->idle_);
      self->stream_.async_read_some(net::buffer(*scratch, std::min(scratch->size(), *left)),
                                    [self, pending, left, step](beast::error_code error, std::size_t got) {
                                      if (error) {
                                        *step = nullptr;
                                        return self->close();
                                      }
                                      *left -= std::min(*left, got);
                                      (*step)();
                                    });
    };
    (*step)();
  }

  void write(HttpResponse &&response, bool closeAfter) {
    closeAfter |= !response.keep_alive();
    if (closeAfter)
      response.keep_alive(false);
    auto shared = std::make_shared<HttpResponse>(std::move(response));
    stream_.expires_after(idle_);
    http::async_write(stream_, *shared,
                      [self = shared_from_this(), shared, closeAfter](beast::error_code error, std::size_t) {
                        if (error || closeAfter)
                          return self->close();
                        self->read();
                      });
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  Api &api_;
  std::size_t maxBodyBytes_;
  std::chrono::milliseconds idle_;
};

} // namespace

HttpServer::HttpServer(net::io_context &io, const tcp::endpoint &endpoint, Api &api, std::size_t maxBodyBytes,
                       double idleTimeoutSeconds)
    : io_(io), acceptor_(net::make_strand(io)), api_(api), maxBodyBytes_(maxBodyBytes),
      idleTimeoutSeconds_(idleTimeoutSeconds) {
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(net::socket_base::reuse_address(true));
  acceptor_.bind(endpoint);
  acceptor_.listen(net::socket_base::max_listen_connections);
}

void HttpServer::start() { accept(); }

void HttpServer::stopAccepting() {
  net::post(acceptor_.get_executor(), [this] {
    beast::error_code ignored;
    acceptor_.close(ignored);
  });
}

unsigned short HttpServer::port() const { return acceptor_.local_endpoint().port(); }

void HttpServer::accept() {
  acceptor_.async_accept(net::make_strand(io_), [this](beast::error_code error, tcp::socket socket) {
    if (error == net::error::operation_aborted || !acceptor_.is_open())
      return;
    if (!error) {
      socket.set_option(tcp::no_delay(true));
      std::make_shared<Session>(std::move(socket), api_, maxBodyBytes_, idleTimeoutSeconds_)->start();
    }
    accept();
  });
}

} // namespace cudaperf
