// The priority pass's queue order: the linear path (orders that never
// decrease along the list, as the master builds it) and the sorting paths
// agree with a plain sort by (priority clamped to 0..255, order, index).

#include "policy/scheduler_passes.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>

namespace det::policy {
namespace {

std::vector<uint32_t>
sorted_reference(const std::vector<pending_allocation>& pending) {
  std::vector<uint32_t> idx(pending.size());
  for (size_t i = 0; i < idx.size(); ++i)
    idx[i] = static_cast<uint32_t>(i);
  auto key = [&](uint32_t i) {
    return std::make_tuple(std::clamp(pending[i].priority, 0, 255),
                           pending[i].order, i);
  };
  std::sort(idx.begin(), idx.end(),
            [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
  return idx;
}

std::vector<pending_allocation> random_queue(std::mt19937& rng, size_t n,
                                             bool ordered) {
  std::vector<pending_allocation> out(n);
  uint64_t order = 0;
  for (auto& p : out) {
    // Out-of-range priorities are clamped; repeated orders tie on index.
    p.priority = static_cast<int>(rng() % 300) - 20;
    order += rng() % 3;
    p.order = order;
  }
  if (!ordered)
    std::shuffle(out.begin(), out.end(), rng);
  return out;
}

TEST(queue_order, a_queue_listed_in_order_comes_out_as_the_sort_would_give) {
  std::mt19937 rng{7};
  for (int round = 0; round < 200; ++round) {
    auto pending = random_queue(rng, rng() % 300, true);
    EXPECT_EQ(detail::queue_order(pending), sorted_reference(pending))
        << "round " << round;
  }
}

TEST(queue_order, a_shuffled_queue_is_sorted_by_priority_order_and_index) {
  std::mt19937 rng{11};
  for (int round = 0; round < 200; ++round) {
    auto pending = random_queue(rng, rng() % 300, false);
    EXPECT_EQ(detail::queue_order(pending), sorted_reference(pending))
        << "round " << round;
  }
}

} // namespace
} // namespace det::policy
