#include "agent/idle_shutdown.hpp"

#include "util/log.hpp"

#include <algorithm>

namespace det::agent {

policy::self_shutdown_input
idle_shutdown_watch::input(policy::timestamp now) const {
  policy::self_shutdown_input in;
  in.idle_since = idle_since_;
  in.disconnected_since = disconnected_since_;
  in.now = now;
  return in;
}

bool idle_shutdown_watch::observe(const idle_observation& o,
                                  policy::timestamp now) {
  if (!o.idle)
    idle_since_.reset();
  else if (!idle_since_)
    idle_since_ = now;
  if (o.connected)
    disconnected_since_.reset();
  else if (!disconnected_since_)
    disconnected_since_ = now;
  return policy::should_self_shutdown(input(now), c_);
}

std::optional<policy::timestamp> idle_shutdown_watch::due_at() const {
  return policy::self_shutdown_at(input({}), c_);
}

idle_shutdown_monitor::idle_shutdown_monitor(
    policy::self_shutdown_config c, std::chrono::milliseconds poll,
    std::function<idle_observation()> look, std::function<void()> fire,
    clock_fn now)
    : watch_(c), poll_(std::max(poll, std::chrono::milliseconds{1})),
      look_(std::move(look)), fire_(std::move(fire)), now_(std::move(now)) {
  if (c.max_idle > policy::duration::zero())
    thread_ = std::thread{[this] { loop(); }};
}

idle_shutdown_monitor::~idle_shutdown_monitor() {
  {
    std::lock_guard<std::mutex> guard{mu_};
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

void idle_shutdown_monitor::loop() {
  std::unique_lock<std::mutex> lock{mu_};
  while (!stopping_) {
    auto now = now_();
    if (watch_.observe(look_(), now)) {
      log::write(log::level::warn,
                 "idle and cut off from the master for the idle period: "
                 "stopping this instance");
      lock.unlock();
      fire_();
      return;
    }
    // The next poll, or sooner when the watch is due sooner.
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(poll_);
    if (auto due = watch_.due_at(); due && *due > now)
      wait = std::min(
          wait,
          std::chrono::duration_cast<std::chrono::milliseconds>(*due - now));
    cv_.wait_for(lock, wait, [this] { return stopping_; });
  }
}

} // namespace det::agent
