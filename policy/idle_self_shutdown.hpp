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
// Pure: the agent passes its own observations and the time. Never shuts
// down a busy agent, nor a connected one (the master decides then), nor
// when the rule is off (max_idle zero).

#include "policy/time.hpp"

#include <chrono>
#include <optional>

namespace det::policy {

struct self_shutdown_config {
  /// The pool's max_idle_agent_period; zero turns the rule off.
  duration max_idle = duration::zero();
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

/// Whether to shut down at `in.now`.
[[nodiscard]] bool should_self_shutdown(const self_shutdown_input& in,
                                        const self_shutdown_config& c);

/// The earliest time at which should_self_shutdown becomes true if nothing
/// changes, or nothing when it never will (busy, connected, or off).
[[nodiscard]] std::optional<timestamp>
self_shutdown_at(const self_shutdown_input& in, const self_shutdown_config& c);

} // namespace det::policy
