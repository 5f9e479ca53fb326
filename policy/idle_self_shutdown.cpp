#include "policy/idle_self_shutdown.hpp"

#include <algorithm>

namespace det::policy {

duration self_shutdown_idle_period(const self_shutdown_config& c) {
  if (c.unreachable_idle > duration::zero() && c.unreachable_idle < c.max_idle)
    return c.unreachable_idle;
  return c.max_idle;
}

std::optional<timestamp> self_shutdown_at(const self_shutdown_input& in,
                                          const self_shutdown_config& c) {
  if (c.max_idle <= duration::zero() || !in.idle_since
      || !in.disconnected_since)
    return std::nullopt;
  return std::max(*in.idle_since + self_shutdown_idle_period(c),
                  *in.disconnected_since + c.grace);
}

bool should_self_shutdown(const self_shutdown_input& in,
                          const self_shutdown_config& c) {
  auto at = self_shutdown_at(in, c);
  return at && in.now >= *at;
}

self_stop_step next_self_stop_step(size_t unrecorded_exits, bool can_record) {
  if (unrecorded_exits == 0)
    return self_stop_step::stop;
  return can_record ? self_stop_step::record_exits : self_stop_step::stay;
}

} // namespace det::policy
