#include "policy/capacity.hpp"

#include <algorithm>
#include <map>

namespace det::policy {

namespace {

constexpr int max_cached_slots = 1 << 16;

} // namespace

namespace {

std::map<int, long long, std::greater<>>
count_sizes(const std::vector<agent_view>& agents) {
  std::map<int, long long, std::greater<>> counts;
  for (const auto& a : agents)
    if (a.total_slots > 0)
      ++counts[a.total_slots];
  return counts;
}

} // namespace

capacity_check::capacity_check(const pool_capacity& cap,
                               const std::vector<agent_view>& agents)
    : capacity_check(cap, count_sizes(agents)) {}

capacity_check::capacity_check(const pool_capacity& cap,
                               std::map<int, long long, std::greater<>> counts)
    : cap_(cap) {
  if (cap.slots_per_instance > 0) {
    auto& n = counts[cap.slots_per_instance];
    n = std::max(
        n, static_cast<long long>(cap.max_slots / cap.slots_per_instance));
  }
  for (const auto& [size, count] : counts)
    sizes_.push_back(size_count{size, count});
  largest_agent_ = sizes_.empty() ? 0 : sizes_.front().size;
}

std::optional<std::string> capacity_check::never_fits(int slots) const {
  if (slots <= 0)
    return "needs " + std::to_string(slots)
           + " slots; zero-slot allocations are not placed by the slot "
             "scheduler";
  if (slots > cap_.max_slots)
    return "needs " + std::to_string(slots)
           + " slots but the pool can never offer more than "
           + std::to_string(cap_.max_slots);
  if (slots <= largest_agent_)
    return std::nullopt;
  std::string sizes;
  for (const auto& sc : sizes_) {
    if (slots % sc.size == 0 && sc.count * sc.size >= slots)
      return std::nullopt;
    sizes += (sizes.empty() ? "" : ", ") + std::to_string(sc.size);
  }
  return "needs " + std::to_string(slots)
         + " slots but no agent has that many, and a trial spanning several "
           "agents needs enough whole agents of one size that divides it "
           "(agent sizes: "
         + (sizes.empty() ? std::string{"none"} : sizes) + ")";
}

bool capacity_check::can_ever_fit(int slots) {
  if (slots <= 0 || slots > cap_.max_slots)
    return false;
  if (slots <= largest_agent_)
    return true;
  if (slots > max_cached_slots)
    return !never_fits(slots).has_value();
  // Grown as sizes are asked for: a pass asks for a few, and a pool's
  // max_slots may be 65,536 (a cache of that size, zeroed every pass, was
  // a tenth of a preemption pass).
  if (static_cast<size_t>(slots) >= cache_.size())
    cache_.resize(static_cast<size_t>(slots) + 1, 0);
  auto& c = cache_[static_cast<size_t>(slots)];
  if (c == 0)
    c = never_fits(slots) ? 2 : 1;
  return c == 1;
}

} // namespace det::policy
