#include "policy/idle_self_shutdown.hpp"

#include <algorithm>

namespace det::policy {

std::optional<timestamp> self_shutdown_at(const self_shutdown_input& in,
                                          const self_shutdown_config& c) {
  if (c.max_idle <= duration::zero() || !in.idle_since
      || !in.disconnected_since)
    return std::nullopt;
  return std::max(*in.idle_since + c.max_idle,
                  *in.disconnected_since + c.grace);
}

bool should_self_shutdown(const self_shutdown_input& in,
                          const self_shutdown_config& c) {
  auto at = self_shutdown_at(in, c);
  return at && in.now >= *at;
}

} // namespace det::policy
