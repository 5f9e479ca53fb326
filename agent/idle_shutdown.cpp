#include "agent/idle_shutdown.hpp"

#include "messages/exit_tags.hpp"
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

idle_step idle_shutdown_watch::step(const idle_observation& o,
                                    policy::timestamp now) {
  bool idle = o.idle || (can_record_ && o.only_exits);
  if (!idle)
    idle_since_.reset();
  else if (!idle_since_)
    idle_since_ = now;
  if (o.connected) {
    disconnected_since_.reset();
    backoff_ = {}; // a fresh series for the next outage
  } else if (!disconnected_since_) {
    disconnected_since_ = now;
  }
  idle_step out;
  if (!policy::should_self_shutdown(input(now), c_))
    return out;
  std::vector<exit_report> unwritten;
  if (!o.idle)
    for (const auto& e : o.exits)
      if (written_.count(e.allocation_id) == 0)
        unwritten.push_back(e);
  bool fits = written_.size() + unwritten.size() <= max_exit_tags;
  bool can = can_record_ && fits && !backoff_.gave_up;
  switch (policy::next_self_stop_step(unwritten.size(), can)) {
  case policy::self_stop_step::stop:
    out.what = idle_step::kind::stop;
    break;
  case policy::self_stop_step::record_exits:
    if (policy::may_attempt(backoff_, now)) {
      out.what = idle_step::kind::record_exits;
      out.exits = std::move(unwritten);
    }
    break;
  case policy::self_stop_step::stay:
    break;
  }
  return out;
}

void idle_shutdown_watch::recorded(const std::vector<exit_report>& exits,
                                   bool ok, policy::timestamp now) {
  if (ok) {
    for (const auto& e : exits)
      written_.insert(e.allocation_id);
    backoff_ = policy::after_success(backoff_);
    return;
  }
  backoff_ = policy::after_failure(backoff_, retry_, now, 0.0);
}

bool idle_shutdown_watch::observe(const idle_observation& o,
                                  policy::timestamp now) {
  return step(o, now).what == idle_step::kind::stop;
}

std::optional<policy::timestamp> idle_shutdown_watch::due_at() const {
  auto at = policy::self_shutdown_at(input({}), c_);
  if (!at || backoff_.gave_up)
    return std::nullopt;
  if (backoff_.retry_at)
    return std::max(*at, *backoff_.retry_at);
  return at;
}

idle_shutdown_monitor::idle_shutdown_monitor(
    policy::self_shutdown_config c, std::chrono::milliseconds poll,
    std::function<idle_observation()> look, std::function<void()> fire,
    clock_fn now, exit_recorder record)
    : watch_(c, static_cast<bool>(record)),
      poll_(std::max(poll, std::chrono::milliseconds{1})),
      look_(std::move(look)), fire_(std::move(fire)), now_(std::move(now)),
      record_(std::move(record)) {
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
    auto s = watch_.step(look_(), now);
    if (s.what == idle_step::kind::stop) {
      log::write(log::level::warn,
                 "idle and cut off from the master for the idle period: "
                 "stopping this instance");
      lock.unlock();
      fire_();
      return;
    }
    if (s.what == idle_step::kind::record_exits) {
      lock.unlock();
      auto err = record_(s.exits);
      lock.lock();
      watch_.recorded(s.exits, !err, now_());
      if (!err) {
        log::write(log::level::info,
                   std::to_string(s.exits.size())
                       + " exit(s) the master has not recorded written into "
                         "this instance's tags");
        continue; // look again at once: stop when nothing else is left
      }
      log::write(log::level::warn,
                 "cannot write the exits into this instance's tags ("
                     + render(err)
                     + "); not stopping while they are not written");
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
