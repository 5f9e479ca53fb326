#include "policy/log_policies.hpp"

#include <gtest/gtest.h>

namespace det::policy {
namespace {

using nlohmann::json;

TEST(log_policies, the_defaults_apply_unless_the_config_names_them) {
  auto none = effective_log_policies(json::object());
  ASSERT_EQ(none.size(), 2u);
  EXPECT_EQ(none[0].name, "CUDA OOM");
  EXPECT_EQ(none[1].name, "ECC Error");
  EXPECT_EQ(none[0].action, "");
  // Naming a default without a pattern turns it off; a legacy policy
  // (no name, action as {type}) is kept as written.
  auto cfg = json::parse(R"({"log_policies": [
      {"name": "CUDA OOM"},
      {"pattern": "boom", "action": {"type": "exclude_node"}},
      {"name": "mine", "pattern": "x+", "action": "cancel_retries"}]})");
  auto ps = effective_log_policies(cfg);
  ASSERT_EQ(ps.size(), 4u);
  EXPECT_EQ(ps[0].name, "CUDA OOM");
  EXPECT_EQ(ps[0].pattern, "");
  EXPECT_EQ(ps[1].name, "");
  EXPECT_EQ(ps[1].action, "exclude_node");
  EXPECT_EQ(ps[2].action, "cancel_retries");
  EXPECT_EQ(ps[3].name, "ECC Error");
}

TEST(log_policies, a_bad_policy_is_refused_naming_the_item_and_field) {
  struct bad_case {
    const char* config;
    const char* problem;
  };
  for (const auto& c : std::vector<bad_case>{
           {R"("CUDA")", "log_policies: expected a list"},
           {R"([5])", "log_policies[0]: expected a policy"},
           {R"([{"name": "a", "pattern": "(open"}])",
            "log_policies[0].pattern: not a valid regular expression"},
           {R"([{"name": "a", "pattern": 7}])", "log_policies[0].pattern:"},
           {R"([{"name": "a"}, {"name": "b", "action": "reboot"}])",
            "log_policies[1].action: expected cancel_retries or exclude_node"},
           {R"([{"name": "a", "action": {"type": "reboot"}}])",
            "log_policies[0].action"},
           {R"([{"pattern": "x"}])",
            "log_policies[0]: a policy without a name needs a pattern and an "
            "action"},
           {R"([{"name": "a"}, {"name": "a"}])",
            "log_policies have duplicated names \"a\""},
           {R"([{"name": ""}])", "log_policies[0].name: expected a non-empty"},
           {R"([{"name": "a\u0007"}])", "log_policies[0].name: contains"},
           {R"([{"name": "a", "when": "now"}])",
            "log_policies[0]: unknown field 'when'"},
       }) {
    auto why = log_policies_problem(json::parse(c.config));
    EXPECT_EQ(why.rfind(c.problem, 0), 0u) << c.config << " -> " << why;
  }
  std::string huge(max_log_policy_pattern + 1, 'a');
  EXPECT_NE(
      log_policies_problem(json::array({{{"name", "a"}, {"pattern", huge}}}))
          .find("longer than 4096 bytes"),
      std::string::npos);
  EXPECT_EQ(log_policies_problem(json()), "");
  EXPECT_EQ(log_policies_problem(json::parse(
                R"([{"name": "a", "pattern": ".*x.*", "action": "exclude_node"},
                    {"pattern": "y", "action": {"type": "cancel_retries"}}])")),
            "");
}

TEST(log_policies, lines_that_echo_the_config_are_told_apart) {
  EXPECT_TRUE(echoes_log_policies(R"(config: {"log_policies": [...]})"));
  EXPECT_TRUE(echoes_log_policies("{'log_policies': []}"));
  EXPECT_FALSE(echoes_log_policies("RuntimeError: CUDA out of memory"));
}

} // namespace
} // namespace det::policy
