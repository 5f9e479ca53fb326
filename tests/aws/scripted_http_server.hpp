#pragma once

// A loopback HTTP/1.1 server for tests: it answers each request with the
// next scripted response (the last one repeats) and records what it got.
// One connection per request (it answers "Connection: close").

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace det::aws::test {

struct scripted_response {
  int status = 200;
  std::string body;
  /// Close the connection without answering: a transport failure.
  bool drop = false;
};

class scripted_http_server {
public:
  explicit scripted_http_server(std::vector<scripted_response> script);
  ~scripted_http_server();

  /// http://127.0.0.1:PORT/
  std::string url() const;

  /// Requests received so far (raw head and body).
  std::vector<std::string> requests();

  int request_count();

private:
  void serve();

  std::vector<scripted_response> script_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mtx_;
  std::vector<std::string> requests_;
  std::thread thread_;
};

} // namespace det::aws::test
