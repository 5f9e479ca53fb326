// The command generator's experiments once submitted: their state changes
// (pause, activate, stop, end), their records (edited, archived, continued,
// deleted, log retention, checkpoint GC policy), their runs (deleted,
// archived, matched by a log policy) and an unmanaged experiment's trials.

#include "command_generator.hpp"

#include "state/queries.hpp"

#include <string>
#include <vector>

namespace det::state::test {

std::optional<domain_event>
command_generator::experiment_records(const cluster_state& s) {
  auto all = where(s.experiments, [](const experiment_info&) { return true; });
  if (all.empty())
    return std::nullopt;
  const auto& e = *pick(all);
  if (is_terminal(e.status) && !e.deleting && chance(15))
    return experiment_deletion_started{e.id, "u1", tick()};
  if (is_terminal(e.status) && chance(20))
    return experiment_deleted{e.id, "u1", tick()};
  if (is_terminal(e.status) && !e.archived && !e.deleting && chance(30)) {
    experiment_continued c;
    c.experiment_id = e.id;
    c.config = e.config;
    for (auto tid : e.trial_ids)
      if (chance(70) && !s.trials.at(tid).deleted)
        c.trial_ids.push_back(tid);
    c.searcher_state = e.searcher_state;
    c.username = "u1";
    c.at_us = tick();
    return c;
  }
  if (is_terminal(e.status) && chance(50))
    return experiment_archived{e.id, !e.archived, "u1", tick()};

  if (chance(10))
    return log_retention_set{e.id,
                             chance(50) || e.trial_ids.empty()
                                 ? std::vector<int64_t>{}
                                 : std::vector<int64_t>{e.trial_ids.front()},
                             static_cast<int64_t>(below(4)) - 1, "u1", tick()};
  if (chance(15))
    return experiment_gc_policy_changed{e.id,
                                        static_cast<int64_t>(below(3)),
                                        static_cast<int64_t>(below(3)),
                                        static_cast<int64_t>(below(3)),
                                        "u1",
                                        tick()};
  return experiment_edited{e.id,
                           "name-" + std::to_string(below(100)),
                           "description " + std::to_string(below(100)),
                           "",
                           {"l" + std::to_string(below(5))},
                           "u1",
                           tick()};
}

std::optional<domain_event>
command_generator::unmanaged_trials(const cluster_state& s) {
  // Unmanaged trials: created (or put again by their external id), and
  // set to any state their client likes.
  auto unmanaged = where(s.experiments,
                         [](const experiment_info& e) { return e.unmanaged; });
  if (unmanaged.empty())
    return std::nullopt;
  const auto& e = *pick(unmanaged);
  if (e.trial_ids.empty() || chance(30)) {
    auto ext = chance(50) ? "t" + std::to_string(below(3)) : std::string{};
    auto known = find_unmanaged_trial(s, e, ext);
    return unmanaged_trial_created{
        known ? known->id : next_trial_id(s),
        e.id,
        ext,
        {{"lr", static_cast<double>(below(100)) / 1000.0}},
        "u1",
        tick()};
  }
  auto tid = e.trial_ids[below(e.trial_ids.size())];
  if (s.trials.at(tid).deleted)
    return std::nullopt;
  static const char* states[] = {"PAUSED", "RUNNING", "COMPLETED", "CANCELED",
                                 "ERROR"};
  auto st = std::string{states[below(5)]};
  return unmanaged_trial_state_set{
      tid, e.id, st, st == "RUNNING" && chance(50), "", "u1", tick()};
}

std::optional<domain_event> command_generator::runs(const cluster_state& s) {
  // Runs of an experiment with trials: one ended, undeleted trial deleted
  // (its experiment ended) or archived; a live one matching a log policy.
  auto with_trials = where(s.experiments, [](const experiment_info& e) {
    return !e.trial_ids.empty();
  });
  if (with_trials.empty())
    return std::nullopt;
  const auto& e = *pick(with_trials);
  if (is_terminal(e.status) && chance(50))
    for (auto tid : e.trial_ids)
      if (!s.trials.at(tid).deleted && is_terminal(s.trials.at(tid).status))
        return runs_deleted{e.id, {tid}, "u1", tick()};
  for (auto tid : e.trial_ids) {
    const auto& t = s.trials.at(tid);
    if (t.deleted || !chance(50))
      continue;
    if (!is_terminal(t.status))
      return trial_log_policy_matched{
          tid,
          e.id,
          "p" + std::to_string(t.log_policies_fired.size()),
          "x",
          chance(50) ? "cancel_retries" : "exclude_node",
          "a" + std::to_string(below(3)),
          "line",
          tick()};
    if (!e.archived)
      return runs_archived{e.id, {tid}, !t.archived, "u1", tick()};
  }
  return std::nullopt;
}

std::optional<domain_event>
command_generator::change_experiment(const cluster_state& s) {
  auto xs = where(s.experiments, [](const experiment_info& e) {
    return !is_terminal(e.status);
  });
  if (xs.empty())
    return std::nullopt;
  const auto& e = *pick(xs);
  std::vector<std::string> to;
  // Pausing and resuming weighted up: stopping ends an experiment's story.
  if (e.status == experiment_status::active)
    to.insert(to.end(), 4, "PAUSED");
  if (e.status == experiment_status::paused)
    to.insert(to.end(), 4, "ACTIVE");
  for (auto st : {"STOPPING_COMPLETED", "STOPPING_CANCELED", "STOPPING_KILLED",
                  "STOPPING_ERROR"})
    if (to_string(e.status) != std::string{st})
      to.push_back(st);
  if (live_trial_count(s, e.id) == 0)
    for (auto st : {"COMPLETED", "CANCELED", "ERROR"})
      to.push_back(st);
  return experiment_state_changed{e.id, pick(to), "generated", tick()};
}

} // namespace det::state::test
