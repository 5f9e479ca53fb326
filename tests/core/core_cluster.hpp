#pragma once

// A master over an in-memory log for tests of core/: decisions are appended
// as the master actor would append them, and a "restart" replays the log
// into a new core, as det-master's start-up does.

#include "core/master_core.hpp"

#include "messages/errc.hpp"
#include "state/queries.hpp"
#include "store/memory_event_store.hpp"

#include <gtest/gtest.h>

namespace det::test {

constexpr int64_t sec = 1000000;

inline nlohmann::json experiment() {
  return {{"name", "test"},
          {"entrypoint", "model_def:Trial"},
          {"hyperparameters", {{"lr", 0.1}}},
          {"resources", {{"slots_per_trial", 1}, {"resource_pool", "default"}}},
          {"searcher",
           {{"name", "single"},
            {"metric", "loss"},
            {"max_length", {{"batches", 100}}}}}};
}

inline core_config config() {
  core_config c;
  c.cluster_id = "test-cluster";
  c.host = "host";
  c.pid = 1;
  pool_configured p;
  p.pool = "default";
  c.pools.push_back(p);
  return c;
}

template <class T> inline size_t starts_in(const decision& d) {
  size_t n = 0;
  for (const auto& e : d.effects)
    n += std::holds_alternative<T>(e) ? 1 : 0;
  return n;
}

/// A master over a log: decisions are appended as the actor would; a
/// "restart" replays the log into a new core, as det-master's start-up does.
struct cluster {
  memory_event_store log;
  std::unique_ptr<master_core> core;
  int64_t now = 1800000000 * sec;

  explicit cluster(core_config cfg = config()) {
    core = std::make_unique<master_core>(state::cluster_state{}, cfg);
    run(core->start(now));
  }

  decision run(decision d) {
    if (d.events.empty())
      return d;
    append_request req;
    for (const auto& ev : d.events)
      req.events.push_back(to_new_event(ev));
    EXPECT_TRUE(log.append(req));
    return d;
  }

  /// Stops this master and starts another on the same log, with
  /// `stored` the model definitions the store holds.
  decision restart(std::set<int64_t> stored) {
    state::cluster_state st;
    auto err =
        log.read({}, [&](recorded_event&& r) { return state::apply(st, r); });
    EXPECT_FALSE(err) << render(err);
    auto cfg = config();
    cfg.model_definitions_stored = std::move(stored);
    core = std::make_unique<master_core>(std::move(st), cfg);
    return run(core->start(now));
  }

  const state::experiment_info& experiment(int64_t id) {
    return *state::find_experiment(core->state(), id);
  }
};

} // namespace det::test
