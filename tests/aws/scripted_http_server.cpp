#include "scripted_http_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>

namespace det::aws::test {

scripted_http_server::scripted_http_server(
    std::vector<scripted_response> script)
    : script_(std::move(script)) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  listen(listen_fd_, 16);
  socklen_t len = sizeof(addr);
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { serve(); });
}

scripted_http_server::~scripted_http_server() {
  stop_ = true;
  thread_.join();
  close(listen_fd_);
}

std::string scripted_http_server::url() const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/";
}

std::vector<std::string> scripted_http_server::requests() {
  std::lock_guard<std::mutex> guard{mtx_};
  return requests_;
}

int scripted_http_server::request_count() {
  std::lock_guard<std::mutex> guard{mtx_};
  return static_cast<int>(requests_.size());
}

void scripted_http_server::serve() {
  size_t next = 0;
  while (!stop_) {
    // Wake up every 50 ms to notice stop_; accept() itself would block.
    pollfd pfd{listen_fd_, POLLIN, 0};
    if (poll(&pfd, 1, 50) <= 0)
      continue;
    int fd = accept(listen_fd_, nullptr, nullptr);
    if (fd < 0)
      continue;
    std::string raw;
    char buf[4096];
    size_t want = std::string::npos;
    while (want == std::string::npos || raw.size() < want) {
      pollfd cp{fd, POLLIN, 0};
      if (poll(&cp, 1, 5000) <= 0)
        break;
      auto n = read(fd, buf, sizeof(buf));
      if (n <= 0)
        break;
      raw.append(buf, static_cast<size_t>(n));
      auto head_end = raw.find("\r\n\r\n");
      if (want == std::string::npos && head_end != std::string::npos) {
        size_t body_len = 0;
        auto cl = raw.find("Content-Length:");
        if (cl != std::string::npos && cl < head_end)
          body_len = std::strtoul(raw.c_str() + cl + 15, nullptr, 10);
        want = head_end + 4 + body_len;
      }
    }
    {
      std::lock_guard<std::mutex> guard{mtx_};
      requests_.push_back(raw);
    }
    const auto& r = script_[std::min(next, script_.size() - 1)];
    ++next;
    if (!r.drop) {
      std::string resp = "HTTP/1.1 " + std::to_string(r.status)
                         + " Scripted\r\nContent-Type: text/xml\r\n"
                           "Connection: close\r\nContent-Length: "
                         + std::to_string(r.body.size()) + "\r\n\r\n" + r.body;
      auto ignored = write(fd, resp.data(), resp.size());
      (void)ignored;
    }
    close(fd);
  }
}

} // namespace det::aws::test
