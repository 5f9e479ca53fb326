#include "policy/scale_decision.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace det::policy {
namespace {

using namespace std::chrono_literals;

const timestamp t0 = timestamp{} + 1000h;

struct inst {
  std::string id;
  instance_state state;
  duration age; // since launch
  std::optional<duration> gone_for = std::nullopt;
  bool busy = false;
};

struct agt {
  std::string id;
  int slots;
  int free;
  std::optional<duration> idle_for = std::nullopt;
  bool schedulable = true;
  bool retiring = false;
};

struct scale_case {
  const char* name;
  std::vector<int> pending;
  std::vector<agt> agents;
  std::vector<inst> instances;
  scale_config config;
  int launch;
  std::vector<std::string> terminate; // "id:reason", sorted
  std::vector<size_t> never_fit = {};
};

scale_config cfg(int spi, int min_i = 0, int max_i = 5) {
  scale_config c;
  c.slots_per_instance = spi;
  c.min_instances = min_i;
  c.max_instances = max_i;
  return c;
}

/// A connected instance: its agent and its instance record.
std::pair<agt, inst> up(std::string id, int slots, int free,
                        std::optional<duration> idle_for = std::nullopt) {
  return {agt{id, slots, free, idle_for},
          inst{id, instance_state::running, 2h}};
}

scale_case with(scale_case c, std::vector<std::pair<agt, inst>> connected) {
  for (auto& [a, i] : connected) {
    c.agents.push_back(a);
    c.instances.push_back(i);
  }
  return c;
}

class scale_decision_table : public ::testing::TestWithParam<scale_case> {};

TEST_P(scale_decision_table, decides_launches_and_terminations) {
  const auto& c = GetParam();
  scale_input in;
  in.now = t0;
  in.pending_slots = c.pending;
  for (const auto& a : c.agents) {
    scale_agent sa{a.id,          a.slots,      a.free,
                   a.schedulable, std::nullopt, a.retiring};
    if (a.idle_for)
      sa.idle_since = t0 - *a.idle_for;
    in.agents.push_back(sa);
  }
  for (const auto& i : c.instances) {
    instance_view v{i.id, i.state, t0 - i.age, std::nullopt, i.busy};
    if (i.gone_for)
      v.disconnected_since = t0 - *i.gone_for;
    in.instances.push_back(v);
  }
  auto d = decide_scale(in, c.config);
  EXPECT_EQ(d.launch, c.launch);
  std::vector<std::string> got;
  for (const auto& t : d.terminate)
    got.push_back(t.instance_id + ":" + to_string(t.reason));
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, c.terminate);
  EXPECT_EQ(d.never_fit, c.never_fit);
}

INSTANTIATE_TEST_SUITE_P(
    table, scale_decision_table,
    ::testing::Values(
        scale_case{"nothing_to_do", {}, {}, {}, cfg(4), 0, {}},
        scale_case{
            "launches_up_to_min_instances", {}, {}, {}, cfg(4, 2), 2, {}},
        scale_case{"packs_small_trials_into_one_instance",
                   {1, 1, 1},
                   {},
                   {},
                   cfg(4),
                   1,
                   {}},
        scale_case{"rounds_up_to_whole_instances",
                   {1, 1, 1, 1, 1, 1, 1, 1, 1},
                   {},
                   {},
                   cfg(4),
                   3,
                   {}},
        with(scale_case{"uses_free_slots_on_connected_agents",
                        {1, 1},
                        {},
                        {},
                        cfg(4),
                        0,
                        {}},
             {up("i-a", 4, 2)}),
        with(scale_case{"fragmented_free_slots_do_not_hold_a_bigger_trial",
                        {4},
                        {},
                        {},
                        cfg(4),
                        1,
                        {}},
             {up("i-a", 4, 2), up("i-b", 4, 2)}),
        with(scale_case{"fragmented_free_slots_still_hold_trials_that_fit",
                        {2, 2},
                        {},
                        {},
                        cfg(4),
                        0,
                        {}},
             {up("i-a", 4, 2), up("i-b", 4, 2)}),
        scale_case{"counts_instances_already_starting",
                   {4, 4},
                   {},
                   {{"i-s", instance_state::starting, 2min}},
                   cfg(4),
                   1,
                   {}},
        scale_case{
            "a_gang_needs_several_instances", {16}, {}, {}, cfg(8), 2, {}},
        with(
            scale_case{
                "a_gang_uses_idle_agents_first", {16}, {}, {}, cfg(8), 1, {}},
            {up("i-a", 8, 8, 1min)}),
        with(scale_case{"a_gang_cannot_use_a_partly_used_agent",
                        {16},
                        {},
                        {},
                        cfg(8),
                        2,
                        {}},
             {up("i-a", 8, 7)}),
        scale_case{"does_not_launch_for_a_gang_that_is_not_a_multiple",
                   {12, 1},
                   {},
                   {},
                   cfg(8),
                   1,
                   {},
                   {0}},
        scale_case{"does_not_launch_for_more_than_the_pool_can_hold",
                   {64},
                   {},
                   {},
                   cfg(8, 0, 5),
                   0,
                   {},
                   {0}},
        with(scale_case{"caps_launches_at_max_instances",
                        {8, 8, 8, 8, 8, 8, 8, 8, 8, 8},
                        {},
                        {},
                        cfg(8, 0, 5),
                        3,
                        {}},
             {up("i-a", 8, 0), up("i-b", 8, 0)}),
        with(scale_case{"terminates_an_agent_idle_too_long",
                        {},
                        {},
                        {},
                        cfg(4),
                        0,
                        {"i-a:idle"}},
             {up("i-a", 4, 4, 30min)}),
        with(scale_case{"keeps_an_agent_idle_for_less_than_the_period",
                        {},
                        {},
                        {},
                        cfg(4),
                        0,
                        {}},
             {up("i-a", 4, 4, 10min)}),
        with(scale_case{"never_terminates_idle_agents_below_min_instances",
                        {},
                        {},
                        {},
                        cfg(4, 1),
                        0,
                        {"i-old:idle"}},
             {up("i-old", 4, 4, 50min), up("i-new", 4, 4, 30min)}),
        with(scale_case{"keeps_a_long_idle_agent_that_pending_work_will_use",
                        {4},
                        {},
                        {},
                        cfg(4),
                        0,
                        {}},
             {up("i-a", 4, 4, 30min)}),
        scale_case{"replaces_an_instance_that_never_connected",
                   {1},
                   {},
                   {{"i-stuck", instance_state::running, 25min}},
                   cfg(4),
                   1,
                   {"i-stuck:never_connected"}},
        scale_case{"does_not_replace_a_stuck_instance_nobody_needs",
                   {},
                   {},
                   {{"i-stuck", instance_state::running, 25min}},
                   cfg(4),
                   0,
                   {"i-stuck:never_connected"}},
        scale_case{"terminates_stopped_instances",
                   {},
                   {},
                   {{"i-x", instance_state::stopped, 1h}},
                   cfg(4),
                   0,
                   {"i-x:stopped"}},
        scale_case{"ignores_instances_on_their_way_out",
                   {4},
                   {},
                   {{"i-x", instance_state::terminating, 1h},
                    {"i-y", instance_state::stopping, 1h}},
                   cfg(4),
                   1,
                   {}},
        scale_case{
            "waits_for_a_briefly_disconnected_agent_but_launches_meanwhile",
            {4},
            {},
            {{"i-d", instance_state::running, 2h, 5min}},
            cfg(4),
            1,
            {}},
        scale_case{"terminates_an_agent_disconnected_too_long",
                   {},
                   {},
                   {{"i-d", instance_state::running, 2h, 11min}},
                   cfg(4),
                   0,
                   {"i-d:disconnected"}},
        scale_case{"never_terminates_a_disconnected_agent_that_holds_a_trial",
                   {},
                   {},
                   {{"i-d", instance_state::running, 2h, 11min, true}},
                   cfg(4),
                   0,
                   {}},
        with(scale_case{"terminates_the_newest_when_over_max_instances",
                        {},
                        {},
                        {{"i-s", instance_state::starting, 1min}},
                        cfg(4, 0, 1),
                        0,
                        {"i-s:over_maximum"}},
             {up("i-a", 4, 0)}),
        scale_case{"counts_a_disabled_agents_free_slots_as_nothing",
                   {1},
                   {{"i-a", 4, 4, std::nullopt, false}},
                   {{"i-a", instance_state::running, 2h}},
                   cfg(4),
                   1,
                   {}},
        // Emptied by consolidation: it goes the moment it is idle; one an
        // operator disabled waits for its idle period; a retiring one
        // still busy stays; min_instances still holds.
        scale_case{"terminates_a_retiring_agent_as_soon_as_it_is_idle",
                   {},
                   {{"i-r", 4, 4, 0s, false, true},
                    {"i-d", 4, 4, 1min, false, false},
                    {"i-b", 4, 3, std::nullopt, false, true}},
                   {{"i-r", instance_state::running, 2h},
                    {"i-d", instance_state::running, 2h},
                    {"i-b", instance_state::running, 2h}},
                   cfg(4),
                   0,
                   {"i-r:idle"}},
        scale_case{"keeps_a_retiring_agent_for_min_instances",
                   {},
                   {{"i-r", 4, 4, 0s, false, true}},
                   {{"i-r", instance_state::running, 2h}},
                   cfg(4, 1),
                   0,
                   {}}),
    [](const auto& tc) { return std::string{tc.param.name}; });

TEST(scale_decision, over_max_instances_terminates_starting_ones_first) {
  scale_input in;
  in.now = t0;
  in.agents = {{"i-a", 4, 0, true, std::nullopt}};
  in.instances = {{"i-a", instance_state::running, t0 - 2h, std::nullopt},
                  {"i-s1", instance_state::starting, t0 - 2min, std::nullopt},
                  {"i-s2", instance_state::starting, t0 - 1min, std::nullopt}};
  auto d = decide_scale(in, cfg(4, 0, 2));
  ASSERT_EQ(d.terminate.size(), 1u);
  EXPECT_EQ(d.terminate[0].instance_id, "i-s2");
  EXPECT_EQ(d.launch, 0);
}

TEST(scale_decision, reports_what_the_demand_wanted_before_the_cap) {
  scale_input in;
  in.now = t0;
  in.pending_slots = std::vector<int>(20, 8);
  auto d = decide_scale(in, cfg(8, 0, 5));
  EXPECT_EQ(d.wanted, 20);
  EXPECT_EQ(d.launch, 5);
}

} // namespace
} // namespace det::policy
