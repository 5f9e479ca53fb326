#pragma once

// Shared helpers for the api/ integration tests: a started server on
// 127.0.0.1 and bounded waits.

#include "http/http_server.hpp"
#include "messages/errc.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <thread>

namespace det::http::testing {

/// Starts `r` on a free loopback port; fails the test if it cannot.
inline std::unique_ptr<http_server>
start_server(router r, server_config cfg = {},
             std::function<void(http_server&)> before_start = {}) {
  cfg.address = "127.0.0.1";
  cfg.port = 0;
  auto s = std::make_unique<http_server>(std::move(cfg), std::move(r));
  if (before_start)
    before_start(*s);
  auto port = s->start();
  EXPECT_TRUE(port) << det::render(port.error());
  return s;
}

/// Polls `pred` until it holds or `limit` passes, for conditions that have
/// no notification to wait on (a connection count, a flag).
template <class Pred>
bool eventually(Pred pred,
                std::chrono::milliseconds limit = std::chrono::seconds{5}) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds{2});
  }
  return true;
}

/// Waits for a future with a bound; returns false on timeout.
template <class T>
bool ready(std::future<T>& f,
           std::chrono::milliseconds limit = std::chrono::seconds{5}) {
  return f.wait_for(limit) == std::future_status::ready;
}

} // namespace det::http::testing
