#pragma once

// The reference for bench-api-http: a blocking thread-per-connection
// loopback server that reads up to the end of each request head and writes
// one canned keep-alive response. No parsing, routing or JSON: close to what
// the kernel and wrk allow on this machine.

#include <cstdint>
#include <memory>

namespace det::bench {

class raw_server {
public:
  raw_server();
  ~raw_server();
  [[nodiscard]] uint16_t port() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace det::bench
