#include "sim/self_stop.hpp"

#include "policy/idle_self_shutdown.hpp"

#include <chrono>

namespace det::sim::detail {

namespace {

/// How long det-agent's CreateTags of its exits takes (one API call).
constexpr int64_t exit_tag_write_ms = 1000;

policy::timestamp self_stop_time(int64_t ms) {
  return policy::timestamp{} + std::chrono::milliseconds{ms};
}

policy::self_shutdown_input self_view_of(const sim_state& s, const outage& o,
                                         const sim_instance& x) {
  policy::self_shutdown_input in;
  if (x.idle_since_ms >= 0)
    in.idle_since = self_stop_time(x.idle_since_ms);
  if (o.down)
    in.disconnected_since = self_stop_time(o.since_ms);
  in.now = self_stop_time(s.now_ms);
  return in;
}

policy::self_shutdown_config self_config_of(const sim_state& s) {
  policy::self_shutdown_config c;
  c.max_idle = std::chrono::seconds{s.policy->self_shutdown_s};
  c.unreachable_idle =
      std::chrono::seconds{s.policy->self_shutdown_unreachable_s};
  return c;
}

// An agent holding an exit waits for the master, unless it may drop the
// exit or write it into its instance's tags.
bool holds_exit_for_master(const sim_state& s, const sim_instance& x) {
  return x.holds_exit && !s.policy->self_stop_drops_exits
         && !s.policy->self_stop_tags_exits;
}

} // namespace

std::optional<int64_t> self_check_due_ms(const sim_state& s, const outage& o,
                                         size_t i) {
  const auto& x = s.instances[i];
  if (s.policy->self_shutdown_s <= 0 || !o.down || holds_exit_for_master(s, x))
    return std::nullopt;
  auto when =
      policy::self_shutdown_at(self_view_of(s, o, x), self_config_of(s));
  if (!when)
    return std::nullopt;
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             when->time_since_epoch())
      .count();
}

self_check_outcome self_check(sim_state& s, const outage& o, size_t i) {
  auto& x = s.instances[i];
  if (x.gone || !o.down || x.idle_since_ms < 0 || holds_exit_for_master(s, x))
    return {};
  if (!policy::should_self_shutdown(self_view_of(s, o, x), self_config_of(s)))
    return {};
  // det-agent's next step (policy/idle_self_shutdown): with an exit the
  // master has not recorded, it writes the exit into its instance's tags
  // first (one CreateTags call), and stops once that is done.
  bool unrecorded = x.holds_exit && !s.policy->self_stop_drops_exits;
  switch (policy::next_self_stop_step(unrecorded ? 1 : 0,
                                      s.policy->self_stop_tags_exits)) {
  case policy::self_stop_step::stop:
    ++s.result.self_shutdowns;
    return {true, std::nullopt};
  case policy::self_stop_step::record_exits:
    x.holds_exit = false; // in the tags now: the master reads it there
    ++s.result.exits_tagged;
    return {false, s.now_ms + exit_tag_write_ms};
  case policy::self_stop_step::stay:
    break;
  }
  return {};
}

void end_leak(sim_state& s, sim_instance& x) {
  if (x.leak_since_ms < 0)
    return;
  s.result.outage_idle_instance_hours +=
      static_cast<double>(s.now_ms - x.leak_since_ms) / 3.6e6;
  x.leak_since_ms = -1;
}

} // namespace det::sim::detail
