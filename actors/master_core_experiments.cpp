// master_core: experiments, their searchers and the end of trials.

#include "actors/master_core.hpp"

#include "messages/errc.hpp"
#include "state/queries.hpp"

namespace det {

namespace {

template <class T>
T value_at(const nlohmann::json& j, const char* a, const char* b, T fallback) {
  auto i = j.find(a);
  if (i == j.end() || !i->is_object())
    return fallback;
  auto k = i->find(b);
  if (k == i->end() || k->is_null())
    return fallback;
  try {
    return k->get<T>();
  } catch (const nlohmann::json::exception&) {
    return fallback;
  }
}

nlohmann::json ledger_of(const std::map<uint64_t, int64_t>& trial_of_request,
                         const std::map<int64_t, int64_t>& targets,
                         const std::map<int64_t, bool>& closed) {
  auto out = nlohmann::json::array();
  for (const auto& [req, tid] : trial_of_request) {
    auto t = targets.find(tid);
    auto c = closed.find(tid);
    out.push_back({{"request", req},
                   {"trial", tid},
                   {"target", t == targets.end() ? 0 : t->second},
                   {"closed", c != closed.end() && c->second}});
  }
  return out;
}

} // namespace

caf::error master_core::rebuild_searcher(int64_t experiment_id) {
  const auto& e = st_.experiments.at(experiment_id);
  auto sc = policy::parse_searcher_config(
    e.config.value("searcher", nlohmann::json::object()));
  if (!sc)
    return std::move(sc.error());
  auto s = policy::make_searcher(
    *sc, e.config.value("hyperparameters", nlohmann::json::object()),
    cfg_.seed + static_cast<uint64_t>(experiment_id));
  if (!s)
    return std::move(s.error());
  searcher_entry entry;
  entry.searcher = std::move(*s);
  entry.metric = sc->metric;
  entry.time_metric = sc->time_metric;
  const auto& saved = e.searcher_state;
  if (saved.contains("searcher")) {
    if (auto err = entry.searcher->load(saved["searcher"]))
      return err;
    for (const auto& row : saved.value("trials", nlohmann::json::array())) {
      auto tid = row.at("trial").get<int64_t>();
      entry.trial_of_request[row.at("request").get<uint64_t>()] = tid;
      entry.target_of_trial[tid] = row.at("target").get<int64_t>();
      entry.closed[tid] = row.at("closed").get<bool>();
    }
  }
  searchers_[experiment_id] = std::move(entry);
  return {};
}

decision master_core::submit_experiment(const nlohmann::json& config,
                                        const std::string& owner,
                                        int64_t now_us) {
  decision d;
  experiment_submitted ev;
  ev.experiment_id = state::next_experiment_id(st_);
  ev.owner = owner;
  ev.config = config;
  ev.pool = value_at<std::string>(config, "resources", "resource_pool", "");
  if (ev.pool.empty() && !cfg_.pools.empty())
    ev.pool = cfg_.pools.front().pool;
  ev.slots_per_trial = value_at<int32_t>(config, "resources", "slots_per_trial",
                                         1);
  ev.priority = value_at<int32_t>(config, "resources", "priority", 42);
  ev.weight = value_at<double>(config, "resources", "weight", 1.0);
  ev.max_restarts = config.value("max_restarts", 5);
  ev.at_us = now_us;
  if (state::find_pool(st_, ev.pool) == nullptr) {
    d.refusal = make_error(errc::invalid_argument,
                           "resources.resource_pool: no resource pool named '"
                             + ev.pool + "'");
    return d;
  }
  auto sc = policy::parse_searcher_config(
    config.value("searcher", nlohmann::json::object()));
  if (!sc) {
    d.refusal = std::move(sc.error());
    return d;
  }
  if (!emit(d, ev))
    return d;
  if (auto err = rebuild_searcher(ev.experiment_id)) {
    // The config passed validation but the searcher refuses it: the
    // experiment ends in ERROR rather than hang.
    experiment_state_changed fail;
    fail.experiment_id = ev.experiment_id;
    fail.state = "ERROR";
    fail.reason = render(err);
    fail.at_us = now_us;
    emit(d, fail);
    d.reply = {{"experiment_id", ev.experiment_id}};
    return d;
  }
  auto ops = searchers_[ev.experiment_id].searcher->start();
  run_searcher_ops(d, ev.experiment_id, std::move(ops), now_us);
  schedule_pool(d, ev.pool, now_us);
  d.reply = {{"experiment_id", ev.experiment_id}};
  return d;
}

void master_core::run_searcher_ops(decision& d, int64_t experiment_id,
                                   std::vector<policy::searcher_op> ops,
                                   int64_t now_us) {
  auto& entry = searchers_.at(experiment_id);
  for (size_t i = 0; i < ops.size(); ++i) {
    // Ops may create more ops (trial_created feeds the searcher back).
    auto op = ops[i];
    if (auto c = std::get_if<policy::create_trial>(&op)) {
      trial_created tc;
      tc.trial_id = state::next_trial_id(st_);
      tc.experiment_id = experiment_id;
      tc.hparams = c->hparams;
      tc.request_id = std::to_string(c->id);
      tc.at_us = now_us;
      if (!emit(d, tc))
        continue;
      entry.trial_of_request[c->id] = tc.trial_id;
      auto more = entry.searcher->trial_created(c->id);
      ops.insert(ops.end(), more.begin(), more.end());
    } else if (auto t = std::get_if<policy::train_trial>(&op)) {
      auto tid = entry.trial_of_request[t->id];
      entry.target_of_trial[tid] = static_cast<int64_t>(t->length);
    } else if (auto cl = std::get_if<policy::close_trial>(&op)) {
      auto tid = entry.trial_of_request[cl->id];
      entry.closed[tid] = true;
      auto tr = state::find_trial(st_, tid);
      if (tr != nullptr && !state::is_terminal(tr->status))
        stop_trial(d, tid, "searcher closed", false, now_us);
    }
    // shutdown_experiment: seen through searcher->shut_down() below.
  }
  save_searcher(d, experiment_id);
  maybe_finish_experiment(d, experiment_id, now_us);
}

void master_core::save_searcher(decision& d, int64_t experiment_id) {
  const auto& e = st_.experiments.at(experiment_id);
  if (state::is_terminal(e.status))
    return;
  auto& entry = searchers_.at(experiment_id);
  experiment_searcher_updated ev;
  ev.experiment_id = experiment_id;
  ev.searcher_state = {{"searcher", entry.searcher->save()},
                       {"trials", ledger_of(entry.trial_of_request,
                                            entry.target_of_trial,
                                            entry.closed)}};
  ev.progress = entry.searcher->progress();
  if (ev.searcher_state != e.searcher_state || ev.progress != e.progress)
    emit(d, ev);
}

void master_core::stop_trial(decision& d, int64_t trial_id,
                             const std::string& reason, bool kill,
                             int64_t now_us) {
  auto t = state::find_trial(st_, trial_id);
  if (t == nullptr || state::is_terminal(t->status))
    return;
  if (t->status == state::trial_status::pending
      || t->status == state::trial_status::exited) {
    trial_canceled ev;
    ev.trial_id = trial_id;
    ev.reason = reason;
    ev.at_us = now_us;
    emit(d, ev);
    return;
  }
  auto alloc = *t->allocation;
  if (!alloc.preemption_requested) {
    trial_preemption_requested ev;
    ev.trial_id = trial_id;
    ev.allocation_id = alloc.id;
    ev.reason = reason;
    ev.at_us = now_us;
    emit(d, ev);
  }
  for (const auto& a : alloc.assignments) {
    if (kill)
      d.effects.push_back(kill_order{a.agent_id, alloc.id});
    else
      d.effects.push_back(preempt_order{a.agent_id, alloc.id, reason});
  }
}

void master_core::after_trial_exit(decision& d, int64_t trial_id,
                                   int64_t now_us) {
  auto t = state::find_trial(st_, trial_id);
  if (t == nullptr)
    return;
  auto exp_id = t->experiment_id;
  const auto& e = st_.experiments.at(exp_id);
  auto s = searchers_.find(exp_id);
  bool closed = s != searchers_.end() && s->second.closed[trial_id];
  if (t->status == state::trial_status::exited) {
    bool stopping = state::is_stopping(e.status) || state::is_terminal(e.status);
    if (t->restarts > e.max_restarts) {
      trial_errored ev;
      ev.trial_id = trial_id;
      ev.reason = "trial failed " + std::to_string(t->restarts)
                  + " times (max_restarts " + std::to_string(e.max_restarts)
                  + "); last exit code " + std::to_string(t->last_exit_code);
      ev.at_us = now_us;
      emit(d, ev);
    } else if (stopping || closed) {
      trial_canceled ev;
      ev.trial_id = trial_id;
      ev.reason = closed ? "searcher closed" : "experiment stopping";
      ev.at_us = now_us;
      emit(d, ev);
    } else {
      // Resumes from its latest checkpoint when placed again.
      trial_restarted ev;
      ev.trial_id = trial_id;
      ev.at_us = now_us;
      emit(d, ev);
    }
  }
  t = state::find_trial(st_, trial_id);
  if (s != searchers_.end() && state::is_terminal(t->status)
      && !(t->status == state::trial_status::completed && closed)) {
    auto ops = s->second.searcher->trial_exited_early(
      [&] {
        for (const auto& [req, tid] : s->second.trial_of_request)
          if (tid == trial_id)
            return req;
        return uint64_t{0};
      }());
    run_searcher_ops(d, exp_id, std::move(ops), now_us);
    return;
  }
  maybe_finish_experiment(d, exp_id, now_us);
}

void master_core::maybe_finish_experiment(decision& d, int64_t experiment_id,
                                          int64_t now_us) {
  const auto& e = st_.experiments.at(experiment_id);
  if (state::is_terminal(e.status)
      || state::live_trial_count(st_, experiment_id) > 0)
    return;
  auto s = searchers_.find(experiment_id);
  bool searcher_done = s != searchers_.end() && s->second.searcher->shut_down();
  experiment_state_changed ev;
  ev.experiment_id = experiment_id;
  ev.at_us = now_us;
  if (e.status == state::experiment_status::stopping_killed
      || e.status == state::experiment_status::stopping_canceled) {
    ev.state = "CANCELED";
  } else if (searcher_done) {
    bool any_completed = false;
    for (auto t : state::trials_of_experiment(st_, experiment_id))
      any_completed |= t->status == state::trial_status::completed;
    ev.state = any_completed ? "COMPLETED" : "ERROR";
    if (!any_completed)
      ev.reason = "no trial completed";
  } else {
    return;
  }
  if (emit(d, ev))
    searchers_.erase(experiment_id);
}

const state::experiment_info*
master_core::user_state_change(decision& d, int64_t id, const char* to,
                               const char* verb, int64_t now_us) {
  auto e = state::find_experiment(st_, id);
  if (e == nullptr) {
    d.refusal = make_error(errc::not_found,
                           "experiment " + std::to_string(id) + " not found");
    return nullptr;
  }
  auto from = state::to_string(e->status);
  experiment_state_changed ev{id, to, std::string{verb} + " by user", now_us};
  if (!emit(d, ev)) {
    d.refusal = make_error(errc::invalid_argument,
                           "experiment " + std::to_string(id) + " is " + from
                             + " and cannot be " + verb);
    return nullptr;
  }
  return e;
}

decision master_core::pause_experiment(int64_t id, int64_t now_us) {
  decision d;
  if (user_state_change(d, id, "PAUSED", "paused", now_us) == nullptr)
    return d;
  for (auto t : state::trials_of_experiment(st_, id))
    if (state::holds_allocation(t->status))
      stop_trial(d, t->id, "paused", false, now_us);
  return d;
}

decision master_core::activate_experiment(int64_t id, int64_t now_us) {
  decision d;
  auto e = user_state_change(d, id, "ACTIVE", "activated", now_us);
  if (e == nullptr)
    return d;
  schedule_pool(d, e->pool, now_us);
  return d;
}

decision master_core::kill_experiment(int64_t id, int64_t now_us) {
  decision d;
  auto e = state::find_experiment(st_, id);
  if (e == nullptr) {
    d.refusal = make_error(errc::not_found,
                           "experiment " + std::to_string(id) + " not found");
    return d;
  }
  if (state::is_terminal(e->status))
    return d; // killing an ended experiment changes nothing
  experiment_state_changed ev{id, "STOPPING_KILLED", "killed by user", now_us};
  if (e->status != state::experiment_status::stopping_killed)
    emit(d, ev);
  for (auto t : state::trials_of_experiment(st_, id))
    stop_trial(d, t->id, "killed", true, now_us);
  maybe_finish_experiment(d, id, now_us);
  return d;
}

decision master_core::kill_trial(int64_t id, int64_t now_us) {
  decision d;
  auto t = state::find_trial(st_, id);
  if (t == nullptr) {
    d.refusal = make_error(errc::not_found,
                           "trial " + std::to_string(id) + " not found");
    return d;
  }
  auto exp_id = t->experiment_id;
  stop_trial(d, id, "killed", true, now_us);
  t = state::find_trial(st_, id);
  if (state::is_terminal(t->status))
    after_trial_exit(d, id, now_us);
  else
    maybe_finish_experiment(d, exp_id, now_us);
  return d;
}

} // namespace det
