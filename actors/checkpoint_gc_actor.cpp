#include "actors/checkpoint_gc_actor.hpp"

#include "messages/errc.hpp"
#include "util/backoff.hpp"
#include "util/log.hpp"

#include <caf/event_based_actor.hpp>

#include <map>
#include <memory>
#include <set>

namespace det {

namespace {

using gcdone_atom = caf::atom_constant<caf::atom("gcdone")>;
using rmdone_atom = caf::atom_constant<caf::atom("rmdone")>;

// Failed work per key: failures so far and the tick to try again at, the
// wait doubling from 2 ticks up to a cap (util::backoff_delay).
template <class Key> struct retry_book {
  std::map<Key, std::pair<int, int64_t>> entries;

  bool waiting(const Key& k, int64_t tick) const {
    auto i = entries.find(k);
    return i != entries.end() && tick < i->second.second;
  }
  /// Counts a failure at `tick`; returns {failures, wait in ticks}.
  std::pair<int, int64_t> failed(const Key& k, int64_t tick, int64_t cap) {
    auto& [failures, next] = entries[k];
    ++failures;
    auto wait = static_cast<int64_t>(
        util::backoff_delay(2, 2, static_cast<double>(cap), failures, 0, 0));
    next = tick + wait;
    return {failures, wait};
  }
  void succeeded(const Key& k) { entries.erase(k); }
};

struct gc_state {
  checkpoint_gc_options opts;
  master_actor master;
  /// Experiments whose deletion is running.
  std::set<int64_t> in_flight;
  /// Failed deletions, by experiment.
  retry_book<int64_t> backoff;
  /// Checkpoints whose file removal is running, and failed ones (as
  /// `backoff`).
  std::set<std::string> removing;
  retry_book<std::string> remove_backoff;
  int64_t ticks = 0;
  bool planning = false;
};

// What the master's thread found; written there, read here after the
// answer (the message is the happens-before edge).
struct gc_plan {
  std::vector<checkpoint_deletion> pending;
  std::vector<checkpoint_file_removal> removals;
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
    if (st->backoff.waiting(id, st->ticks))
      continue;
    st->in_flight.insert(id);
    auto uuids = d.uuids;
    bool finishes = d.finishes_deletion;
    caf::actor me = caf::actor_cast<caf::actor>(self);
    st->opts.run(std::move(d), [me, id, uuids, finishes](caf::error err) {
      caf::anon_send(me, gcdone_atom::value, id, uuids, finishes,
                     err ? render(err) : std::string{});
    });
  }
}

void start_removals(caf::event_based_actor* self,
                    const std::shared_ptr<gc_state>& st,
                    std::vector<checkpoint_file_removal> removals) {
  if (!st->opts.remove_files)
    return;
  for (auto& r : removals) {
    auto uuid = r.uuid;
    if (st->removing.count(uuid) != 0)
      continue;
    if (st->remove_backoff.waiting(uuid, st->ticks))
      continue;
    st->removing.insert(uuid);
    auto id = r.experiment_id;
    caf::actor me = caf::actor_cast<caf::actor>(self);
    st->opts.remove_files(
        std::move(r), [me, id, uuid](caf::expected<nlohmann::json> left) {
          caf::anon_send(me, rmdone_atom::value, id, uuid,
                         left ? left->dump() : std::string{},
                         left ? std::string{} : render(left.error()));
        });
  }
}

void on_removed(caf::event_based_actor* self,
                const std::shared_ptr<gc_state>& st, int64_t id,
                const std::string& uuid, const std::string& left,
                const std::string& error) {
  st->removing.erase(uuid);
  if (!error.empty()) {
    auto failures =
        st->remove_backoff.failed(uuid, st->ticks, st->opts.max_backoff_ticks)
            .first;
    log::write(log::level::warn, "checkpoint rm: " + uuid + ": attempt "
                                     + std::to_string(failures)
                                     + " failed: " + error);
    return;
  }
  st->remove_backoff.succeeded(uuid);
  command c = checkpoint_files_cleared{
      id, uuid, nlohmann::json::parse(left, nullptr, false)};
  self->request(st->master, caf::infinite, std::move(c))
      .then(
          [uuid](const std::string&) {
            log::write(log::level::info,
                       "checkpoint rm: " + uuid + ": files removed");
          },
          [](caf::error& err) {
            log::write(log::level::warn, "checkpoint rm: " + render(err));
          });
}

void on_tick(caf::event_based_actor* self,
             const std::shared_ptr<gc_state>& st) {
  ++st->ticks;
  if (st->planning)
    return;
  st->planning = true;
  auto plan = std::make_shared<gc_plan>();
  state_view view{[plan](const state::cluster_state& s, int64_t now_us) {
    plan->pending = pending_checkpoint_deletions(s);
    plan->removals = pending_checkpoint_file_removals(s);
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
            start_removals(self, st, std::move(plan->removals));
            // The experiments' GC policies are applied by the master, on
            // its own state; recorded, the requests are pending at the
            // next tick.
            self->request(st->master, caf::infinite,
                          command{collect_checkpoints{}})
                .then(
                    [](const std::string& reply) {
                      auto r = nlohmann::json::parse(reply, nullptr, false);
                      if (!r.is_object() || !r.contains("requested"))
                        return;
                      for (const auto& x : r["requested"])
                        log::write(
                            log::level::info,
                            "checkpoint gc: experiment "
                                + x.value("experimentId", nlohmann::json{})
                                      .dump()
                                + " deletes "
                                + joined(x.value("uuids",
                                                 std::vector<std::string>{})));
                    },
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
             int64_t id, std::vector<std::string> uuids, bool finishes,
             const std::string& error) {
  st->in_flight.erase(id);
  if (!error.empty()) {
    auto [failures, wait] =
        st->backoff.failed(id, st->ticks, st->opts.max_backoff_ticks);
    log::write(log::level::warn,
               "checkpoint gc: experiment " + std::to_string(id) + ": deleting "
                   + joined(uuids) + " failed (attempt "
                   + std::to_string(failures) + ", again in "
                   + std::to_string(wait) + " ticks): " + error);
    return;
  }
  st->backoff.succeeded(id);
  command c = checkpoints_removed{id, uuids, finishes};
  self->request(st->master, caf::infinite, std::move(c))
      .then(
          [id, uuids, finishes](const std::string&) {
            if (!uuids.empty())
              log::write(log::level::info, "checkpoint gc: experiment "
                                               + std::to_string(id)
                                               + " deleted " + joined(uuids));
            if (finishes)
              log::write(log::level::info, "checkpoint gc: experiment "
                                               + std::to_string(id)
                                               + " is deleted");
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
                 bool finishes, const std::string& error) {
        on_done(self, st, id, std::move(uuids), finishes, error);
      },
      [self, st](rmdone_atom, int64_t id, const std::string& uuid,
                 const std::string& left, const std::string& error) {
        on_removed(self, st, id, uuid, left, error);
      },
  };
}

} // namespace

caf::actor spawn_checkpoint_gc(caf::actor_system& sys, master_actor master,
                               checkpoint_gc_options opts) {
  return sys.spawn(gc_behavior, std::move(master), std::move(opts));
}

} // namespace det
