#include "command_generator.hpp"

#include "state/queries.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace det::state::test {

namespace {

constexpr int kinds = 47;

// Failures weighted up so that restarts run out now and then.
const std::vector<std::string> exit_reasons{
    "completed", "killed", "failed",     "failed",        "failed",
    "preempted", "paused", "agent_lost", "spot_reclaimed"};

} // namespace

namespace {

/// Whether `ev` is the master's lifecycle of a trial or experiment that is
/// unmanaged (its client sets its states): apply refuses those.
bool drives_unmanaged(const cluster_state& s, const domain_event& ev) {
  auto unmanaged_exp = [&s](int64_t id) {
    auto e = s.experiments.find(id);
    return e != s.experiments.end() && e->second.unmanaged;
  };
  auto unmanaged_trial = [&](int64_t id) {
    auto t = s.trials.find(id);
    return t != s.trials.end() && unmanaged_exp(t->second.experiment_id);
  };
  if (auto x = std::get_if<trial_created>(&ev))
    return unmanaged_exp(x->experiment_id);
  if (auto x = std::get_if<experiment_state_changed>(&ev))
    return unmanaged_exp(x->experiment_id);
  if (auto x = std::get_if<experiment_continued>(&ev))
    return unmanaged_exp(x->experiment_id);
  if (auto x = std::get_if<trial_placed>(&ev))
    return unmanaged_trial(x->trial_id);
  if (auto x = std::get_if<trial_errored>(&ev))
    return unmanaged_trial(x->trial_id);
  if (auto x = std::get_if<trial_canceled>(&ev))
    return unmanaged_trial(x->trial_id);
  if (auto x = std::get_if<trial_restarted>(&ev))
    return unmanaged_trial(x->trial_id);
  return false;
}

} // namespace

domain_event command_generator::next(const cluster_state& s) {
  // Until there is a pool, nothing else can happen.
  if (s.pools.empty())
    return *try_kind(s, 0);
  for (;;)
    if (auto ev = try_kind(s, static_cast<int>(below(kinds)));
        ev && !drives_unmanaged(s, *ev))
      return *ev;
}

std::optional<domain_event> command_generator::try_kind(const cluster_state& s,
                                                        int kind) {
  auto active_exps = where(s.experiments, [](const experiment_info& e) {
    return e.status == experiment_status::active
           || e.status == experiment_status::paused;
  });
  auto holding = where(
      s.trials, [](const trial_info& t) { return t.allocation.has_value(); });
  auto connected = where(s.agents, [](const agent_info& a) {
    return a.status == agent_status::connected;
  });
  switch (kind) {
  case 0: {
    pool_configured p;
    p.pool = chance(50) ? "static" : "aws";
    p.provider = p.pool == "aws" ? "aws" : "";
    p.max_instances = static_cast<int32_t>(below(6));
    p.max_idle_agent_period_s = 1 + static_cast<int64_t>(below(600));
    return p;
  }
  case 1:
    if (!chance(10))
      return std::nullopt;
    return master_started{"cluster-1", "host", static_cast<int64_t>(below(9)),
                          "0.1.0", tick()};
  case 2:
  case 3: {
    // A new agent, static or on an instance without one.
    std::vector<std::string> pools;
    for (const auto& [name, p] : s.pools)
      pools.push_back(name);
    auto pool = pick(pools);
    std::string instance;
    auto free_instances = where(s.instances, [&](const instance_info& i) {
      return i.agent_id.empty() && s.agents.count(i.id) == 0;
    });
    if (!free_instances.empty() && chance(60)) {
      instance = pick(free_instances)->id;
      pool = s.instances.at(instance).pool;
    }
    auto id = instance.empty() ? "a" + std::to_string(next_agent_++) : instance;
    if (s.agents.count(id) != 0)
      return std::nullopt;
    return agent_connected{id,     pool,     1 + static_cast<int32_t>(below(4)),
                           "cuda", instance, tick()};
  }
  case 4: {
    auto xs = where(s.agents, [](const agent_info& a) {
      return a.status == agent_status::disconnected;
    });
    if (xs.empty())
      return std::nullopt;
    const auto& a = *pick(xs);
    return agent_connected{
        a.id,        a.pool,        static_cast<int32_t>(a.slots.size()),
        a.slot_type, a.instance_id, tick()};
  }
  case 5: {
    if (connected.empty())
      return std::nullopt;
    auto at = tick();
    return agent_disconnected{pick(connected)->id, "closed", at + 25'000'000,
                              at};
  }
  case 6: {
    if (s.agents.empty() || !chance(50))
      return std::nullopt;
    auto xs = where(s.agents, [](const agent_info&) { return true; });
    return agent_lost{pick(xs)->id, pick(agent_lost_reasons()), tick()};
  }
  case 7: {
    if (connected.empty())
      return std::nullopt;
    const auto& a = *pick(connected);
    if (!a.enabled)
      return agent_enabled{a.id};
    return agent_disabled{a.id, chance(50), chance(20)};
  }
  case 8: {
    std::vector<std::string> pools;
    for (const auto& [name, p] : s.pools)
      pools.push_back(name);
    experiment_submitted e;
    e.experiment_id = next_experiment_id(s);
    e.pool = pick(pools);
    e.priority = static_cast<int32_t>(1 + below(99));
    e.max_restarts = static_cast<int32_t>(below(3));
    e.slots_per_trial = static_cast<int32_t>(1 + below(3));
    e.config = {{"searcher", {{"metric", "loss"}}}};
    e.at_us = tick();
    // Some are created as the API does, their model definition pending;
    // some are unmanaged (their trials come from case 44).
    e.model_definition_pending = chance(30);
    if (!e.model_definition_pending && chance(15)) {
      e.unmanaged = true;
      if (chance(50))
        e.external_id = "ext-" + std::to_string(e.experiment_id);
    }
    return e;
  }
  case 9:
  case 10:
    return change_experiment(s);
  case 11: {
    if (active_exps.empty())
      return std::nullopt;
    return experiment_searcher_updated{
        pick(active_exps)->id,
        {{"step", static_cast<int64_t>(below(1000))}},
        static_cast<double>(below(101)) / 100.0};
  }
  case 12:
  case 13: {
    if (active_exps.empty())
      return std::nullopt;
    auto id = next_trial_id(s);
    return trial_created{id,
                         pick(active_exps)->id,
                         {{"lr", static_cast<double>(below(100)) / 1000.0}},
                         "req-" + std::to_string(id),
                         tick()};
  }
  case 14:
  case 15:
  case 16:
    return place(s);
  case 17: {
    auto xs = where(s.trials, [](const trial_info& t) {
      return t.status == trial_status::assigned;
    });
    if (xs.empty())
      return std::nullopt;
    const auto& t = *pick(xs);
    return trial_running{t.id, t.allocation->id, tick()};
  }
  case 18: {
    if (holding.empty())
      return std::nullopt;
    const auto& t = *pick(holding);
    if (t.allocation->preemption_requested)
      return std::nullopt;
    return trial_preemption_requested{t.id, t.allocation->id, "scheduler",
                                      tick()};
  }
  case 19: {
    if (holding.empty())
      return std::nullopt;
    const auto& t = *pick(holding);
    auto steps =
        (t.latest_checkpoint ? t.latest_checkpoint->steps_completed : 0)
        + static_cast<int64_t>(below(100));
    return trial_checkpointed{
        t.id,       "ck-" + std::to_string(next_checkpoint_++), steps,
        {{"n", 1}}, chance(50) ? t.allocation->id : "",         tick()};
  }
  case 20: {
    if (holding.empty())
      return std::nullopt;
    const auto& t = *pick(holding);
    return trial_metrics_reported{
        t.id,
        t.allocation->id,
        chance(50) ? "training" : "validation",
        t.metrics.steps_completed + static_cast<int64_t>(below(50)),
        {{"loss", static_cast<double>(below(1000)) / 100.0}},
        tick()};
  }
  case 21:
  case 22: {
    if (holding.empty())
      return std::nullopt;
    const auto& t = *pick(holding);
    const auto& why = exit_reasons[below(exit_reasons.size())];
    return trial_exited{t.id, t.allocation->id, why == "failed" ? 1 : 0, why,
                        tick()};
  }
  case 23: {
    auto xs = where(s.trials, [&](const trial_info& t) {
      const auto& e = s.experiments.at(t.experiment_id);
      return t.status == trial_status::exited && t.restarts <= e.max_restarts
             && !is_terminal(e.status);
    });
    if (xs.empty())
      return std::nullopt;
    return trial_restarted{pick(xs)->id, tick()};
  }
  case 24: {
    auto xs = where(s.trials, [](const trial_info& t) {
      return t.status == trial_status::pending
             || t.status == trial_status::exited;
    });
    if (xs.empty())
      return std::nullopt;
    const auto& t = *pick(xs);
    if (chance(50))
      return trial_errored{t.id, "restarts exhausted", tick()};
    return trial_canceled{t.id, "experiment canceled", tick()};
  }
  case 25: {
    if (s.pools.count("aws") == 0)
      return std::nullopt;
    auto seq = next_launch_seq(s, "aws");
    return instance_launch_requested{
        "aws",
        seq,
        make_client_token(s.cluster_id, "aws", seq),
        1 + static_cast<int32_t>(below(3)),
        chance(40),
        tick()};
  }
  case 26: {
    if (s.pools.count("aws") == 0)
      return std::nullopt;
    const auto& launches = s.pools.at("aws").launches;
    if (launches.empty())
      return std::nullopt;
    auto it = launches.begin();
    std::advance(it, static_cast<long>(below(launches.size())));
    const auto& l = it->second;
    if (chance(30))
      return instance_launch_failed{"aws", l.seq, pick(launch_error_kinds()),
                                    "boom", tick()};
    if (l.spot)
      return spot_request_opened{"sir-" + std::to_string(next_request_++),
                                 "aws", l.seq, tick()};
    return instance_pending{"i-" + std::to_string(next_instance_++), "aws",
                            l.seq, tick()};
  }
  case 27: {
    auto xs = where(s.instances, [](const instance_info& i) {
      return i.status != instance_status::terminating;
    });
    if (xs.empty())
      return std::nullopt;
    const auto& i = *pick(xs);
    if (i.status == instance_status::pending && chance(60))
      return instance_running{i.id, tick()};
    return instance_terminate_requested{i.id, "idle", tick()};
  }
  case 28: {
    if (s.instances.empty() || !chance(40))
      return std::nullopt;
    auto xs = where(s.instances, [](const instance_info&) { return true; });
    return instance_terminated{pick(xs)->id, "terminated", tick()};
  }
  case 29: {
    if (s.spot_requests.empty()) {
      if (s.pools.count("aws") == 0 || !chance(20))
        return std::nullopt;
      return spot_request_opened{"sir-" + std::to_string(next_request_++),
                                 "aws", 0, tick()};
    }
    auto xs =
        where(s.spot_requests, [](const spot_request_info&) { return true; });
    const auto& r = *pick(xs);
    if (chance(70))
      return spot_request_fulfilled{
          r.id, "i-" + std::to_string(next_instance_++), tick()};
    return spot_request_cancelled{r.id, "price-too-low", tick()};
  }
  case 36: {
    // A Kubernetes pool's nodes came or went: grow, or shrink (past slots in
    // use too: they stay until freed).
    if (!s.agents.empty() && chance(30)) {
      auto all = where(s.agents, [](const agent_info&) { return true; });
      return agent_slots_changed{pick(all)->id, static_cast<int32_t>(below(6)),
                                 tick()};
    }
    auto agents =
        where(s.agents, [](const agent_info& a) { return !a.slots.empty(); });
    if (agents.empty())
      return std::nullopt;
    const auto& a = *pick(agents);
    auto slot = static_cast<int64_t>(below(a.slots.size()));
    if (std::binary_search(a.disabled_slots.begin(), a.disabled_slots.end(),
                           slot))
      return slot_enabled{a.id, slot};
    return slot_disabled{a.id, slot, chance(50)};
  }
  case 35: {
    if (chance(30))
      return cluster_message_set{chance(50) ? "" : "maintenance", tick(),
                                 chance(50) ? 0 : tick() + 1000, "u1", tick()};
    auto live = where(s.experiments, [](const experiment_info& e) {
      return !is_terminal(e.status);
    });
    if (live.empty())
      return std::nullopt;
    const auto& e = *pick(live);
    return experiment_resources_changed{
        e.id,           static_cast<int32_t>(1 + below(99)),
        1.0 + below(3), static_cast<int32_t>(below(3)),
        "u1",           tick()};
  }
  case 34: {
    auto users = where(s.users, [](const user_info&) { return true; });
    if (users.empty())
      return std::nullopt;
    const auto& u = *pick(users);
    if (!s.access_tokens.empty() && chance(50)) {
      auto it = s.access_tokens.begin();
      std::advance(it, static_cast<long>(below(s.access_tokens.size())));
      return access_token_changed{it->first,
                                  it->second.username,
                                  "d" + std::to_string(below(3)),
                                  it->second.revoked || chance(30),
                                  "u1",
                                  tick()};
    }
    char hash[65];
    std::snprintf(hash, sizeof hash, "%064llx",
                  static_cast<unsigned long long>(s.position + 1) << 8);
    int64_t next =
        s.access_tokens.empty() ? 1 : s.access_tokens.rbegin()->first + 1;
    return access_token_created{
        next, u.username, hash, "ci", chance(50) ? 0 : tick() + 1000,
        "u1", tick()};
  }
  case 33: {
    auto users = where(s.users, [](const user_info&) { return true; });
    if (users.empty())
      return std::nullopt;
    const auto& u = *pick(users);
    // Sometimes a rename (to a fresh name), else other fields.
    auto name = chance(20) ? "r" + std::to_string(s.position + 1) : u.username;
    return user_edited{u.username,
                       name,
                       "display " + std::to_string(below(5)),
                       chance(50),
                       chance(80),
                       chance(50) ? -1 : static_cast<int64_t>(below(2000)),
                       chance(50) ? -1 : static_cast<int64_t>(below(2000)),
                       chance(50) ? "" : "agent",
                       chance(50) ? "" : "group",
                       "u1",
                       tick()};
  }
  case 32:
    return experiment_records(s);
  case 44:
    return unmanaged_trials(s);
  case 43:
    return runs(s);
  case 37: {
    // Checkpoint deletion: completed -> deleting -> deleted.
    // A deleted experiment's checkpoints still being deleted.
    for (const auto& [id, o] : s.orphan_checkpoints)
      if (chance(60))
        return checkpoints_deleted{id, {o.uuids.front()}, tick()};
    for (const auto& [id, t] : s.trials)
      for (const auto& c : t.checkpoints) {
        // checkpoint rm: a removal, then the files left.
        if (c.removing_files && chance(60))
          return checkpoint_files_removed{
              t.experiment_id, c.uuid,
              chance(40) ? nlohmann::json::object()
                         : nlohmann::json{{"f" + std::to_string(below(3)), 1}},
              tick()};
        // A user's metadata, the files kept apart.
        if (chance(10))
          return checkpoint_metadata_set{
              t.experiment_id, c.uuid,
              nlohmann::json{{"k" + std::to_string(below(3)), below(9)}}, "u1",
              tick()};
        if (!c.removing_files && c.state != "deleting" && chance(15))
          return checkpoint_files_removal_requested{
              t.experiment_id, {c.uuid}, {"state*"}, "u1", tick()};
        if (c.state == "deleting" && chance(60))
          return checkpoints_deleted{t.experiment_id, {c.uuid}, tick()};
        if (c.state == "completed" && chance(30))
          return checkpoints_deletion_requested{t.experiment_id,
                                                {c.uuid},
                                                chance(50) ? "gc" : "delete",
                                                "u1",
                                                tick()};
      }
    return std::nullopt;
  }
  case 38:
  case 39:
  case 40:
  case 41:
    return records(s);
  case 42:
    return webhooks(s);
  case 45:
  case 46:
    return tasks(s);
  case 31: {
    auto pending = where(s.experiments, [](const experiment_info& e) {
      return e.model_definition_pending;
    });
    if (pending.empty())
      return std::nullopt;
    return experiment_model_stored{pick(pending)->id, tick()};
  }
  case 30: {
    if (s.users.size() < 3 && (s.users.empty() || chance(30)))
      return user_created{"u" + std::to_string(s.users.size() + 1), chance(50),
                          "", tick()};
    if (!s.sessions.empty() && chance(40)) {
      auto it = s.sessions.begin();
      std::advance(it, static_cast<long>(below(s.sessions.size())));
      return session_ended{it->second, it->first, tick()};
    }
    auto users = where(s.users, [](const user_info&) { return true; });
    const auto& u = *pick(users);
    if (chance(30))
      return user_password_changed{u.username, "pbkdf2-sha256$1$00$11", tick()};
    // The next position is unique: a fresh 64-hex-digit token hash.
    char hash[65];
    std::snprintf(hash, sizeof hash, "%064llx",
                  static_cast<unsigned long long>(s.position + 1));
    return session_started{u.username, hash, tick()};
  }
  }
  return std::nullopt;
}

std::optional<domain_event> command_generator::place(const cluster_state& s) {
  auto xs = where(s.trials, [&](const trial_info& t) {
    const auto& e = s.experiments.at(t.experiment_id);
    return t.status == trial_status::pending
           && e.status == experiment_status::active
           && t.restarts <= e.max_restarts;
  });
  if (xs.empty())
    return std::nullopt;
  const auto& t = *pick(xs);
  const auto& e = s.experiments.at(t.experiment_id);
  auto agents = agents_of_pool(s, e.pool);
  std::shuffle(agents.begin(), agents.end(), rng_);
  int64_t need = e.slots_per_trial;
  std::vector<slot_assignment> as;
  for (const auto* a : agents) {
    if (need == 0)
      break;
    if (!schedulable(*a))
      continue;
    auto free = free_slot_ids(*a);
    if (free.empty())
      continue;
    std::shuffle(free.begin(), free.end(), rng_);
    free.resize(static_cast<size_t>(
        std::min<int64_t>(need, static_cast<int64_t>(free.size()))));
    std::sort(free.begin(), free.end());
    need -= static_cast<int64_t>(free.size());
    as.push_back({a->id, std::move(free)});
  }
  if (need > 0)
    return std::nullopt;
  return trial_placed{t.id, next_allocation_id(t), std::move(as), tick()};
}

} // namespace det::state::test
