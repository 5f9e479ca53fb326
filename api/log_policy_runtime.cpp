#include "api/log_policy_runtime.hpp"

#include "api/durable_feed.hpp"
#include "api/log_scan.hpp"
#include "policy/log_policies.hpp"
#include "state/queries.hpp"

#include <re2/re2.h>

namespace det::api {

using nlohmann::json;

void log_policy_runtime::set_command_sink(command_sink sink) {
  std::lock_guard<std::mutex> lock{mu_};
  sink_ = std::move(sink);
}

void log_policy_runtime::save(int64_t experiment_id, const json& config) {
  std::vector<compiled> out;
  for (const auto& p : policy::effective_log_policies(config)) {
    if (p.pattern.empty())
      continue;
    RE2::Options o;
    o.set_log_errors(false);
    o.set_max_mem(1 << 20);
    auto re = std::make_shared<RE2>(p.pattern, o);
    if (re->ok())
      out.push_back({p.name.empty() ? p.pattern : p.name, std::move(re)});
  }
  std::lock_guard<std::mutex> lock{mu_};
  policies_[experiment_id] = std::move(out);
}

void log_policy_runtime::load(const state::cluster_state& s) {
  for (const auto& [id, e] : s.experiments) {
    if (state::is_terminal(e.status))
      continue;
    save(id, e.config);
    std::lock_guard<std::mutex> lock{mu_};
    for (auto tid : e.trial_ids) {
      experiment_of_[tid] = id;
      if (auto t = state::find_trial(s, tid))
        for (const auto& key : t->log_policies_fired)
          reported_.insert({tid, key});
    }
  }
}

void log_policy_runtime::on_durable(const std::vector<domain_event>& events) {
  for (const auto& ev : events) {
    if (const auto* e = std::get_if<experiment_submitted>(&ev)) {
      save(e->experiment_id, e->config);
    } else if (const auto* c = std::get_if<experiment_continued>(&ev)) {
      save(c->experiment_id, c->config);
    } else if (const auto* t = std::get_if<trial_created>(&ev)) {
      std::lock_guard<std::mutex> lock{mu_};
      experiment_of_[t->trial_id] = t->experiment_id;
    } else if (const auto* d = std::get_if<experiment_deleted>(&ev)) {
      std::lock_guard<std::mutex> lock{mu_};
      policies_.erase(d->experiment_id);
    }
  }
}

void log_policy_runtime::scan_log(int64_t trial_id, const std::string& node,
                                  const std::vector<std::string>& lines) {
  std::vector<compiled> patterns;
  command_sink sink;
  {
    std::lock_guard<std::mutex> lock{mu_};
    auto e = experiment_of_.find(trial_id);
    if (e == experiment_of_.end())
      return;
    auto ps = policies_.find(e->second);
    if (ps == policies_.end())
      return;
    for (const auto& p : ps->second)
      if (reported_.count({trial_id, p.key}) == 0)
        patterns.push_back(p);
    sink = sink_;
  }
  if (patterns.empty() || !sink)
    return;
  scan_once<compiled, std::string>(
      trial_id, lines, patterns, policy::echoes_log_policies, mu_, reported_,
      &compiled::key, [&](const compiled& p, const std::string& line) {
        sink(log_policy_match{trial_id, p.key, line, node});
      });
}

std::shared_ptr<log_policy_runtime>
follow_log_policies(master_options& mo, const state::cluster_state& st) {
  auto r = std::make_shared<log_policy_runtime>();
  r->load(st);
  follow_durable(mo, [r](const std::vector<domain_event>& events, int64_t) {
    r->on_durable(events);
  });
  return r;
}

} // namespace det::api
