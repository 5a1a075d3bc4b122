// HTTP/1.1 transport for the Api: Boost.Beast sessions with keep-alive, a
// body-size limit (413), malformed requests answered 400, and an idle timeout
// that closes connections that stall (half a request, a silent client)
// without holding up anyone else.
#pragma once

#include "cudaperf/daemon/Api.h"

#include <boost/asio/ip/tcp.hpp>

#include <memory>

namespace cudaperf {

class HttpServer {
public:
  HttpServer(boost::asio::io_context &io, const boost::asio::ip::tcp::endpoint &endpoint, Api &api,
             std::size_t maxBodyBytes, double idleTimeoutSeconds);
  void start();
  void stopAccepting();
  unsigned short port() const;

private:
  void accept();
  boost::asio::io_context &io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  Api &api_;
  std::size_t maxBodyBytes_;
  double idleTimeoutSeconds_;
};

} // namespace cudaperf
