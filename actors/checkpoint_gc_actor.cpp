#include "actors/checkpoint_gc_actor.hpp"

#include "messages/errc.hpp"
#include "util/log.hpp"

#include <caf/event_based_actor.hpp>

#include <map>
#include <memory>
#include <set>

namespace det {

namespace {

using gcdone_atom = caf::atom_constant<caf::atom("gcdone")>;

struct gc_state {
  checkpoint_gc_options opts;
  master_actor master;
  /// Experiments whose deletion is running.
  std::set<int64_t> in_flight;
  /// Failed deletions: failures so far and the tick to try again at.
  std::map<int64_t, std::pair<int, int64_t>> backoff;
  int64_t ticks = 0;
  bool planning = false;
};

// What the master's thread found; written there, read here after the
// answer (the message is the happens-before edge).
struct gc_plan {
  std::vector<checkpoints_deletion_requested> requests;
  std::vector<checkpoint_deletion> pending;
  std::vector<int64_t> expired_logs;
};

std::string joined(const std::vector<std::string>& xs) {
  std::string out;
  for (const auto& x : xs)
    out += (out.empty() ? "" : ",") + x;
  return out;
}

void start_deletions(caf::event_based_actor* self,
                     const std::shared_ptr<gc_state>& st,
                     std::vector<checkpoint_deletion> pending) {
  for (auto& d : pending) {
    auto id = d.experiment_id;
    if (st->in_flight.count(id) != 0)
      continue;
    if (auto b = st->backoff.find(id);
        b != st->backoff.end() && st->ticks < b->second.second)
      continue;
    st->in_flight.insert(id);
    auto uuids = d.uuids;
    caf::actor me = caf::actor_cast<caf::actor>(self);
    st->opts.run(std::move(d), [me, id, uuids](caf::error err) {
      caf::anon_send(me, gcdone_atom::value, id, uuids,
                     err ? render(err) : std::string{});
    });
  }
}

void on_tick(caf::event_based_actor* self,
             const std::shared_ptr<gc_state>& st) {
  ++st->ticks;
  if (st->planning)
    return;
  st->planning = true;
  auto plan = std::make_shared<gc_plan>();
  state_view view{[plan](const state::cluster_state& s, int64_t now_us) {
    plan->requests = checkpoint_gc_requests(s, now_us);
    plan->pending = pending_checkpoint_deletions(s);
    plan->expired_logs = trials_with_expired_logs(s, now_us);
    return std::string{};
  }};
  self->request(st->master, caf::infinite, view_atom::value, std::move(view))
      .then(
          [self, st, plan](const std::string&) {
            st->planning = false;
            if (st->opts.expire_logs && !plan->expired_logs.empty())
              st->opts.expire_logs(std::move(plan->expired_logs));
            start_deletions(self, st, std::move(plan->pending));
            if (plan->requests.empty())
              return;
            event_batch batch;
            for (auto& r : plan->requests) {
              log::write(log::level::info, "checkpoint gc: experiment "
                                               + std::to_string(r.experiment_id)
                                               + " deletes " + joined(r.uuids));
              batch.events.emplace_back(std::move(r));
            }
            // Recorded, they are pending at the next tick.
            self->request(st->master, caf::infinite, record_atom::value,
                          std::move(batch))
                .then([](caf::ok_atom) {},
                      [](caf::error& err) {
                        log::write(log::level::warn,
                                   "checkpoint gc: " + render(err));
                      });
          },
          [st](caf::error& err) {
            st->planning = false;
            log::write(log::level::warn, "checkpoint gc: " + render(err));
          });
}

void on_done(caf::event_based_actor* self, const std::shared_ptr<gc_state>& st,
             int64_t id, std::vector<std::string> uuids,
             const std::string& error) {
  st->in_flight.erase(id);
  if (!error.empty()) {
    auto& [failures, next] = st->backoff[id];
    ++failures;
    int64_t wait = std::min<int64_t>(int64_t{1} << std::min(failures, 20),
                                     st->opts.max_backoff_ticks);
    next = st->ticks + wait;
    log::write(log::level::warn,
               "checkpoint gc: experiment " + std::to_string(id) + ": deleting "
                   + joined(uuids) + " failed (attempt "
                   + std::to_string(failures) + ", again in "
                   + std::to_string(wait) + " ticks): " + error);
    return;
  }
  st->backoff.erase(id);
  event_batch batch;
  auto now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  batch.events.emplace_back(checkpoints_deleted{id, uuids, now_us});
  self->request(st->master, caf::infinite, record_atom::value, std::move(batch))
      .then(
          [id, uuids](caf::ok_atom) {
            log::write(log::level::info, "checkpoint gc: experiment "
                                             + std::to_string(id) + " deleted "
                                             + joined(uuids));
          },
          [](caf::error& err) {
            log::write(log::level::warn, "checkpoint gc: " + render(err));
          });
}

caf::behavior gc_behavior(caf::event_based_actor* self, master_actor master,
                          checkpoint_gc_options opts) {
  auto st = std::make_shared<gc_state>();
  st->opts = std::move(opts);
  st->master = std::move(master);
  if (st->opts.tick_interval.count() > 0)
    self->delayed_send(self, st->opts.tick_interval, tick_atom::value);
  return {
      [self, st](tick_atom) {
        on_tick(self, st);
        if (st->opts.tick_interval.count() > 0)
          self->delayed_send(self, st->opts.tick_interval, tick_atom::value);
      },
      [self, st](gcdone_atom, int64_t id, std::vector<std::string>& uuids,
                 const std::string& error) {
        on_done(self, st, id, std::move(uuids), error);
      },
  };
}

} // namespace

caf::actor spawn_checkpoint_gc(caf::actor_system& sys, master_actor master,
                               checkpoint_gc_options opts) {
  return sys.spawn(gc_behavior, std::move(master), std::move(opts));
}

} // namespace det
