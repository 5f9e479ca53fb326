#include "actors/provisioner_actor.hpp"

#include "core/provisioning.hpp"
#include "messages/errc.hpp"
#include "state/queries.hpp"
#include "util/log.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>

#include <algorithm>
#include <deque>
#include <map>
#include <random>
#include <set>

namespace det {

namespace {

/// A provider result, run on the provisioner's own thread.
struct prov_step {
  std::function<void()> fn;
};

} // namespace
} // namespace det

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(det::prov_step)

namespace det {

namespace {

struct prov_state {
  master_actor master;
  std::shared_ptr<instance_provider> provider;
  provisioner_options opts;
  caf::actor me;
  /// A decision (plan, record, launch) is under way.
  bool deciding = false;
  /// A provider listing (the tick's) is under way.
  bool listing = false;
  /// A listing that came back during a decision: decided on next.
  std::optional<caf::expected<provider_inventory>> listed;
  /// A wake came while deciding or cooling: decide once more after.
  bool dirty = false;
  /// A wake's decision waits for the rate limit (min_decision_gap).
  bool cooling = false;
  /// When the last decision_burst decisions started (the actor's clock).
  std::deque<caf::actor_clock::time_point> starts;
  std::set<int64_t> in_flight;
  /// Per instance type ("" for a provider without types).
  std::map<std::string, policy::backoff_state> backoff;
  std::mt19937_64 rng{std::random_device{}()};
  /// Tagged instances / spot requests the state does not know: first seen.
  std::map<std::string, int64_t> unknown_since;
  /// Instances and spot requests a terminate / cancel was sent for, when.
  std::map<std::string, int64_t> sent_at;
  std::string last_wait_reason;
  /// Since when pending demand has wanted a launch (scale_up_delay).
  std::optional<caf::actor_clock::time_point> demand_since;
  /// Whether the backoff was resumed from the log (first plan).
  bool resumed = false;
};

using state_ptr = std::shared_ptr<prov_state>;
constexpr int64_t resend_after_us = 60'000'000;

void note(const state_ptr& st, log::level l, const std::string& what) {
  log::write(l, "provisioner " + st->opts.pool + ": " + what);
}

policy::timestamp at(int64_t us) {
  return policy::timestamp{std::chrono::microseconds{us}};
}

/// Wraps `fn` so that, called on any thread, it runs on the actor.
template <class T>
provider_done<T> on_actor(const state_ptr& st, std::function<void(T&)> fn) {
  auto me = st->me;
  return [me, fn](T x) {
    auto shared = std::make_shared<T>(std::move(x));
    caf::anon_send(me, prov_step{[fn, shared] { fn(*shared); }});
  };
}

void decide(caf::event_based_actor* self, const state_ptr& st,
            std::optional<provider_inventory> inv, bool reconcile);

/// A wake: decide from the state now, or once the decision under way is
/// over and the rate allows. Wakes are coalesced, and however fast the
/// pool changes the provisioner starts at most decision_burst decisions
/// per decision_burst * min_decision_gap (the master runs each decision's
/// plan); the burst lets the wakes of one change (a model stored, then its
/// trial created) each decide at once. A wake never calls the provider:
/// its decision plans from the state alone (no reconciliation), so it adds
/// no cloud call and never waits for one.
void request_decision(caf::event_based_actor* self, const state_ptr& st) {
  if (st->deciding || st->cooling) {
    st->dirty = true;
    return;
  }
  auto gap = st->opts.min_decision_gap;
  auto burst = static_cast<size_t>(std::max(1, st->opts.decision_burst));
  auto now = self->clock().now();
  auto window = gap * static_cast<int64_t>(burst);
  auto ready = st->starts.empty() ? now : st->starts.front() + window;
  if (gap.count() > 0 && st->starts.size() >= burst && now < ready) {
    st->dirty = true;
    st->cooling = true;
    self->delayed_send(self, ready - now, prov_step{[self, st] {
                         st->cooling = false;
                         if (st->dirty && !st->deciding)
                           decide(self, st, std::nullopt, false);
                       }});
    return;
  }
  decide(self, st, std::nullopt, false);
}

/// A listing to decide on: reconciliation with the inventory, then the
/// scale decision (on a failed listing, the scale decision alone).
void decide_listed(caf::event_based_actor* self, const state_ptr& st,
                   caf::expected<provider_inventory>& inv) {
  if (!inv) {
    note(st, log::level::warn, "cannot list instances: " + render(inv.error()));
    decide(self, st, std::nullopt, false);
    return;
  }
  decide(self, st, std::move(*inv), true);
}

/// The end of a decision: a listing that came meanwhile, else one more
/// decision if wakes came meanwhile.
void decision_done(caf::event_based_actor* self, const state_ptr& st) {
  st->deciding = false;
  if (st->listed) {
    auto inv = std::move(*st->listed);
    st->listed.reset();
    decide_listed(self, st, inv);
    return;
  }
  if (st->dirty) {
    st->dirty = false;
    request_decision(self, st);
  }
}

/// Sends `c` to the master (master_core::decide), then runs `then` with
/// its reply, or nothing when it was refused.
void tell(caf::event_based_actor* self, const state_ptr& st, command c,
          std::function<void(std::optional<nlohmann::json>)> then) {
  self->request(st->master, std::chrono::seconds{30}, std::move(c))
      .then(
          [then](const std::string& reply) {
            then(nlohmann::json::parse(reply, nullptr, false));
          },
          [st, then](caf::error& err) {
            note(st, log::level::error, "recording failed: " + render(err));
            then(std::nullopt);
          });
}

/// The instance type to launch now, or nullopt while every type backs off.
std::optional<std::string> pick_type(const state_ptr& st, int64_t now) {
  auto types = st->provider->instance_types();
  if (types.empty())
    types.push_back("");
  for (const auto& t : types)
    if (policy::may_attempt(st->backoff[t], at(now)))
      return t;
  return std::nullopt;
}

void on_launched(caf::event_based_actor* self, const state_ptr& st,
                 const launch_spec& spec, caf::expected<launch_result>& res) {
  auto now = st->opts.now_us();
  launch_answered answer;
  answer.pool = spec.pool;
  answer.launch_seq = spec.launch_seq;
  answer.count = spec.count;
  answer.at_us = now;
  auto& bo = st->backoff[spec.instance_type];
  if (res) {
    for (const auto& id : res->instance_ids)
      note(st, log::level::info,
           "launched instance " + id + " (launch "
               + std::to_string(spec.launch_seq) + ")");
    for (const auto& id : res->spot_request_ids)
      note(st, log::level::info, "opened spot request " + id);
    answer.instance_ids = res->instance_ids;
    answer.spot_request_ids = res->spot_request_ids;
    bo = policy::after_success(bo);
  } else {
    auto kind = st->provider->launch_error_kind(res.error());
    bo = policy::after_failure(
        bo, st->opts.launch_backoff, at(now),
        std::uniform_real_distribution<double>{0, 1}(st->rng));
    auto wait = bo.retry_at ? (*bo.retry_at - at(now)) : policy::duration{};
    note(st, log::level::warn,
         "launch " + std::to_string(spec.launch_seq) + " of "
             + (spec.instance_type.empty() ? "an instance" : spec.instance_type)
             + " failed (" + kind + "): " + render(res.error())
             + "; next try of this type in "
             + std::to_string(
                 std::chrono::duration_cast<std::chrono::milliseconds>(wait)
                     .count())
             + " ms");
    answer.error_kind = kind;
    answer.error = render(res.error());
  }
  auto seq = spec.launch_seq;
  tell(self, st, std::move(answer),
       [st, seq](const auto&) { st->in_flight.erase(seq); });
}

void start_launch(caf::event_based_actor* self, const state_ptr& st,
                  launch_spec spec) {
  st->in_flight.insert(spec.launch_seq);
  auto copy = spec;
  st->provider->launch(
      spec, on_actor<caf::expected<launch_result>>(
                st, [self, st, copy](caf::expected<launch_result>& res) {
                  on_launched(self, st, copy, res);
                }));
}

void terminate_now(const state_ptr& st, std::vector<std::string> ids,
                   int64_t now) {
  if (ids.empty())
    return;
  for (const auto& id : ids)
    st->sent_at[id] = now;
  st->provider->terminate(ids, [st](caf::error err) {
    // Runs on a provider thread: only logging here (no actor state).
    if (err)
      note(st, log::level::warn, "terminate failed: " + render(err));
  });
}

void cancel_now(const state_ptr& st, std::vector<std::string> ids,
                int64_t now) {
  if (ids.empty())
    return;
  for (const auto& id : ids)
    st->sent_at[id] = now;
  st->provider->cancel_spot_requests(ids, [st](caf::error err) {
    if (err)
      note(st, log::level::warn,
           "cancelling spot requests failed: " + render(err));
  });
}

bool due(const state_ptr& st, const std::string& id, int64_t now) {
  auto i = st->sent_at.find(id);
  return i == st->sent_at.end() || now - i->second > resend_after_us;
}

/// Orphans past the grace: terminate or cancel them (no events: the state
/// never knew them).
void handle_unknown(const state_ptr& st, const provisioning_plan& plan,
                    int64_t now) {
  std::set<std::string> seen;
  std::vector<std::string> kill, cancel;
  auto grace = st->provider->orphan_grace_us();
  auto consider = [&](const std::string& id, std::vector<std::string>& out) {
    seen.insert(id);
    auto [it, fresh] = st->unknown_since.emplace(id, now);
    (void)fresh;
    if (now - it->second >= grace && due(st, id, now)) {
      note(st, log::level::info,
           "unknown tagged resource " + id + ": not in the log after "
               + std::to_string(grace / 1'000'000) + " s; removing it");
      out.push_back(id);
    }
  };
  for (const auto& id : plan.unknown_instances)
    consider(id, kill);
  for (const auto& id : plan.unknown_spot_requests)
    consider(id, cancel);
  for (auto i = st->unknown_since.begin(); i != st->unknown_since.end();)
    i = seen.count(i->first) ? std::next(i) : st->unknown_since.erase(i);
  terminate_now(st, std::move(kill), now);
  cancel_now(st, std::move(cancel), now);
}

/// How many of the plan's launches to make now: those min_instances asks
/// for at once; those for pending demand once it has wanted a launch for
/// scale_up_delay (timed on the actor's clock, which also fires the wake
/// set for then). Demand that goes away meanwhile (an agent enabled again,
/// a trial that found a slot) buys nothing.
int launch_now(caf::event_based_actor* self, const state_ptr& st,
               const provisioning_plan& plan) {
  int for_demand = plan.launch - plan.launch_for_minimum;
  auto delay = st->opts.scale_up_delay;
  if (for_demand <= 0 || delay.count() <= 0) {
    st->demand_since.reset();
    return plan.launch;
  }
  auto now = self->clock().now();
  if (!st->demand_since) {
    st->demand_since = now;
    note(st, log::level::info,
         "pending demand wants " + std::to_string(for_demand)
             + " instance(s); launching if it still does in "
             + std::to_string(delay.count()) + " ms (scale_up_delay)");
    self->delayed_send(self, delay, wake_atom::value);
  }
  if (now - *st->demand_since >= delay)
    return plan.launch;
  return plan.launch_for_minimum;
}

void launch_new(caf::event_based_actor* self, const state_ptr& st,
                const provisioning_plan& plan, int64_t now,
                std::function<void()> done) {
  int launch = launch_now(self, st, plan);
  auto type = pick_type(st, now);
  if (type)
    for (const auto& r : plan.reissues)
      if (st->in_flight.count(r.launch_seq) == 0) {
        note(st, log::level::info,
             "re-issuing launch " + std::to_string(r.launch_seq)
                 + " with its client token");
        start_launch(self, st,
                     {st->opts.pool, r.launch_seq, r.client_token, r.count,
                      st->opts.slots_per_instance, *type, r.spot});
      }
  int room =
      st->opts.max_launches_in_flight - static_cast<int>(st->in_flight.size());
  if (launch <= 0 || room <= 0 || !type) {
    if (launch > 0 && !type) {
      std::string why = "every instance type backs off after launch errors";
      if (why != st->last_wait_reason)
        note(st, log::level::info, "waiting: " + why);
      st->last_wait_reason = why;
    }
    done();
    return;
  }
  st->last_wait_reason.clear();
  begin_launch req;
  req.pool = st->opts.pool;
  req.launch_seq = plan.next_seq;
  req.client_token = state::make_client_token(st->opts.cluster_id,
                                              st->opts.pool, req.launch_seq);
  req.count = std::min(launch, std::max(1, st->opts.max_per_launch));
  req.spot = st->provider->spot();
  req.at_us = now;
  launch_spec spec{st->opts.pool,
                   req.launch_seq,
                   req.client_token,
                   req.count,
                   st->opts.slots_per_instance,
                   *type,
                   req.spot};
  tell(self, st, std::move(req),
       [self, st, spec, done](const std::optional<nlohmann::json>& ok) {
         if (ok)
           start_launch(self, st, spec);
         done();
       });
}

/// After a restart: failed launches recorded in the log keep backing off
/// (every type: the log does not say which one failed), so a master that
/// restarts in a loop does not retry in a loop.
void resume_backoff(const state_ptr& st, const provisioning_plan& plan) {
  if (st->resumed)
    return;
  st->resumed = true;
  if (plan.launch_failures <= 0)
    return;
  policy::backoff_state b;
  b.failures = plan.launch_failures - 1;
  b.first_failure = b.last_failure = at(plan.last_launch_error_at_us);
  b = policy::after_failure(b, st->opts.launch_backoff,
                            at(plan.last_launch_error_at_us), 0.0);
  auto types = st->provider->instance_types();
  if (types.empty())
    types.push_back("");
  for (const auto& t : types)
    st->backoff[t] = b;
  note(st, log::level::info,
       "resuming the launch backoff after "
           + std::to_string(plan.launch_failures)
           + " failed launch(es) in the log");
}

void act(caf::event_based_actor* self, const state_ptr& st,
         const provisioning_plan& plan, bool reconciled) {
  auto now = st->opts.now_us();
  resume_backoff(st, plan);
  for (const auto& why : plan.refused_exit_tags)
    note(st, log::level::warn, "exit tag not recorded: " + why);
  for (const auto& [inst, e] : plan.tagged_exits)
    note(st, log::level::info,
         "instance " + inst + " is gone; its tags say allocation "
             + e.allocation_id + " exited with " + std::to_string(e.exit_code));
  for (const auto& [id, why] : plan.gone) {
    note(st, log::level::info, "instance " + id + " is gone (" + why + ")");
    st->sent_at.erase(id);
  }
  for (const auto& [req, inst] : plan.fulfilled)
    note(st, log::level::info, "spot request " + req + " fulfilled by " + inst);
  for (const auto& [req, why] : plan.spot_closed)
    note(st, log::level::info, "spot request " + req + " closed (" + why + ")");
  for (const auto& a : plan.adopt)
    note(st, log::level::info,
         "adopting instance " + a.id + " of launch "
             + std::to_string(a.launch_seq));
  for (const auto& [seq, missing] : plan.partial_launches)
    note(st, log::level::warn,
         "launch " + std::to_string(seq) + ": " + std::to_string(missing)
             + " instance(s) never appeared; closing it as partial");
  for (const auto& a : plan.adopt_spot)
    note(st, log::level::info, "adopting spot request " + a.id);
  for (const auto& [id, why] : plan.terminate)
    note(st, log::level::info, "terminating instance " + id + " (" + why + ")");
  for (const auto& id : plan.cancel_spot)
    note(st, log::level::info,
         "cancelling spot request " + id + " (no demand)");
  tell(self, st, provisioning_cycle{st->opts.pool, plan, now},
       [self, st, plan, now,
        reconciled](const std::optional<nlohmann::json>& reply) {
         if (!reply || !reply->is_object()) {
           decision_done(self, st);
           return;
         }
         auto ids = [&reply](const char* key) {
           return reply->value(key, std::vector<std::string>{});
         };
         for (const auto& why : ids("skipped"))
           note(st, log::level::warn, "left out (the state moved on): " + why);
         // Only what the master recorded is carried out.
         auto to_stop = ids("terminate");
         for (const auto& id : plan.still_terminating)
           if (due(st, id, now))
             to_stop.push_back(id);
         terminate_now(st, to_stop, now);
         cancel_now(st, ids("cancel"), now);
         // Orphans are only known from a listing.
         if (reconciled)
           handle_unknown(st, plan, now);
         launch_new(self, st, plan, now,
                    [self, st] { decision_done(self, st); });
       });
}

void decide(caf::event_based_actor* self, const state_ptr& st,
            std::optional<provider_inventory> inv, bool reconcile) {
  st->deciding = true;
  st->dirty = false;
  st->starts.push_back(self->clock().now());
  while (st->starts.size()
         > static_cast<size_t>(std::max(1, st->opts.decision_burst)))
    st->starts.pop_front();
  auto pool = st->opts.pool;
  provisioning_input in;
  in.inventory = std::move(inv);
  in.in_flight = st->in_flight;
  in.consistency_grace_us = st->provider->consistency_grace_us();
  auto out = std::make_shared<provisioning_plan>();
  state_view v{[pool, in, out](const state::cluster_state& s, int64_t now) {
    *out = plan_provisioning(s, pool, now, in);
    return std::string{};
  }};
  self->request(st->master, std::chrono::seconds{30}, view_atom::value, v)
      .then([self, st, out,
             reconcile](std::string&) { act(self, st, *out, reconcile); },
            [self, st](caf::error& err) {
              note(st, log::level::warn,
                   "cannot read the state: " + render(err));
              decision_done(self, st);
            });
}

/// The safety net, every tick_interval: list the provider and decide on
/// the listing (reconciliation with the cloud, and what only time changes:
/// idle and starting timeouts, the orphan grace, backoff). The listing runs
/// beside a wake's decision; it is decided on when that one is over.
void on_tick(caf::event_based_actor* self, const state_ptr& st) {
  if (st->listing)
    return;
  st->listing = true;
  st->provider->list(on_actor<caf::expected<provider_inventory>>(
      st, [self, st](caf::expected<provider_inventory>& inv) {
        st->listing = false;
        if (st->deciding) {
          st->listed = std::move(inv);
          return;
        }
        decide_listed(self, st, inv);
      }));
}

caf::behavior provisioner(caf::event_based_actor* self, state_ptr st) {
  st->me = caf::actor{self};
  if (st->opts.wake_on_change)
    self->send(st->master, watch_atom::value, st->opts.pool, st->me);
  if (st->opts.tick_interval.count() > 0)
    self->delayed_send(self, st->opts.tick_interval, tick_atom::value);
  self->attach_functor([st] { st->me = caf::actor{}; });
  return {
      [self, st](tick_atom) {
        on_tick(self, st);
        if (st->opts.tick_interval.count() > 0)
          self->delayed_send(self, st->opts.tick_interval, tick_atom::value);
      },
      [self, st](wake_atom) { request_decision(self, st); },
      [](prov_step& step) { step.fn(); },
  };
}

} // namespace

caf::actor spawn_provisioner(caf::actor_system& sys, master_actor master,
                             std::shared_ptr<instance_provider> provider,
                             provisioner_options opts) {
  if (!opts.now_us)
    opts.now_us = [] {
      return std::chrono::duration_cast<std::chrono::microseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  auto st = std::make_shared<prov_state>();
  st->master = std::move(master);
  st->provider = std::move(provider);
  st->opts = std::move(opts);
  return sys.spawn(provisioner, st);
}

} // namespace det
