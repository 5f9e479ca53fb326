#include "conf/master_config.hpp"
#include "conf/redact.hpp"

#include <gtest/gtest.h>

using namespace det::conf;

namespace {

TEST(redact, master_config_secrets_are_hidden_and_the_rest_kept) {
  auto cfg = parse_master_config(R"(
db: {password: hunter2, user: u}
agent_token: tok-123
security: {initial_user_password: pw}
checkpoint_storage: {type: s3, bucket: b, access_key: AKIA, secret_key: SECRET}
resource_pools:
  - pool_name: p
    provider:
      type: aws
      image_id: ami-1
      ssh_key_name: my-key
      tag_key: determined
      startup_script: "echo secret"
)");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  auto out = redacted_config(*cfg);
  auto text = out.dump();
  for (auto secret :
       {"hunter2", "tok-123", "\"pw\"", "AKIA", "SECRET", "echo secret"})
    EXPECT_EQ(text.find(secret), std::string::npos)
        << secret << " leaked: " << text;
  EXPECT_EQ(out["db"]["password"], redacted_text);
  EXPECT_EQ(out["agent_token"], redacted_text);
  EXPECT_EQ(out["checkpoint_storage"]["secret_key"], redacted_text);
  // Not secrets.
  EXPECT_EQ(out["db"]["user"], "u");
  EXPECT_EQ(out["resource_pools"][0]["provider"]["ssh_key_name"], "my-key");
  EXPECT_EQ(out["resource_pools"][0]["provider"]["tag_key"], "determined");
  // The original stays intact for the master's own use.
  EXPECT_EQ(cfg->effective["db"]["password"], "hunter2");
  EXPECT_EQ(cfg->db.password, "hunter2");
}

TEST(redact, empty_secrets_stay_empty_so_unset_is_visible) {
  auto cfg = parse_master_config("");
  ASSERT_TRUE(cfg);
  auto out = redacted_config(*cfg);
  EXPECT_EQ(out["db"]["password"], "");
  EXPECT_EQ(out["agent_token"], "");
}

TEST(redact, passwords_inside_urls_are_hidden) {
  const std::pair<const char*, const char*> cases[] = {
      {"postgresql://u:pw@h:5432/d", "postgresql://u:********@h:5432/d"},
      {"postgresql://u@h/d", "postgresql://u@h/d"},
      {"http://h:8080/x@y", "http://h:8080/x@y"},
      {"no-scheme", "no-scheme"},
  };
  for (const auto& [in, want] : cases)
    EXPECT_EQ(redact_url(in), want) << in;
  auto cfg = parse_master_config("db: {url: 'postgresql://u:pw@h/d'}");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(redacted_config(*cfg)["db"]["url"], "postgresql://u:********@h/d");
}

TEST(redact, without_secrets_removes_set_keys_everywhere_and_keeps_the_rest) {
  auto tree = nlohmann::json::parse(R"({
    "checkpoint_storage": {"type": "s3", "bucket": "b", "access_key": "AKIA1",
                           "secret_key": "s3cr3t", "endpoint_url":
                           "http://u:pw@127.0.0.1:9000"},
    "environment": {"variables": ["A=1"], "token": ""},
    "hooks": [{"password": "p", "name": "n"}]
  })");
  auto out = without_secrets(tree);
  EXPECT_EQ(
      out["checkpoint_storage"],
      (nlohmann::json{{"type", "s3"},
                      {"bucket", "b"},
                      {"endpoint_url", "http://u:********@127.0.0.1:9000"}}));
  // Unset stays visible as unset; a secret inside an array goes too.
  EXPECT_EQ(out["environment"]["token"], "");
  EXPECT_EQ(out["hooks"][0], (nlohmann::json{{"name", "n"}}));
  EXPECT_EQ(out.dump().find("s3cr3t"), std::string::npos);
  EXPECT_EQ(tree["checkpoint_storage"]["secret_key"], "s3cr3t"); // a copy
}

} // namespace
