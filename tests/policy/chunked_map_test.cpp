// chunked_map against std::map: random inserts and erases (duplicates,
// missing keys, runs that split and empty chunks), then the same walk.

#include "policy/chunked_map.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <random>
#include <utility>
#include <vector>

namespace det::policy {
namespace {

TEST(chunked_map, walks_and_changes_as_a_std_map_does) {
  std::mt19937 rng{7};
  for (int round = 0; round < 40; ++round) {
    chunked_map<std::pair<int, int>, int, std::greater<>> got;
    std::map<std::pair<int, int>, int, std::greater<>> want;
    int range = 1 + static_cast<int>(rng() % 2000);
    int steps = static_cast<int>(rng() % 6000);
    for (int s = 0; s < steps; ++s) {
      std::pair<int, int> k{
          static_cast<int>(rng() % 5),
          static_cast<int>(rng() % static_cast<unsigned>(range))};
      // Phases of mostly inserts, then mostly erases, so chunks fill,
      // split and empty.
      bool insert = (s / 500) % 2 == 0 ? rng() % 4 != 0 : rng() % 4 == 0;
      if (insert)
        ASSERT_EQ(got.emplace(k, s), want.emplace(k, s).second);
      else
        ASSERT_EQ(got.erase(k), want.erase(k) == 1);
      ASSERT_EQ(got.size(), want.size());
    }
    std::vector<std::pair<std::pair<int, int>, int>> walked;
    for (const auto& kv : got)
      walked.push_back(kv);
    std::vector<std::pair<std::pair<int, int>, int>> expected(want.begin(),
                                                              want.end());
    ASSERT_EQ(walked, expected) << "round " << round;
    EXPECT_EQ(got.empty(), want.empty());
  }
}

} // namespace
} // namespace det::policy
