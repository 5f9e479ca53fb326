// master_core::decide: every `command` (core/commands.hpp) decided in one
// place, by its overload of master_core::on. Here the deciders of the
// checkpoints, logs and provisioning commands.

#include "core/master_core.hpp"

#include "core/checkpoint_files.hpp"
#include "core/checkpoint_gc.hpp"
#include "core/log_retention.hpp"
#include "core/runs.hpp"
#include "core/webhooks.hpp"
#include "state/queries.hpp"

namespace det {

decision master_core::decide(const command& c, int64_t now_us) {
  auto d = std::visit([&](const auto& x) { return on(x, now_us); }, c);
  if (d.reply.is_null())
    d.reply = nlohmann::json::object();
  return d;
}

// -- checkpoints ------------------------------------------------------------

namespace {

/// Emits every event `decided` holds, or takes its refusal.
template <class Event, class Emit>
decision all_or_refusal(caf::expected<std::vector<Event>> decided, Emit emit) {
  decision d;
  if (!decided) {
    d.refusal = std::move(decided.error());
    return d;
  }
  for (auto& ev : *decided)
    if (!emit(d, std::move(ev)))
      break;
  return d;
}

} // namespace

decision master_core::on(const delete_checkpoints& c, int64_t now_us) {
  return all_or_refusal(
      user_checkpoint_deletion(st_, c.uuids, c.username, now_us),
      [this](decision& d, domain_event ev) { return emit(d, std::move(ev)); });
}

decision master_core::on(const remove_checkpoint_files& c, int64_t now_us) {
  return all_or_refusal(
      user_checkpoint_file_removal(st_, c.uuids, c.globs, c.username, now_us),
      [this](decision& d, domain_event ev) { return emit(d, std::move(ev)); });
}

decision master_core::on(const set_checkpoint_metadata& c, int64_t now_us) {
  decision d;
  auto ev =
      user_checkpoint_metadata(st_, c.uuid, c.metadata, c.username, now_us);
  if (!ev)
    d.refusal = std::move(ev.error());
  else
    emit(d, std::move(*ev));
  return d;
}

decision master_core::on(const collect_checkpoints&, int64_t now_us) {
  decision d;
  auto requested = nlohmann::json::array();
  for (auto& r : checkpoint_gc_requests(st_, now_us)) {
    auto entry =
        nlohmann::json{{"experimentId", r.experiment_id}, {"uuids", r.uuids}};
    if (!emit(d, std::move(r)))
      break;
    requested.push_back(std::move(entry));
  }
  d.reply = {{"requested", std::move(requested)}};
  return d;
}

decision master_core::on(const checkpoints_removed& c, int64_t now_us) {
  decision d;
  if (!c.uuids.empty()
      && !emit(d, checkpoints_deleted{c.experiment_id, c.uuids, now_us}))
    return d;
  // A DELETING experiment leaves with its files (experiment_deletion_started).
  if (c.finishes_deletion)
    emit(d, experiment_deleted{c.experiment_id, "", now_us});
  return d;
}

decision master_core::on(const checkpoint_files_cleared& c, int64_t now_us) {
  decision d;
  emit(d, checkpoint_files_removed{c.experiment_id, c.uuid, c.left, now_us});
  return d;
}

// -- logs -----------------------------------------------------------------

decision master_core::on(const retain_logs& c, int64_t now_us) {
  decision d;
  auto ev = log_retention_change(st_, c.experiment_id, c.trial_id, c.days,
                                 c.username, now_us);
  if (!ev)
    d.refusal = std::move(ev.error());
  else
    emit(d, std::move(*ev));
  return d;
}

template <class E> decision master_core::emitted(std::optional<E> ev) {
  decision d;
  if (ev)
    emit(d, std::move(*ev));
  return d;
}

decision master_core::on(const log_policy_match& c, int64_t now_us) {
  return emitted(log_policy_event(st_, c, now_us));
}

// -- webhooks ---------------------------------------------------------------

decision master_core::on(const webhook_log_match& c, int64_t now_us) {
  return emitted(log_match_delivery(st_, c, now_us));
}

decision master_core::on(const webhook_delivery_report& c, int64_t now_us) {
  return emitted(delivery_end(st_, c, now_us));
}

// -- provisioning -----------------------------------------------------------

decision master_core::on(const begin_launch& c, int64_t) {
  decision d;
  if (state::find_pool(st_, c.pool) == nullptr)
    return with_refusal(d, errc::not_found,
                        "resource pool '" + c.pool + "' not found");
  instance_launch_requested ev;
  ev.pool = c.pool;
  ev.launch_seq = c.launch_seq;
  ev.client_token = c.client_token;
  ev.count = c.count;
  ev.spot = c.spot;
  ev.at_us = c.at_us;
  emit(d, std::move(ev));
  return d;
}

decision master_core::on(const launch_answered& c, int64_t) {
  decision d;
  if (!c.error_kind.empty()) {
    emit(d, instance_launch_failed{c.pool, c.launch_seq, c.error_kind, c.error,
                                   c.at_us});
    return d;
  }
  for (const auto& id : c.instance_ids)
    if (!emit(d, instance_pending{id, c.pool, c.launch_seq, c.at_us}))
      return d;
  for (const auto& id : c.spot_request_ids)
    if (!emit(d, spot_request_opened{id, c.pool, c.launch_seq, c.at_us}))
      return d;
  auto got =
      static_cast<int32_t>(c.instance_ids.size() + c.spot_request_ids.size());
  if (got < c.count)
    emit(d, instance_launch_failed{c.pool, c.launch_seq, "partial",
                                   std::to_string(got) + " of "
                                       + std::to_string(c.count),
                                   c.at_us});
  return d;
}

bool master_core::emit_if_it_follows(decision& d, domain_event ev,
                                     std::vector<std::string>& skipped) {
  decision one;
  if (!emit(one, std::move(ev))) {
    skipped.push_back(render(one.refusal));
    return false;
  }
  absorb(d, std::move(one));
  return true;
}

void master_core::lose_agent(decision& d, const std::string& agent_id,
                             const std::string& reason, int64_t now_us,
                             std::vector<std::string>* skipped) {
  // Trials on it end with it; they resume elsewhere.
  std::vector<int64_t> trials;
  for (const auto& alloc : state::allocations_on_agent(st_, agent_id))
    if (auto t = state::trial_of_allocation(st_, alloc))
      trials.push_back(t->id);
  agent_lost ev;
  ev.agent_id = agent_id;
  ev.reason = reason;
  ev.at_us = now_us;
  bool lost =
      skipped != nullptr ? emit_if_it_follows(d, ev, *skipped) : emit(d, ev);
  if (!lost)
    return;
  for (auto t : trials)
    after_trial_exit(d, t, now_us);
}

decision master_core::on(const provisioning_cycle& c, int64_t) {
  decision d;
  const auto& plan = c.plan;
  auto now = c.at_us;
  std::vector<std::string> skipped;
  auto fact = [&](domain_event ev) {
    return emit_if_it_follows(d, std::move(ev), skipped);
  };
  // Exits a gone instance's agent left in its tags, as that agent's
  // reports (the plan kept only those of allocations on its agent): before
  // the instance and its agent go, so the trials end as they did.
  for (const auto& [inst, e] : plan.tagged_exits) {
    auto x = allocation_exited(e.allocation_id, e.exit_code, now);
    if (x.refusal)
      skipped.push_back("the tagged exit of " + e.allocation_id + ": "
                        + render(x.refusal));
    x.refusal = {};
    absorb(d, std::move(x));
  }
  for (const auto& [id, why] : plan.gone)
    fact(instance_terminated{id, why, now});
  for (const auto& a : plan.reclaimed_agents)
    lose_agent(d, a, "spot_reclaimed", now, &skipped);
  for (const auto& id : plan.now_running)
    fact(instance_running{id, now});
  for (const auto& [req, inst] : plan.fulfilled)
    fact(spot_request_fulfilled{req, inst, now});
  for (const auto& [req, why] : plan.spot_closed)
    fact(spot_request_cancelled{req, why, now});
  for (const auto& a : plan.adopt)
    if (fact(instance_pending{a.id, c.pool, a.launch_seq, now}) && a.running)
      fact(instance_running{a.id, now});
  for (const auto& [seq, missing] : plan.partial_launches)
    fact(instance_launch_failed{
        c.pool, seq, "partial",
        std::to_string(missing) + " instance(s) of the launch never appeared",
        now});
  for (const auto& a : plan.adopt_spot)
    fact(spot_request_opened{a.id, c.pool, a.launch_seq, now});
  auto terminate = nlohmann::json::array();
  for (const auto& [id, why] : plan.terminate)
    if (fact(instance_terminate_requested{id, why, now}))
      terminate.push_back(id);
  auto cancel = nlohmann::json::array();
  for (const auto& id : plan.cancel_spot)
    if (fact(spot_request_cancelled{id, "no_demand", now}))
      cancel.push_back(id);
  d.reply = {{"terminate", std::move(terminate)},
             {"cancel", std::move(cancel)},
             {"skipped", std::move(skipped)}};
  return drive(std::move(d), now);
}

} // namespace det
