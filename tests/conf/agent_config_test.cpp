#include "conf/agent_config.hpp"
#include "util/log.hpp"

#include "conf/reader.hpp"
#include "conf/redact.hpp"

#include "tests/conf/config_errors.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

using namespace det::conf;
using namespace std::chrono_literals;

namespace {

std::string agent_error_of(std::string_view yaml) {
  return det::test::error_text(parse_agent_config(yaml));
}

TEST(agent_config, example_file_loads) {
  auto cfg = load_agent_config(DET_CONF_DIR "/agent.yaml");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->master.to_url(), "http://127.0.0.1:8080");
  EXPECT_EQ(cfg->resource_pool, "default");
  EXPECT_EQ(cfg->slots, 1);
  EXPECT_EQ(cfg->reconnect_backoff, 5s);
}

TEST(agent_config, every_log_level_it_accepts_is_one_the_log_can_set) {
  for (const char* name : {"trace", "debug", "info", "warn", "warning", "error",
                           "critical", "fatal", "panic"}) {
    auto cfg = parse_agent_config(std::string{"log: {level: "} + name + "}\n");
    ASSERT_TRUE(cfg) << name << ": " << det::render(cfg.error());
    EXPECT_EQ(cfg->log_level, name);
    EXPECT_TRUE(det::log::parse_level(cfg->log_level)) << name;
  }
  EXPECT_NE(
      agent_error_of("log: {level: loud}\n").find("log.level: expected one of"),
      std::string::npos);
}

TEST(agent_config, empty_file_gives_working_defaults) {
  auto cfg = parse_agent_config("");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->master.to_url(), "http://localhost:8080");
  EXPECT_EQ(cfg->agent_id, "");
  EXPECT_EQ(cfg->resource_pool, "");
  EXPECT_EQ(cfg->slots, 0);
  EXPECT_EQ(cfg->slot_type, "auto");
  EXPECT_EQ(cfg->reconnect_attempts, 5);
  EXPECT_EQ(cfg->missed_heartbeats, 3);
  EXPECT_EQ(cfg->reconnect_backoff, 5s);
  EXPECT_FALSE(cfg->tls.enabled);
}

TEST(agent_config, upstream_layout_with_host_port_and_aliases_loads) {
  auto cfg = parse_agent_config(R"(
master_host: master.internal
master_port: 9090
artificial_slots: 4
agent_reconnect_attempts: 25
agent_reconnect_backoff: 10
security: {tls: {enabled: true, master_cert_name: det}}
hooks: {on_connection_lost: [shutdown, now]}
label: old
)");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->master.to_url(), "https://master.internal:9090");
  EXPECT_EQ(cfg->slots, 4);
  EXPECT_EQ(cfg->reconnect_attempts, 25);
  EXPECT_EQ(cfg->reconnect_backoff, 10s);
  EXPECT_EQ(cfg->on_connection_lost.size(), 2u);
}

TEST(agent_config, environment_then_flags_override_the_file) {
  auto file =
      parse_agent_config("master_url: http://a:8080\nslots: 1\ntoken: f\n");
  ASSERT_TRUE(file);
  std::map<std::string, std::string> env = {{"DET_MASTER", "http://b:9000"},
                                            {"DET_AGENT_TOKEN", "e"},
                                            {"DET_RESOURCE_POOL", ""}};
  auto from_env = overrides_from_env([&](const char* k) -> const char* {
    auto i = env.find(k);
    return i == env.end() ? nullptr : i->second.c_str();
  });
  EXPECT_FALSE(from_env.resource_pool); // empty counts as unset
  auto merged = apply_overrides(*file, from_env, "environment");
  ASSERT_TRUE(merged) << det::render(merged.error());
  EXPECT_EQ(merged->master.to_url(), "http://b:9000");
  EXPECT_EQ(merged->token, "e");
  agent_overrides flags;
  flags.slots = 8;
  flags.resource_pool = "gpu";
  merged = apply_overrides(*merged, flags, "flags");
  ASSERT_TRUE(merged) << det::render(merged.error());
  EXPECT_EQ(merged->slots, 8);
  EXPECT_EQ(merged->resource_pool, "gpu");
  EXPECT_EQ(merged->master.to_url(), "http://b:9000");
  EXPECT_EQ(merged->effective["slots"], 8);
  EXPECT_EQ(redact(merged->effective)["token"], redacted_text);
}

TEST(agent_config, malformed_overrides_are_refused_naming_their_source) {
  auto base = parse_agent_config("");
  ASSERT_TRUE(base);
  agent_overrides bad_url;
  bad_url.master_url = "ftp://x";
  auto r1 = apply_overrides(*base, bad_url, "--master-url");
  ASSERT_FALSE(r1);
  EXPECT_NE(message_of(r1.error()).find("master_url (from --master-url)"),
            std::string::npos)
      << message_of(r1.error());
  auto env = overrides_from_env([](const char* k) -> const char* {
    return std::string{k} == "DET_SLOTS" ? "many" : nullptr;
  });
  auto r2 = apply_overrides(*base, env, "environment");
  ASSERT_FALSE(r2);
  EXPECT_NE(message_of(r2.error()).find("slots (from environment)"),
            std::string::npos);
}

// idle_shutdown: off unless set; the file sets it, a flag overrides it.
TEST(agent_config, idle_shutdown_is_off_by_default_and_set_by_file_or_flag) {
  auto none = parse_agent_config("");
  ASSERT_TRUE(none) << det::render(none.error());
  EXPECT_EQ(none->idle_shutdown_after, 0ms);
  EXPECT_EQ(none->idle_shutdown_grace, 60s);
  auto file = parse_agent_config("idle_shutdown: {after: 3m, grace: 30s}\n");
  ASSERT_TRUE(file) << det::render(file.error());
  EXPECT_EQ(file->idle_shutdown_after, 180s);
  EXPECT_EQ(file->idle_shutdown_grace, 30s);
  agent_overrides o;
  o.idle_shutdown_after = "20m";
  auto flagged = apply_overrides(*file, o, "flag");
  ASSERT_TRUE(flagged) << det::render(flagged.error());
  EXPECT_EQ(flagged->idle_shutdown_after, 20min);
  o.idle_shutdown_after = "soon";
  auto bad = apply_overrides(*file, o, "flag");
  ASSERT_FALSE(bad);
  EXPECT_NE(message_of(bad.error()).find("idle_shutdown.after (from flag)"),
            std::string::npos);
}

// idle_shutdown.unreachable and exit_tags: off by default; from the file,
// or from --idle-shutdown-unreachable and --exit-tags.
TEST(agent_config,
     the_unreachable_period_and_exit_tags_come_from_file_or_flag) {
  auto none = parse_agent_config("");
  ASSERT_TRUE(none) << det::render(none.error());
  EXPECT_EQ(none->idle_shutdown_unreachable, 0ms);
  EXPECT_FALSE(none->idle_shutdown_exit_tags);
  auto file = parse_agent_config(
      "idle_shutdown: {after: 20m, unreachable: 1m, exit_tags: true}\n");
  ASSERT_TRUE(file) << det::render(file.error());
  EXPECT_EQ(file->idle_shutdown_unreachable, 60s);
  EXPECT_TRUE(file->idle_shutdown_exit_tags);
  agent_overrides o;
  o.idle_shutdown_unreachable = "2m";
  o.idle_shutdown_exit_tags = true;
  auto flagged = apply_overrides(*none, o, "flag");
  ASSERT_TRUE(flagged) << det::render(flagged.error());
  EXPECT_EQ(flagged->idle_shutdown_unreachable, 120s);
  EXPECT_TRUE(flagged->idle_shutdown_exit_tags);
  o.idle_shutdown_unreachable = "-1m";
  auto bad = apply_overrides(*none, o, "flag");
  ASSERT_FALSE(bad);
  EXPECT_NE(
      message_of(bad.error()).find("idle_shutdown.unreachable (from flag)"),
      std::string::npos);
}

class agent_errors : public testing::TestWithParam<det::test::error_case> {};

TEST_P(agent_errors, error_names_the_field_path) {
  auto err = agent_error_of(GetParam().yaml);
  EXPECT_NE(err.find(GetParam().want), std::string::npos)
      << "want: " << GetParam().want << "\ngot:  " << err;
}

const det::test::error_case agent_error_cases[] = {
    {"url_and_host", "master_url: http://a\nmaster_host: b\n",
     "master_host: not allowed together with master_url"},
    {"bad_url", "master_url: http://a/b\n",
     "master_url: a path is not allowed"},
    {"slots_text", "slots: four\n", "slots: expected an integer, got \"four\""},
    {"slots_negative", "slots: -1\n", "slots: must be between 0 and 4096"},
    {"port_range", "master_port: 0\n",
     "master_port: must be between 1 and 65535"},
    {"slot_type", "slot_type: tpu\n", "slot_type: expected one of"},
    {"missed_heartbeats", "missed_heartbeats: 0\n",
     "missed_heartbeats: must be between 1 and 1000, got 0"},
    {"backoff", "reconnect_backoff: 0s\n",
     "reconnect_backoff: must be a positive duration"},
    {"typo", "resource_pol: x\n",
     "unknown field 'resource_pol' (did you mean 'resource_pool'?)"},
    {"tls_typo", "security: {tls: {enable: true}}\n",
     "security.tls: unknown field 'enable' (did you mean 'enabled'?)"},
    {"hooks_shape", "hooks: {on_connection_lost: shutdown}\n",
     "hooks.on_connection_lost: expected a list of strings"},
    {"idle_grace", "idle_shutdown: {grace: 0s}\n",
     "idle_shutdown.grace: must be a positive duration"},
    {"idle_typo", "idle_shutdown: {afer: 3m}\n",
     "idle_shutdown: unknown field 'afer' (did you mean 'after'?)"},
};

INSTANTIATE_TEST_SUITE_P(table, agent_errors,
                         testing::ValuesIn(agent_error_cases),
                         [](const auto& p) {
                           return std::string{p.param.name};
                         });

} // namespace
