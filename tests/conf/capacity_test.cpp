#include "conf/capacity.hpp"

#include "conf/master_config.hpp"
#include "conf/reader.hpp"

#include <gtest/gtest.h>

using namespace det::conf;

namespace {

struct fit_case {
  int64_t slots;
  bool single_node;
  int64_t agents;
  int64_t per_agent;
  const char* want; // "" = fits; else a substring of the error
};

TEST(capacity, slots_per_trial_that_can_never_fit_are_refused_with_the_reason) {
  const fit_case cases[] = {
      {0, false, 0, 0, ""},
      {1, false, 1, 1, ""},
      {4, false, 2, 4, ""},
      {8, false, 2, 4, ""},
      {3, true, 5, 4, ""},
      {16, false, 2, 4,
       "16 slots can never fit in resource pool \"p\": it has at "
       "most 8 slots (2 agents x 4 slots)"},
      {6, false, 4, 4, "needs a multiple of 4 slots"},
      {8, true, 4, 4, "with is_single_node a trial must fit on one agent"},
      {1, false, 5, 0, "its agents have no slots"},
      {2, false, 1, 1, "it has at most 1 slots (1 agent x 1 slots)"},
  };
  for (const auto& c : cases) {
    auto err = check_slots_fit(c.slots, c.single_node,
                               pool_capacity{"p", c.agents, c.per_agent});
    if (std::string{c.want}.empty()) {
      EXPECT_FALSE(err) << c.slots << " slots: " << det::render(err);
    } else {
      ASSERT_TRUE(err) << c.slots << " slots should not fit";
      EXPECT_NE(message_of(err).find("resources.slots_per_trial: "),
                std::string::npos);
      EXPECT_NE(message_of(err).find(c.want), std::string::npos)
          << message_of(err);
    }
  }
}

TEST(capacity, dynamic_pool_capacity_comes_from_its_provider) {
  auto cfg = load_master_config(DET_CONF_DIR "/master-aws.yaml");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  auto cap = max_capacity(*cfg->find_pool("gpu-pool"));
  ASSERT_TRUE(cap);
  EXPECT_EQ(cap->max_agents, 5);
  EXPECT_EQ(cap->slots_per_agent, 4);
  EXPECT_FALSE(check_slots_fit(20, false, *cap));
  EXPECT_TRUE(check_slots_fit(24, false, *cap));
  auto static_pool = parse_master_config("");
  ASSERT_TRUE(static_pool);
  EXPECT_FALSE(max_capacity(static_pool->resource_pools[0]));
}

} // namespace
