// What det-inspect shows from a state, and the /metrics gauges.

#include "inspect/metrics_view.hpp"
#include "inspect/views.hpp"
#include "messages/errc.hpp"
#include "metrics/text_format.hpp"

#include <gtest/gtest.h>

using namespace det;
using nlohmann::json;

namespace {

state::cluster_state sample() {
  state::cluster_state s;
  int64_t pos = 0;
  auto put = [&](const domain_event& ev) {
    recorded_event meta;
    meta.position = ++pos;
    auto err = state::apply(s, meta, ev);
    ASSERT_FALSE(err) << render(err);
  };
  pool_configured p;
  p.pool = "default";
  p.provider = "local";
  p.max_instances = 2;
  put(p);
  agent_connected a;
  a.agent_id = "a1";
  a.pool = "default";
  a.slots = 2;
  a.at_us = 1800000000000000;
  put(a);
  experiment_submitted e;
  e.experiment_id = 1;
  e.pool = "default";
  e.owner = "determined";
  e.config = {{"name", "exp one"}, {"searcher", {{"name", "grid"}}}};
  e.at_us = 1800000000000000;
  put(e);
  trial_created t;
  t.trial_id = 1;
  t.experiment_id = 1;
  t.request_id = "r1";
  put(t);
  trial_placed tp;
  tp.trial_id = 1;
  tp.allocation_id = "1.1";
  tp.assignments = {{"a1", {0}}};
  put(tp);
  return s;
}

} // namespace

TEST(views, every_kind_has_a_name_and_tables) {
  for (auto name : {"pools", "agents", "instances", "experiments", "trials",
                    "checkpoints", "records"}) {
    auto k = inspection::view_kind_from(name);
    ASSERT_TRUE(k) << name;
    EXPECT_STREQ(inspection::to_string(*k), name);
    EXPECT_FALSE(inspection::view_tables(*k).empty());
  }
  EXPECT_FALSE(inspection::view_kind_from("bogus"));
}

TEST(views, pools_agents_experiments_and_trials_reflect_the_state) {
  auto s = sample();
  auto pools = inspection::view(s, inspection::view_kind::pools)["pools"];
  ASSERT_EQ(pools.size(), 1u);
  EXPECT_EQ(pools[0]["name"], "default");
  EXPECT_EQ(pools[0]["slots"], 2);
  EXPECT_EQ(pools[0]["slots_used"], 1);
  EXPECT_EQ(pools[0]["slots_free"], 1);
  auto agents = inspection::view(s, inspection::view_kind::agents)["agents"];
  ASSERT_EQ(agents.size(), 1u);
  EXPECT_EQ(agents[0]["connected_at"], "2027-01-15T08:00:00Z");
  auto exps =
      inspection::view(s, inspection::view_kind::experiments)["experiments"];
  ASSERT_EQ(exps.size(), 1u);
  EXPECT_EQ(exps[0]["name"], "exp one");
  EXPECT_EQ(exps[0]["searcher"], "grid");
  EXPECT_EQ(exps[0]["state"], "ACTIVE");
  auto trials = inspection::view(s, inspection::view_kind::trials)["trials"];
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(trials[0]["allocation"], "1.1");
  EXPECT_EQ(trials[0]["agents"], "a1");
}

TEST(views, metrics_gauges_count_slots_and_list_every_trial_state) {
  auto text = metrics::encode(inspection::state_families(sample()));
  EXPECT_NE(text.find("det_slots_used{pool=\"default\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("det_slots_free{pool=\"default\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("det_trials{state=\"assigned\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("det_trials{state=\"completed\"} 0\n"),
            std::string::npos);
  EXPECT_NE(text.find("det_instances{pool=\"default\",state=\"running\"} 0\n"),
            std::string::npos);
  EXPECT_NE(text.find("det_agents{pool=\"default\",status=\"connected\"} 1\n"),
            std::string::npos);
}

namespace det {

TEST(views, records_list_webhooks_without_the_urls_path) {
  state::cluster_state s;
  state::webhook_info w;
  w.id = 3;
  w.name = "slack";
  w.url = "https://hooks.slack.example/services/T0/B0/secret";
  w.webhook_type = "SLACK";
  w.mode = "WORKSPACE";
  w.triggers = {{{"id", 1},
                 {"trigger_type", "EXPERIMENT_STATE_CHANGE"},
                 {"condition", {{"state", "COMPLETED"}}}}};
  s.webhooks[3] = w;
  s.webhook_deliveries[9] = state::webhook_delivery_info{9, 3};
  auto rows = inspection::view(s, inspection::view_kind::records)["webhooks"];
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["url"], "https://hooks.slack.example");
  EXPECT_EQ(rows[0]["triggers"],
            "EXPERIMENT_STATE_CHANGE {\"state\":\"COMPLETED\"}");
  EXPECT_EQ(rows[0]["due"], 1);
}

} // namespace det
