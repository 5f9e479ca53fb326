#pragma once

// Which allocation sizes a pool can ever hold, as opposed to "not now".
// Used by the pool scheduler to report allocations that would otherwise wait
// forever (upstream silently never scales up for them), with a reason a user
// can act on.

#include "policy/scheduler_types.hpp"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace det::policy {

class capacity_check {
public:
  /// Agents of every size that the pool may ever have: the connected ones
  /// (enabled or not) and, for a provisioned pool, instances of
  /// `cap.slots_per_instance`.
  capacity_check(const pool_capacity& cap,
                 const std::vector<agent_view>& agents);

  /// The same from the number of agents of each size (total_slots > 0),
  /// as a scheduler that keeps them between passes counts them.
  capacity_check(const pool_capacity& cap,
                 std::map<int, long long, std::greater<>> agents_by_size);

  /// Why an allocation of `slots` slots can never be placed in this pool, or
  /// nothing when some set of agents could hold it.
  [[nodiscard]] std::optional<std::string> never_fits(int slots) const;

  /// Shorthand: never_fits(slots) has no value. Cached per size.
  [[nodiscard]] bool can_ever_fit(int slots);

private:
  struct size_count {
    int size;
    long long count;
  };

  pool_capacity cap_;
  int largest_agent_ = 0;
  std::vector<size_count> sizes_;
  std::vector<signed char> cache_; // by slots: 0 unknown, 1 fits, 2 never
};

} // namespace det::policy
