#pragma once

// Internal to det_actors: the master actor's state, shared by its handlers
// and write-ahead step (master_actor.cpp) and its pools' scheduling passes
// (pool_passes.cpp).

#include "actors/master_actor.hpp"
#include "actors/pool_actor.hpp"

#include <caf/stateful_actor.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace det::detail {

struct master_state {
  static inline const char* name = "master";
  std::unique_ptr<master_core> core;
  event_writer_actor writer;
  master_options opts;
  std::map<std::string, caf::actor> agents;
  int64_t last_snapshot = 0;
  /// The log's durable position, and what waits for it to reach a
  /// position (answers that must not overtake an append in flight).
  int64_t durable = 0;
  std::multimap<int64_t, std::function<void()>> after_durable;
  /// Decisions whose events are durable, waiting for the committed_atom
  /// the first of them sent (carry_out_durable).
  struct durable_decision {
    decision d;
    std::function<void(const decision&)> done;
    int64_t last_position = 0;
  };
  std::vector<durable_decision> durable_queue;
  /// The burst carry_out_durable is carrying out (empty otherwise).
  std::vector<durable_decision> carrying;
  /// The pools' actors and their scheduling passes: at most one in flight
  /// per pool; requests meanwhile set `again` and run as one more pass.
  struct pass_slot {
    pool_actor actor;
    bool in_flight = false;
    bool again = false;
    uint64_t generation = 0;
  };
  std::map<std::string, pass_slot> passes;
  /// The live experiments' actors.
  std::map<int64_t, experiment_actor> experiments;
  /// Trials' actors, spawned when a trial first has something to do.
  std::map<int64_t, trial_actor> trials;
  /// Provisioners by pool (watch_atom).
  std::multimap<std::string, caf::actor> watchers;
};

using master_self = master_actor::stateful_pointer<master_state>;

/// The master's write-ahead step (master_actor.cpp).
void persist(master_self self, decision d,
             std::function<void(const decision&)> done);

/// Publishes the queued durable decisions' events to on_durable in one
/// batch, then carries out each one's effects and answer, in order.
void carry_out_durable(master_self self);

/// A scheduling pass of `pool` (pool_passes.cpp).
void request_pass(master_self self, const std::string& pool);

} // namespace det::detail
