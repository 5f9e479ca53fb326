#include "api/idle_watch.hpp"

#include "conf/duration.hpp"

#include <algorithm>

namespace det::api {

int64_t idle_timeout_us(const nlohmann::json& config) {
  auto i = config.find("idle_timeout");
  if (i == config.end() || !i->is_string())
    return 0;
  auto d = conf::parse_duration(i->get<std::string>());
  return d && d->count() > 0 ? d->count() * 1000 : 0;
}

void idle_watch::record(const std::string& task_id, int64_t at_us) {
  std::lock_guard<std::mutex> guard{mu_};
  auto& last = last_[task_id];
  last = std::max(last, at_us);
}

std::vector<idle_kill> idle_watch::due(const state::cluster_state& s,
                                       int64_t now_us) {
  std::lock_guard<std::mutex> guard{mu_};
  if (first_look_us_ == 0)
    first_look_us_ = now_us;
  std::vector<idle_kill> out;
  for (const auto& [id, t] : s.tasks) {
    if ((t.task_type != "NOTEBOOK" && t.task_type != "TENSORBOARD")
        || t.state != state::task_state::running)
      continue;
    auto timeout = idle_timeout_us(t.config);
    if (timeout == 0 || asked_.count(id) != 0)
      continue;
    auto since = std::max(t.running_at_us, first_look_us_);
    if (auto l = last_.find(id); l != last_.end())
      since = std::max(since, l->second);
    if (now_us - since <= timeout)
      continue;
    asked_.insert(id);
    out.push_back({id, "idle for more than "
                           + conf::format_duration(
                               std::chrono::milliseconds{timeout / 1000})
                           + ": service is inactive"});
  }
  auto gone = [&s](const std::string& id) {
    auto t = s.tasks.find(id);
    return t == s.tasks.end() || !state::holds_allocation(t->second);
  };
  for (auto i = last_.begin(); i != last_.end();)
    i = gone(i->first) ? last_.erase(i) : std::next(i);
  for (auto i = asked_.begin(); i != asked_.end();)
    i = gone(*i) ? asked_.erase(i) : std::next(i);
  return out;
}

} // namespace det::api
