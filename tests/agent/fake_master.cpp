#include "fake_master.hpp"

#include "util/base64.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace det::agent::testing {

using nlohmann::json;

namespace {

/// A tar.gz of `files`, made with tar(1) in a scratch directory.
std::string make_tgz(const std::map<std::string, std::string>& files) {
  namespace fs = std::filesystem;
  auto dir = fs::temp_directory_path()
             / ("det-fake-model-" + std::to_string(getpid()) + "-"
                + std::to_string(std::rand()));
  fs::create_directories(dir / "model");
  for (auto& [name, content] : files)
    std::ofstream{dir / "model" / name} << content;
  auto tgz = dir / "model.tgz";
  auto cmd =
      "tar -czf '" + tgz.string() + "' -C '" + (dir / "model").string() + "' .";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in{tgz, std::ios::binary};
  std::stringstream ss;
  ss << in.rdbuf();
  fs::remove_all(dir);
  return ss.str();
}

} // namespace

fake_master::fake_master(const std::map<std::string, std::string>& files,
                         std::string token)
    : token_(std::move(token)), b64_tgz_(det::base64_encode(make_tgz(files))) {
  http::router routes;
  routes.get("/api/v1/experiments/{id}/model_def",
             [this](http::http_request req, http::responder res) {
               {
                 std::lock_guard<std::mutex> g{mu_};
                 model_def_auth_.push_back(
                     req.headers.get("Authorization").value_or(""));
                 if (model_def_failures_ > 0) {
                   --model_def_failures_;
                   res.send(http::http_response::json(model_def_status_, "{}"));
                   return;
                 }
               }
               res.send_json(json{{"b64Tgz", b64_tgz_}}.dump());
             });
  http::server_config cfg;
  server_ = std::make_unique<http::http_server>(cfg, std::move(routes));
  server_->add_websocket(
      "/agents/ws",
      [this](http::ws_session s) {
        s.on_message([this](std::string text) {
          std::lock_guard<std::mutex> g{mu_};
          frames_.push_back(json::parse(text, nullptr, false));
          cv_.notify_all();
        });
        std::lock_guard<std::mutex> g{mu_};
        session_ = s;
        ++connections_;
        cv_.notify_all();
      },
      [this](
          const http::http_request& req) -> std::optional<http::http_response> {
        if (token_.empty()
            || req.headers.get("Authorization") == "Bearer " + token_)
          return std::nullopt;
        std::lock_guard<std::mutex> g{mu_};
        ++refused_;
        return http::http_response::json(
            401, R"({"error":{"code":16,"reason":"Unauthenticated"}})");
      });
  auto port = server_->start();
  EXPECT_TRUE(port);
  port_ = port ? *port : 0;
}

fake_master::~fake_master() {
  server_->stop(std::chrono::milliseconds{500});
}

std::optional<json> fake_master::next(const std::string& type,
                                      std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> l{mu_};
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    while (!frames_.empty()) {
      auto f = std::move(frames_.front());
      frames_.pop_front();
      if (f.is_object() && f.value("type", "") == type)
        return f;
    }
    if (cv_.wait_until(l, deadline) == std::cv_status::timeout
        && frames_.empty())
      return std::nullopt;
  }
}

bool fake_master::send(const json& frame) {
  std::lock_guard<std::mutex> g{mu_};
  return session_ && session_->send(frame.dump());
}

void fake_master::drop() {
  std::lock_guard<std::mutex> g{mu_};
  if (session_)
    session_->close(1001, "going away");
  session_.reset();
}

int fake_master::connections() const {
  std::lock_guard<std::mutex> g{mu_};
  return connections_;
}

int fake_master::refused() const {
  std::lock_guard<std::mutex> g{mu_};
  return refused_;
}

void fake_master::fail_model_def(int n, int status) {
  std::lock_guard<std::mutex> g{mu_};
  model_def_failures_ = n;
  model_def_status_ = status;
}

std::vector<std::string> fake_master::model_def_auth() const {
  std::lock_guard<std::mutex> g{mu_};
  return model_def_auth_;
}

} // namespace det::agent::testing
