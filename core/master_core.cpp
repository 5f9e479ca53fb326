// master_core: start, trial reports and time. Agents are in
// master_core_agents.cpp, experiments and the searcher in
// master_core_experiments.cpp, scheduling in master_core_schedule.cpp.

#include "core/master_core.hpp"

#include "core/checkpoint_order.hpp"
#include "core/user_names.hpp"
#include "core/webhooks.hpp"
#include "messages/errc.hpp"
#include "state/queries.hpp"

#include <algorithm>
#include <set>

namespace det {

master_core::master_core(state::cluster_state st, core_config cfg)
    : st_(std::move(st)), cfg_(std::move(cfg)) {}

namespace {

/// The trial whose end or validation `ev` may have queued as a searcher
/// input; 0 for other events.
int64_t searcher_input_trial(const domain_event& ev) {
  if (auto m = std::get_if<trial_metrics_reported>(&ev))
    return m->kind == "validation" ? m->trial_id : 0;
  if (auto x = std::get_if<trial_exited>(&ev))
    return x->trial_id;
  if (auto x = std::get_if<trial_errored>(&ev))
    return x->trial_id;
  if (auto x = std::get_if<trial_canceled>(&ev))
    return x->trial_id;
  return 0;
}

/// A stop the operator forced by taking the trial's slots away (`det agent
/// disable` or `det slot disable` without --drain).
bool forced_off_its_agent(const std::string& reason) {
  return reason == "agent_disabled" || reason == "slot_disabled";
}

} // namespace

bool master_core::emit(decision& d, domain_event ev) {
  // A value from a client the log could not hold is the command's fault:
  // refused here, it never reaches the append (which would stop the
  // master). The master's own prose is fitted instead.
  fit_prose(ev);
  if (auto err = storable(ev)) {
    if (!d.refusal)
      d.refusal = std::move(err);
    return false;
  }
  recorded_event meta;
  meta.position = st_.position + 1;
  meta.stream = stream_of(ev);
  if (auto err = state::apply(st_, meta, ev)) {
    // A decision the state refuses is a bug in the deciding code; the
    // command fails loudly instead of writing it.
    if (!d.refusal)
      d.refusal = make_error(errc::invariant_violated,
                             "master decided an invalid event: " + render(err));
    return false;
  }
  views_.note(meta.stream);
  if (auto tid = searcher_input_trial(ev)) {
    auto exp_id = st_.trials.at(tid).experiment_id;
    if (!st_.experiments.at(exp_id).searcher_inbox.empty())
      d.searchers.insert(exp_id);
  }
  // Webhooks whose trigger names the new state: their deliveries are
  // decided with the change, so a restart cannot lose them.
  const auto* change = std::get_if<experiment_state_changed>(&ev);
  auto due = change == nullptr
                 ? std::vector<webhook_delivery_due>{}
                 : state_change_deliveries(st_, change->experiment_id,
                                           change->state, change->at_us);
  d.events.push_back(std::move(ev));
  for (auto& w : due)
    emit(d, std::move(w));
  return true;
}

decision master_core::start(int64_t now_us) {
  decision d;
  started_at_us_ = now_us;
  master_started ms;
  ms.cluster_id = st_.cluster_id.empty() ? cfg_.cluster_id : st_.cluster_id;
  ms.host = cfg_.host;
  ms.pid = cfg_.pid;
  ms.master_version = cfg_.master_version;
  ms.at_us = now_us;
  ms.cluster_uuid =
      st_.cluster_uuid.empty() ? cfg_.new_cluster_uuid : st_.cluster_uuid;
  ms.master_uuid = cfg_.master_uuid;
  emit(d, ms);
  for (const auto& pool : cfg_.pools) {
    auto known = state::find_pool(st_, pool.pool);
    if (known == nullptr
        || to_envelope(known->config).payload != to_envelope(pool).payload)
      emit(d, pool);
  }
  // Agents connected to the previous master get the reconnect wait.
  std::vector<std::string> connected;
  for (const auto& [id, a] : st_.agents)
    if (a.status == state::agent_status::connected)
      connected.push_back(id);
  for (const auto& id : connected) {
    det::agent_disconnected ev;
    ev.agent_id = id;
    ev.reason = "master restarted";
    ev.reconnect_deadline_us = now_us + cfg_.agent_reconnect_wait_us;
    ev.at_us = now_us;
    emit(d, ev);
  }
  // Trials the previous master left exited still need their next step,
  // and searchers may have inputs it did not feed them.
  for (const auto& [id, t] : st_.trials)
    if (t.status == state::trial_status::exited)
      after_trial_exit(d, id, now_us);
  for (const auto& [id, e] : st_.experiments)
    if (!e.searcher_inbox.empty() && !state::is_terminal(e.status))
      d.searchers.insert(id);
  settle_model_definitions(d, now_us);
  return drive(std::move(d), now_us);
}

decision master_core::allocation_running(const std::string& allocation_id,
                                         int64_t now_us) {
  decision d;
  if (task_running_reported(d, allocation_id, now_us))
    return d;
  auto t = state::trial_of_allocation(st_, allocation_id);
  if (t == nullptr || t->status != state::trial_status::assigned)
    return d; // stale or repeated report
  trial_running ev;
  ev.trial_id = t->id;
  ev.allocation_id = allocation_id;
  ev.at_us = now_us;
  emit(d, ev);
  return d;
}

decision master_core::allocation_exited(const std::string& allocation_id,
                                        int32_t exit_code, int64_t now_us) {
  decision d;
  if (task_exit_reported(d, allocation_id, exit_code, now_us))
    return d;
  auto t = state::trial_of_allocation(st_, allocation_id);
  if (t == nullptr)
    return d; // already ended (agent lost, killed, a repeated report)
  auto pool = st_.experiments.at(t->experiment_id).pool;
  exit_allocation(d, allocation_id, exit_code, now_us);
  schedule_pool(d, pool, now_us);
  return drive(std::move(d), now_us);
}

bool master_core::exit_allocation(decision& d, const std::string& allocation_id,
                                  int32_t exit_code, int64_t now_us) {
  if (task_exit_reported(d, allocation_id, exit_code, now_us))
    return true;
  auto t = state::trial_of_allocation(st_, allocation_id);
  if (t == nullptr)
    return false;
  const auto& alloc = *t->allocation;
  trial_exited ev;
  ev.trial_id = t->id;
  ev.allocation_id = allocation_id;
  ev.exit_code = exit_code;
  ev.at_us = now_us;
  const auto& exp = st_.experiments.at(t->experiment_id);
  if (alloc.preemption_requested) {
    // Asked to stop: a clean exit is what was asked for.
    if (alloc.preemption_reason == "killed")
      ev.reason = "killed";
    else if (forced_off_its_agent(alloc.preemption_reason))
      // An operator took the slots away (disable without drain): the kill
      // is theirs, not a failure of the trial's.
      ev.reason = "preempted";
    else if ((alloc.preemption_reason == "searcher closed"
              || alloc.preemption_reason == "stopped by searcher")
             && exit_code == 0)
      ev.reason = "completed";
    else if (exit_code == 0)
      ev.reason = exp.status == state::experiment_status::paused ? "paused"
                                                                 : "preempted";
    else
      ev.reason = alloc.preemption_reason == "killed" ? "killed" : "failed";
  } else {
    ev.reason = exit_code == 0 ? "completed" : "failed";
  }
  auto trial_id = t->id;
  if (!emit(d, ev))
    return false;
  after_trial_exit(d, trial_id, now_us);
  return true;
}

const state::trial_info* master_core::live_trial(decision& d,
                                                 const std::string& alloc) {
  auto t = state::trial_of_allocation(st_, alloc);
  if (t == nullptr)
    d.refusal =
        make_error(errc::not_found, "no live allocation '" + alloc + "'");
  return t;
}

decision master_core::checkpoint_reported(const std::string& allocation_id,
                                          const std::string& uuid,
                                          int64_t steps,
                                          const nlohmann::json& metadata,
                                          int64_t now_us) {
  decision d;
  auto t = live_trial(d, allocation_id);
  if (t == nullptr)
    return d;
  // A report sent again (the harness retries one the master did not
  // acknowledge before it was killed) changes nothing.
  for (const auto& c : t->checkpoints)
    if (c.uuid == uuid)
      return d;
  if (auto older = older_checkpoint_refusal(*t, steps)) {
    d.refusal = std::move(*older);
    return d;
  }
  trial_checkpointed ev;
  ev.trial_id = t->id;
  ev.allocation_id = allocation_id;
  ev.uuid = uuid;
  ev.steps_completed = steps;
  ev.metadata = metadata.is_object() ? metadata : nlohmann::json::object();
  ev.at_us = now_us;
  emit(d, ev);
  return d;
}

decision master_core::metrics_reported(const std::string& allocation_id,
                                       const std::string& kind, int64_t steps,
                                       const nlohmann::json& metrics,
                                       int64_t now_us) {
  decision d;
  auto t = live_trial(d, allocation_id);
  if (t == nullptr)
    return d;
  trial_metrics_reported ev;
  ev.trial_id = t->id;
  ev.allocation_id = allocation_id;
  ev.kind = kind;
  ev.steps_completed = steps;
  ev.metrics = metrics;
  ev.at_us = now_us;
  emit(d, ev);
  // A validation is queued for the experiment's searcher (state::apply).
  return drive(std::move(d), now_us);
}

decision master_core::tick(int64_t now_us) {
  decision d;
  for (const auto& id : state::agents_past_reconnect_deadline(st_, now_us))
    lose_agent(d, id, "reconnect_timeout", now_us);
  // Trials asked to stop that did not: killed (once per allocation).
  for (const auto& [alloc, trial_id] : st_.allocations) {
    const auto& a = *st_.trials.at(trial_id).allocation;
    if (!a.preemption_requested || killed_.count(alloc) != 0
        || now_us - a.preemption_requested_at_us < cfg_.preemption_timeout_us)
      continue;
    killed_.insert(alloc);
    for (const auto& as : a.assignments)
      d.effects.push_back(kill_order{as.agent_id, alloc});
  }
  sweep_lost_unmanaged(d, now_us);
  sweep_old_tasks(d, now_us);
  for (const auto& [name, settings] : cfg_.consolidation)
    consolidate_into(d, name, now_us);
  for (const auto& [name, pool] : st_.pools)
    schedule_pool(d, name, now_us);
  return drive(std::move(d), now_us);
}

int64_t master_core::target_length(int64_t trial_id) const {
  auto t = state::find_trial(st_, trial_id);
  if (t == nullptr)
    return 0;
  const auto& e = st_.experiments.at(t->experiment_id);
  auto line = ledger_line(e.searcher_state, t->request_id);
  return line ? line->target : 0;
}

} // namespace det

namespace det {

decision with_refusal(decision& d, errc code, std::string why) {
  d.refusal = make_error(code, std::move(why));
  return std::move(d);
}

namespace {

/// The names a user_edited gives `was`, checked as upstream checks them
/// (against the account as it is, before the edit): "" or the refusal,
/// naming the field.
std::string edited_name_problem(const state::user_info& was,
                                const user_edited& ev) {
  if (ev.new_username != was.username)
    if (auto why =
            reserved_name_problem(ev.new_username, was.username, was.admin);
        !why.empty())
      return "username: " + why;
  if (ev.display_name != was.display_name && !ev.display_name.empty())
    if (auto why =
            reserved_name_problem(ev.display_name, was.username, was.admin);
        !why.empty())
      return "displayName: " + why;
  return {};
}

} // namespace

decision master_core::change_users(const domain_event& ev) {
  decision d;
  auto refuse = [&d](errc code, std::string why) {
    d.refusal = make_error(code, std::move(why));
  };
  if (auto c = std::get_if<user_created>(&ev)) {
    if (st_.users.count(c->username) != 0)
      refuse(errc::conflict, "user '" + c->username + "' already exists");
    else if (auto why =
                 reserved_name_problem(c->username, c->username, c->admin);
             !why.empty())
      refuse(errc::invalid_argument, "username: " + why);
  } else if (auto p = std::get_if<user_password_changed>(&ev)) {
    if (st_.users.count(p->username) == 0)
      refuse(errc::not_found, "user '" + p->username + "' not found");
  } else if (auto b = std::get_if<session_started>(&ev)) {
    if (st_.users.count(b->username) == 0)
      refuse(errc::not_found, "user '" + b->username + "' not found");
  } else if (auto e = std::get_if<session_ended>(&ev)) {
    if (st_.sessions.count(e->token_hash) == 0)
      return d; // logged out already
  } else if (auto u = std::get_if<user_edited>(&ev)) {
    auto was = st_.users.find(u->username);
    if (was == st_.users.end())
      refuse(errc::not_found, "user '" + u->username + "' not found");
    else if (u->new_username != u->username
             && st_.users.count(u->new_username) != 0)
      refuse(errc::conflict, "user '" + u->new_username + "' already exists");
    else if (auto why = edited_name_problem(was->second, *u); !why.empty())
      refuse(errc::invalid_argument, why);
  } else if (auto t = std::get_if<access_token_created>(&ev)) {
    if (st_.users.count(t->username) == 0) {
      refuse(errc::not_found, "user '" + t->username + "' not found");
    } else {
      // The core numbers tokens: the caller's id is ignored.
      auto made = *t;
      made.token_id =
          st_.access_tokens.empty() ? 1 : st_.access_tokens.rbegin()->first + 1;
      emit(d, made);
      return d;
    }
  } else if (auto tc = std::get_if<access_token_changed>(&ev)) {
    auto i = st_.access_tokens.find(tc->token_id);
    if (i == st_.access_tokens.end())
      refuse(errc::not_found,
             "access token " + std::to_string(tc->token_id) + " not found");
    else if (i->second.revoked && !tc->revoked)
      refuse(errc::invalid_argument,
             "access token " + std::to_string(tc->token_id)
                 + " is revoked: it cannot be restored");
    else if (i->second.description == tc->description
             && i->second.revoked == tc->revoked)
      return d; // nothing changes
  } else if (std::holds_alternative<cluster_message_set>(ev)) {
    // Any message (or none) may follow any other.
  } else {
    refuse(errc::invalid_argument,
           std::string{"not a user or session event: "} + type_name_of(ev));
  }
  if (!d.refusal)
    emit(d, ev);
  return d;
}

} // namespace det
