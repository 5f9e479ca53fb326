#pragma once

// A fake det-master for the agent tests, on api/http_server at
// 127.0.0.1:<free port>: serves one experiment's model_def (a tar.gz built
// from files the test gives) and the agent WebSocket. Frames from the
// agent are queued; tests await them with next() (bounded waits, no
// sleeps). Optionally requires a bearer token on the WebSocket.

#include "http/http_server.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace det::agent::testing {

class fake_master {
public:
  /// `files`: name -> content of the model directory, `token`: "" = none.
  explicit fake_master(const std::map<std::string, std::string>& files,
                       std::string token = "");
  ~fake_master();

  [[nodiscard]] uint16_t port() const { return port_; }

  /// The next frame of `type` from the agent (earlier frames of other
  /// types are dropped), waiting at most `timeout`.
  std::optional<nlohmann::json>
  next(const std::string& type,
       std::chrono::milliseconds timeout = std::chrono::seconds{20});

  /// Sends to the current session; false without one.
  bool send(const nlohmann::json& frame);

  /// Closes the current session (the agent sees a dropped connection).
  void drop();

  /// WebSocket connections accepted so far, and upgrades refused.
  [[nodiscard]] int connections() const;
  [[nodiscard]] int refused() const;
  /// Authorization header values of model_def downloads.
  [[nodiscard]] std::vector<std::string> model_def_auth() const;

  /// The next `n` model_def downloads are answered `status` (a master
  /// behind a proxy that is restarting, or one that refuses).
  void fail_model_def(int n, int status);

private:
  std::string token_;
  std::string b64_tgz_;
  std::unique_ptr<http::http_server> server_;
  uint16_t port_ = 0;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<nlohmann::json> frames_;
  std::optional<http::ws_session> session_;
  int connections_ = 0;
  int refused_ = 0;
  std::vector<std::string> model_def_auth_;
  int model_def_failures_ = 0;
  int model_def_status_ = 503;
};

} // namespace det::agent::testing
