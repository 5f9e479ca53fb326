#include "bench/api_http/raw_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace det::bench {

struct raw_server::impl {
  int listen_fd = -1;
  uint16_t port = 0;
  std::atomic<bool> stop{false};
  std::thread acceptor;
  std::mutex mu;
  std::vector<int> fds;
  std::vector<std::thread> workers;

  static void serve(int fd) {
    static const std::string reply = "HTTP/1.1 200 OK\r\nContent-Type: "
                                     "application/json\r\nContent-Length: "
                                     "2\r\nConnection: keep-alive\r\n\r\n{}";
    std::string buf;
    char tmp[4096];
    for (;;) {
      auto n = ::read(fd, tmp, sizeof(tmp));
      if (n <= 0)
        return;
      buf.append(tmp, static_cast<size_t>(n));
      size_t pos;
      while ((pos = buf.find("\r\n\r\n")) != std::string::npos) {
        buf.erase(0, pos + 4);
        if (::write(fd, reply.data(), reply.size()) < 0)
          return;
      }
    }
  }
};

raw_server::raw_server() : impl_(std::make_unique<impl>()) {
  auto& d = *impl_;
  d.listen_fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  auto* sa = reinterpret_cast<sockaddr*>(&addr);
  socklen_t len = sizeof(addr);
  if (::bind(d.listen_fd, sa, len) != 0 || ::listen(d.listen_fd, 512) != 0)
    return;
  ::getsockname(d.listen_fd, sa, &len);
  d.port = ntohs(addr.sin_port);
  d.acceptor = std::thread{[&d] {
    for (;;) {
      int fd = ::accept(d.listen_fd, nullptr, nullptr);
      if (fd < 0 || d.stop)
        return;
      std::lock_guard<std::mutex> guard{d.mu};
      d.fds.push_back(fd);
      d.workers.emplace_back([fd] { impl::serve(fd); });
    }
  }};
}

raw_server::~raw_server() {
  auto& d = *impl_;
  d.stop = true;
  ::shutdown(d.listen_fd, SHUT_RDWR);
  ::close(d.listen_fd);
  if (d.acceptor.joinable())
    d.acceptor.join();
  for (int fd : d.fds)
    ::shutdown(fd, SHUT_RDWR);
  for (auto& t : d.workers)
    t.join();
  for (int fd : d.fds)
    ::close(fd);
}

uint16_t raw_server::port() const {
  return impl_->port;
}

} // namespace det::bench
