#pragma once

// What an idle agent does while the simulated master is down: when its
// instance may stop itself (policy/idle_self_shutdown, as det-agent
// decides it), and the instance-hours an outage leaks. Internal to det_sim;
// the event loop (sim/engine.cpp) keeps the queue and the outage count and
// asks these functions what to do.

#include "sim/engine_state.hpp"

#include <cstdint>
#include <optional>

namespace det::sim::detail {

/// The master's outage as the agents see it.
struct outage {
  bool down = false;
  int64_t since_ms = 0; ///< when the current (or last) outage began
};

/// When instance `i`'s agent should look again at stopping itself, or
/// nothing: the master is up, the rule is off, the agent is busy or waits
/// for the master with an exit it may neither drop nor tag.
[[nodiscard]] std::optional<int64_t>
self_check_due_ms(const sim_state& s, const outage& o, size_t i);

/// What instance `i`'s agent does at its self-check.
struct self_check_outcome {
  bool stop = false; ///< it stops its instance now
  /// It wrote its exits into its instance's tags (one API call): it looks
  /// again then.
  std::optional<int64_t> again_at_ms;
};

/// Decides instance `i`'s self-check at s.now_ms: counts a self-stop or an
/// exit written to the tags in s.result, and clears the agent's exit once
/// it is in the tags. The caller terminates the instance on `stop`.
[[nodiscard]] self_check_outcome self_check(sim_state& s, const outage& o,
                                            size_t i);

/// Ends `x`'s leak (idle with the master down, or not yet reaped since):
/// its hours up to s.now_ms go into s.result.
void end_leak(sim_state& s, sim_instance& x);

} // namespace det::sim::detail
