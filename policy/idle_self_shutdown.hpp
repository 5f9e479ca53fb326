#pragma once

// When a det-agent on a provisioned instance should shut its instance down
// by itself: it holds no container, it has not reached the master for a
// grace period, and it has been idle as long as the master's
// max_idle_agent_period. The master would have terminated it then; while
// the master is down (or the network cut) nobody else can, and the
// instance bills for the whole outage. Once the master is back it finds
// the instance gone from the provider's listing and reconciles it like any
// vanished instance (core/provisioning), relaunching if demand needs it.
//
// While the master is unreachable the idle period may be shorter
// (`unreachable_idle`, the pool's unreachable_idle_agent_period): nobody
// else can reap the instance then, and every idle minute of an outage is
// billed. The price is a boot for the first job after the outage that
// would have found the instance still there (docs/det-sim.md).
//
// An agent whose self-stop is due but which holds exits the master has
// not recorded first writes them into its instance's tags
// (messages/exit_tags.hpp), and stops only once that succeeded; when it
// cannot (no way to write tags, or too many exits for the tag budget) it
// stays and waits for the master, as a busy agent does.
//
// Pure: the agent passes its own observations and the time. Never shuts
// down a busy agent, nor a connected one (the master decides then), nor
// when the rule is off (max_idle zero).

#include "policy/time.hpp"

#include <chrono>
#include <cstddef>
#include <optional>

namespace det::policy {

struct self_shutdown_config {
  /// The pool's max_idle_agent_period; zero turns the rule off.
  duration max_idle = duration::zero();
  /// The pool's unreachable_idle_agent_period: the idle period while the
  /// master is unreachable, when shorter than max_idle; zero = max_idle.
  duration unreachable_idle = duration::zero();
  /// How long the master must be unreachable first: longer than a
  /// reconnect after a blip or a master restart that comes back at once.
  duration grace = std::chrono::seconds(60);
};

struct self_shutdown_input {
  /// Since when no container runs; unset while one does.
  std::optional<timestamp> idle_since;
  /// Since when the master is unreachable; unset while connected.
  std::optional<timestamp> disconnected_since;
  timestamp now;
};

/// The idle period that applies: unreachable_idle when set and shorter
/// than max_idle, else max_idle.
[[nodiscard]] duration self_shutdown_idle_period(const self_shutdown_config& c);

/// Whether to shut down at `in.now`.
[[nodiscard]] bool should_self_shutdown(const self_shutdown_input& in,
                                        const self_shutdown_config& c);

/// The earliest time at which should_self_shutdown becomes true if nothing
/// changes, or nothing when it never will (busy, connected, or off).
[[nodiscard]] std::optional<timestamp>
self_shutdown_at(const self_shutdown_input& in, const self_shutdown_config& c);

/// What an agent whose self-stop is due does next.
enum class self_stop_step {
  stop,         ///< nothing unrecorded: stop the instance now
  record_exits, ///< write the unrecorded exits to the instance's tags first
  stay,         ///< exits it cannot record: keep them for the master
};

/// The step for an agent holding `unrecorded_exits` exits the master has
/// not acknowledged and that are not yet in its tags; `can_record`: it has
/// a way to write them (a provisioned EC2 instance, the exits within the
/// tag budget, attempts left).
[[nodiscard]] self_stop_step next_self_stop_step(size_t unrecorded_exits,
                                                 bool can_record);

} // namespace det::policy
