// conf/env_overrides: every DET_* variable read in one place, through an
// injected lookup; defaults when unset, the old clamps, and a number that
// does not parse refused naming the variable.

#include "conf/env_overrides.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

using namespace det::conf;
using std::chrono::milliseconds;

namespace {

struct fake_env {
  std::map<std::string, std::string> vars;
  env_lookup lookup() const {
    return [this](const char* name) -> const char* {
      auto i = vars.find(name);
      return i == vars.end() ? nullptr : i->second.c_str();
    };
  }
};

TEST(env_overrides, an_empty_environment_leaves_every_default) {
  fake_env e;
  auto m = read_master_env(e.lookup());
  ASSERT_TRUE(m) << det::render(m.error());
  EXPECT_EQ(m->session_secret, "");
  EXPECT_FALSE(m->read_replicas);
  EXPECT_FALSE(m->snapshot_every);
  EXPECT_FALSE(m->checkpoint_gc_interval);
  EXPECT_EQ(m->k8s_sa_dir, "");
  EXPECT_FALSE(m->provisioner.tick);
  EXPECT_FALSE(m->provisioner.wake);
  EXPECT_FALSE(m->provisioner.page_size);
  EXPECT_EQ(m->provisioner.test_crash_after, "");
  auto a = read_agent_env(e.lookup());
  ASSERT_TRUE(a) << det::render(a.error());
  EXPECT_EQ(a->spot_notice_interval, milliseconds{5000});
  EXPECT_EQ(a->pod_rank, "");
  auto i = read_inspect_env(e.lookup());
  EXPECT_EQ(i.master, "");
  EXPECT_EQ(i.db_url, "");
}

TEST(env_overrides, set_variables_reach_their_fields_and_empty_ones_do_not) {
  fake_env e{{{"DET_SESSION_SECRET", "s3cret"},
              {"DET_READ_REPLICAS", "3"},
              {"DET_SNAPSHOT_EVERY", "25"},
              {"DET_CHECKPOINT_GC_INTERVAL_MS", "300"},
              {"DET_K8S_SA_DIR", "/sa"},
              {"DET_PROVISIONER_TICK_MS", "250"},
              {"DET_PROVISIONER_MIN_GAP_MS", ""},
              {"DET_PROVISIONER_LIST_INTERVAL_MS", "100"},
              {"DET_PROVISIONER_PAGE_SIZE", "5"},
              {"DET_PROVISIONER_WAKE", "0"},
              {"DET_TEST_CRASH_AFTER", "run_instances"}}};
  auto m = read_master_env(e.lookup());
  ASSERT_TRUE(m) << det::render(m.error());
  EXPECT_EQ(m->session_secret, "s3cret");
  EXPECT_EQ(m->read_replicas, 3u);
  EXPECT_EQ(m->snapshot_every, 25);
  EXPECT_EQ(m->checkpoint_gc_interval, milliseconds{300});
  EXPECT_EQ(m->k8s_sa_dir, "/sa");
  EXPECT_EQ(m->provisioner.tick, milliseconds{250});
  EXPECT_FALSE(m->provisioner.min_gap);
  EXPECT_EQ(m->provisioner.list_interval, milliseconds{100});
  EXPECT_EQ(m->provisioner.page_size, 5);
  EXPECT_EQ(m->provisioner.wake, false);
  EXPECT_EQ(m->provisioner.test_crash_after, "run_instances");
  e.vars = {{"DET_PROVISIONER_WAKE", "yes"},
            {"DET_POD_NAME", "p-0"},
            {"DET_POD_RANK", "1"},
            {"DET_NUM_PODS", "2"},
            {"DET_SPOT_NOTICE_INTERVAL_MS", "200"},
            {"DET_MASTER", "http://m:8080"},
            {"DET_DB_URL", "postgres://x"}};
  EXPECT_EQ(read_master_env(e.lookup())->provisioner.wake, true);
  auto a = read_agent_env(e.lookup());
  ASSERT_TRUE(a) << det::render(a.error());
  EXPECT_EQ(a->spot_notice_interval, milliseconds{200});
  EXPECT_EQ(a->pod_name, "p-0");
  EXPECT_EQ(a->pod_rank, "1");
  EXPECT_EQ(a->num_pods, "2");
  auto i = read_inspect_env(e.lookup());
  EXPECT_EQ(i.master, "http://m:8080");
  EXPECT_EQ(i.db_url, "postgres://x");
}

TEST(env_overrides, small_values_are_clamped_as_the_programs_always_did) {
  fake_env e{{{"DET_READ_REPLICAS", "0"},
              {"DET_SNAPSHOT_EVERY", "-5"},
              {"DET_CHECKPOINT_GC_INTERVAL_MS", "1"},
              {"DET_PROVISIONER_MAX_PER_LAUNCH", "-4"}}};
  auto m = read_master_env(e.lookup());
  ASSERT_TRUE(m) << det::render(m.error());
  EXPECT_EQ(m->read_replicas, 1u);
  EXPECT_EQ(m->snapshot_every, 0);
  EXPECT_EQ(m->checkpoint_gc_interval, milliseconds{50});
  EXPECT_EQ(m->provisioner.max_per_launch, 1);
}

TEST(env_overrides, a_number_that_does_not_parse_is_refused_naming_it) {
  struct bad {
    const char* name;
    const char* value;
  };
  for (auto [name, value] :
       {bad{"DET_READ_REPLICAS", "two"},
        bad{"DET_CHECKPOINT_GC_INTERVAL_MS", "300ms"},
        bad{"DET_PROVISIONER_TICK_MS", "1.5"},
        bad{"DET_PROVISIONER_PAGE_SIZE", " "},
        bad{"DET_PROVISIONER_MAX_PER_LAUNCH", "99999999999999999999"}}) {
    fake_env e{{{name, value}}};
    auto m = read_master_env(e.lookup());
    ASSERT_FALSE(m) << name << "=" << value << " was taken";
    EXPECT_EQ(det::code_of(m.error()), det::errc::invalid_argument);
    auto text = det::render(m.error());
    EXPECT_NE(text.find(name), std::string::npos) << text;
    EXPECT_NE(text.find(value), std::string::npos) << text;
  }
  fake_env agent{{{"DET_SPOT_NOTICE_INTERVAL_MS", "soon"}}};
  auto a = read_agent_env(agent.lookup());
  ASSERT_FALSE(a);
  EXPECT_NE(det::render(a.error()).find("DET_SPOT_NOTICE_INTERVAL_MS"),
            std::string::npos);
}

} // namespace
