#pragma once

// The master actor: thin wiring around master_core. It spawns one actor
// per resource pool (scheduling passes) and one per live experiment (its
// searcher), and hands them their work once the events behind it are
// durable. A message becomes a
// core command; the command's events go to the event writer; only when the
// writer acknowledges them (durable) are the effects carried out (orders to
// agents) and the caller answered. If an append fails, the master stops
// with that error: its in-memory state is ahead of the log, and a restart
// replays the log.
//
// One way to ask the master to decide: a `command` (core/commands.hpp),
// answered with its reply as JSON text once durable, or the refusal.
// Experiments and trials, agents and their allocations' reports, users,
// checkpoints, logs, tasks, runs, unmanaged trials, webhooks, records and
// provisioning are commands. The other messages below are not decisions a
// caller asks for:
//   - connect_atom carries the agent actor's handle, which the master
//     keeps to send orders to; disconn_atom is only taken from the agent
//     actor of the agent's current connection (the sender decides
//     whether it counts). Past that wiring, each is decided as a command
//     (agent_connect, agent_disconnect).
//   - tick_atom is the master's own timer; committed_atom its own note
//     that appends were acknowledged (their effects are carried out
//     together, one commit's acknowledgements at a time).
//   - state_atom and view_atom read the state; watch_atom subscribes a
//     provisioner to its pool's changes.
//   - step_atom is the experiment actors' protocol: a searcher step
//     computed on an earlier state, and a refused one also resets the
//     experiment actor (the master sends it a fresh feed from the state),
//     which a command's reply does not do. (The trial actors' steps are
//     commands, trial_step: a refused one only makes the trial actor
//     propose again when asked.)
//   Experiment creation with its model definition is a flow of three
//   commands that its own actor runs (actors/experiment_creation_actor).
//
// Agents talk to it through their agent actors (actors/agent_actor.hpp),
// which register with connect_atom and send their agents' reports as
// commands. JSON travels as text.

#include "actors/event_writer.hpp"
#include "actors/experiment_actor.hpp"
#include "actors/trial_actor.hpp"
#include "core/master_core.hpp"
#include "messages/atoms.hpp"

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>

#include <chrono>
#include <functional>

namespace det {

/// A read-only question about the master's state, answered on the master's
/// thread with JSON text. The function must be quick and pure (it runs
/// inside the master's handler): render, look up, decide from the state.
struct state_view {
  std::function<std::string(const state::cluster_state&, int64_t now_us)> fn;
};

using view_atom = caf::atom_constant<caf::atom("view")>;

/// Where a command's answer goes when it is sent rather than requested:
/// called on the master's thread with the reply (JSON text) once the
/// command's events are durable, or with the refusal. Must not block (the
/// REST API hands it to the connection). Never called if the master stops
/// first.
struct command_callback {
  std::function<void(caf::expected<std::string>)> fn;
};

} // namespace det

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(det::state_view)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(det::command)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(det::command_callback)

namespace det {

/// An exit an agent still holds when it (re)connects (it keeps one until
/// the master acknowledges it).
struct agent_exit {
  std::string allocation_id;
  int32_t exit_code = 0;
  int64_t exited_at_us = 0; ///< the agent's clock; 0 = not sent
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, agent_exit& x) {
  return f(caf::meta::type_name("agent_exit"), x.allocation_id, x.exit_code,
           x.exited_at_us);
}

/// What an agent says when it (re)connects.
struct agent_hello {
  std::string agent_id;
  std::string pool;
  int32_t slots = 0;
  std::string slot_type = "cpu";
  std::string instance_id;
  std::vector<std::string> running_allocations;
  std::vector<agent_exit> exits;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, agent_hello& x) {
  return f(caf::meta::type_name("agent_hello"), x.agent_id, x.pool, x.slots,
           x.slot_type, x.instance_id, x.running_allocations, x.exits);
}

using master_actor = caf::typed_actor<
    // A command (core/commands.hpp), decided by master_core::decide; the
    // answer is its reply as JSON text once its events are durable (an
    // allocation_exit_report also when an earlier report recorded the exit:
    // once the log holds it), or the refusal.
    caf::replies_to<command>::with<std::string>,
    // The same, answered to the callback instead of a requester (one
    // hand-off fewer for the REST API's writes).
    caf::reacts_to<command, command_callback>,
    // Agents, through their agent actors: the actor to send orders to,
    // and its end (taken only from the current connection's actor).
    caf::reacts_to<connect_atom, agent_hello, caf::actor>,
    caf::reacts_to<disconn_atom, std::string, std::string>,
    caf::reacts_to<tick_atom>,
    // The master's own: appends acknowledged since the last one are
    // carried out (detail::carry_out_durable).
    caf::reacts_to<committed_atom>,
    // The state as snapshot JSON text (det-inspect, tests).
    caf::replies_to<state_atom>::with<std::string>,
    // A read-only view of the state (the REST API, provisioners).
    caf::replies_to<view_atom, state_view>::with<std::string>,
    // A provisioner (the actor) of a pool: sent wake_atom once events that
    // may change the pool's demand or capacity are durable
    // (core/provisioning_wake.hpp).
    caf::reacts_to<watch_atom, std::string, caf::actor>,
    // Experiment actors' searcher steps; answered once durable, refused
    // (and the actor reset) when the step does not follow the log.
    caf::replies_to<step_atom, searcher_step>::with<caf::ok_atom>>;

struct master_options {
  /// Wall clock in microseconds since the epoch; tests inject their own.
  std::function<int64_t()> now_us;
  /// Period of the scheduling/timer tick; zero: ticks only when sent.
  std::chrono::milliseconds tick_interval{0};
  /// Save a snapshot once this many events were appended since the last
  /// one (zero: never).
  int64_t snapshot_every = 10000;
  /// Called on the master's thread with each batch of events once the
  /// writer has made them durable (last one at `last_position`), before
  /// the effects and the answers they lead to: the read model's feed.
  /// Must not block.
  std::function<void(std::vector<domain_event> events, int64_t last_position)>
      on_durable;
};

/// Spawns the master over a state rebuilt from the log. It appends
/// master_started (and what start() decides) before anything else.
master_actor spawn_master(caf::actor_system& sys, event_writer_actor writer,
                          state::cluster_state st, core_config cfg,
                          master_options opts);

} // namespace det
