#pragma once

// What the actor tests of the master share: a master over an event store,
// driven by CAF's deterministic test coordinator with an injected clock,
// and the log helpers the tests check it with. Include after the suite's
// CAF_SUITE definition.

#include "actors/master_actor.hpp"

#include "store/memory_event_store.hpp"

#include <caf/test/dsl.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace det::actor_test {

constexpr int64_t sec = 1000000;

/// One pool, "default", without a provisioner.
inline core_config one_pool_cluster(const std::string& cluster_id) {
  core_config c;
  c.cluster_id = cluster_id;
  c.host = "host";
  c.pid = 1;
  pool_configured p;
  p.pool = "default";
  c.pools.push_back(p);
  return c;
}

/// The log's events, up to `up_to` if given.
inline std::vector<recorded_event>
events_of(event_store& log, std::optional<int64_t> up_to = {}) {
  std::vector<recorded_event> out;
  read_options ro;
  ro.up_to = up_to;
  auto err = log.read(ro, [&](recorded_event&& r) {
    out.push_back(std::move(r));
    return caf::error{};
  });
  CAF_REQUIRE(!err);
  return out;
}

/// The state the log replays to.
inline state::cluster_state replay(event_store& log) {
  state::cluster_state st;
  for (const auto& r : events_of(log))
    CAF_REQUIRE(!state::apply(st, r));
  return st;
}

/// Copies the log up to `up_to` into `to`: the log of a master that
/// stopped right after that position.
inline void copy_log(event_store& from, event_store& to, int64_t up_to) {
  for (const auto& r : events_of(from, up_to))
    CAF_REQUIRE(to.append({{{r.stream, r.body}}, {}}));
}

/// Position of the last event of `type` in the log; 0 if none.
inline int64_t last_position_of(event_store& log, const std::string& type) {
  int64_t out = 0;
  for (const auto& r : events_of(log))
    if (r.body.type == type)
      out = r.position;
  return out;
}

struct master_fixture : test_coordinator_fixture<> {
  int64_t now = 1800000000 * sec;
  event_writer_actor writer;
  master_actor master;
  core_config cluster = one_pool_cluster("actor-test");
  /// Save a snapshot every this many events (0: never).
  int64_t snapshot_every = 10000;
  /// The master's on_durable (master_options), if set before start().
  std::function<void(std::vector<domain_event>, int64_t)> on_durable;

  void start(event_store& store, state::cluster_state st = {}) {
    writer = spawn_event_writer(sys, store, writer_mode::synchronous);
    master_options opts;
    opts.now_us = [this] { return now; };
    opts.snapshot_every = snapshot_every;
    opts.on_durable = on_durable;
    master = spawn_master(sys, writer, std::move(st), cluster, opts);
    run();
  }

  /// Sends command `c` to the master and runs until it answers: its reply
  /// (the JSON text parsed). A refusal fails the test.
  nlohmann::json decide(command c) {
    return nlohmann::json::parse(request<std::string>(master, std::move(c)));
  }

  /// Submits experiment config `config` (JSON text) as experiment_submit:
  /// the new experiment's id.
  int64_t submit(const std::string& config,
                 const std::string& owner = "determined") {
    return decide(experiment_submit{nlohmann::json::parse(config), owner})
        .at("experiment_id")
        .get<int64_t>();
  }

  state::cluster_state live_state() {
    auto text = request<std::string>(master, state_atom::value);
    auto st = state::from_snapshot(nlohmann::json::parse(text));
    CAF_REQUIRE(st);
    return *st;
  }

  void stop_master() {
    anon_send_exit(master, caf::exit_reason::user_shutdown);
    anon_send_exit(writer, caf::exit_reason::user_shutdown);
    run();
  }
};

} // namespace det::actor_test
