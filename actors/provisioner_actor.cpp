#include "actors/provisioner_actor.hpp"

#include "actors/provisioning.hpp"
#include "messages/errc.hpp"
#include "state/queries.hpp"

#include <caf/event_based_actor.hpp>

#include <iostream>

namespace det {

instance_provider::~instance_provider() = default;

std::string local_instance_id(const std::string& pool, int64_t seq) {
  return "local-" + pool + "-" + std::to_string(seq);
}

namespace {

struct prov_state {
  master_actor master;
  std::shared_ptr<instance_provider> provider;
  provisioner_options opts;
  bool busy = false;
  /// After failed launches, no launch before this (doubling, up to 60 s).
  std::chrono::steady_clock::time_point launch_ok_after;
  int failures = 0;
};

using state_ptr = std::shared_ptr<prov_state>;

void log(const state_ptr& st, const std::string& what) {
  std::cerr << "det-master: provisioner " << st->opts.pool << ": " << what
            << "\n";
}

/// Appends `events` through the master, then runs `then`.
void record(caf::event_based_actor* self, const state_ptr& st,
            std::vector<domain_event> events, std::function<void()> then) {
  self
    ->request(st->master, std::chrono::seconds{30}, record_atom::value,
              event_batch{std::move(events)})
    .then([then](caf::ok_atom) { then(); },
          [self, st](caf::error& err) {
            log(st, "recording failed: " + render(err));
            st->busy = false;
          });
}

void launch_one(caf::event_based_actor* self, const state_ptr& st,
                int64_t seq) {
  auto now = st->opts.now_us();
  instance_launch_requested req;
  req.pool = st->opts.pool;
  req.launch_seq = seq;
  req.client_token = state::make_client_token(st->opts.cluster_id,
                                              st->opts.pool, seq);
  req.count = 1;
  req.at_us = now;
  record(self, st, {req}, [self, st, seq] {
    auto id = local_instance_id(st->opts.pool, seq);
    auto at = st->opts.now_us();
    if (auto err = st->provider->launch(id, st->opts.slots_per_instance)) {
      log(st, "launching " + id + " failed: " + render(err));
      instance_launch_failed f{st->opts.pool, seq, "other", render(err), at};
      st->failures = std::min(st->failures + 1, 6);
      st->launch_ok_after = std::chrono::steady_clock::now()
                            + std::chrono::seconds{1 << st->failures};
      record(self, st, {f}, [st] { st->busy = false; });
      return;
    }
    st->failures = 0;
    log(st, "launched instance " + id);
    instance_pending p{id, st->opts.pool, seq, at};
    instance_running r{id, at};
    record(self, st, {p, r}, [st] { st->busy = false; });
  });
}

void act(caf::event_based_actor* self, const state_ptr& st,
         provisioning_plan plan) {
  auto now = st->opts.now_us();
  std::vector<domain_event> events;
  for (const auto& id : plan.gone) {
    log(st, "instance " + id + " is gone");
    events.push_back(instance_terminated{id, "terminated", now});
  }
  std::vector<std::string> to_stop;
  for (const auto& [id, why] : plan.terminate) {
    log(st, "terminating instance " + id + " (" + why + ")");
    events.push_back(instance_terminate_requested{id, why, now});
    to_stop.push_back(id);
  }
  auto next = [self, st, plan, to_stop] {
    for (const auto& id : to_stop)
      st->provider->terminate(id);
    if (plan.launch > 0
        && std::chrono::steady_clock::now() >= st->launch_ok_after)
      launch_one(self, st, plan.next_seq);
    else
      st->busy = false;
  };
  if (events.empty())
    next();
  else
    record(self, st, std::move(events), next);
}

void on_tick(caf::event_based_actor* self, const state_ptr& st) {
  if (st->busy)
    return;
  st->busy = true;
  auto alive = st->provider->alive();
  auto pool = st->opts.pool;
  state_view v{[pool, alive](const state::cluster_state& s, int64_t now) {
    return to_json(plan_provisioning(s, pool, now, alive)).dump();
  }};
  self->request(st->master, std::chrono::seconds{30}, view_atom::value, v)
    .then(
      [self, st](std::string& text) {
        act(self, st,
            plan_from_json(nlohmann::json::parse(text, nullptr, false)));
      },
      [self, st](caf::error& err) {
        log(st, "cannot read the state: " + render(err));
        st->busy = false;
      });
}

caf::behavior provisioner(caf::event_based_actor* self, state_ptr st) {
  if (st->opts.tick_interval.count() > 0)
    self->delayed_send(self, st->opts.tick_interval, tick_atom::value);
  return {
    [self, st](tick_atom) {
      on_tick(self, st);
      if (st->opts.tick_interval.count() > 0)
        self->delayed_send(self, st->opts.tick_interval, tick_atom::value);
    },
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
