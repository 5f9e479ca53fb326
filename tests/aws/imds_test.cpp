// IMDSv2 against a fake metadata service (tests/aws/fake_imds.py) that
// speaks the real wire protocol on a free loopback port: session tokens,
// metadata helpers, spot notices, and instance-role credentials refreshed
// before they expire.

#include "aws/credential_chain.hpp"
#include "aws/imds_client.hpp"
#include "messages/errc.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>

using namespace det::aws;
using namespace std::chrono;
using det::aws::test::child_process;
using det::aws::test::helper;

namespace {

class fake_imds {
public:
  explicit fake_imds(std::vector<std::string> extra = {}) {
    std::vector<std::string> argv{"python3", helper("fake_imds.py")};
    argv.insert(argv.end(), extra.begin(), extra.end());
    proc_ = std::make_unique<child_process>(argv);
    port_ = proc_->read_line(15'000);
  }

  bool ready() const { return !port_.empty(); }

  std::string endpoint() const { return "http://127.0.0.1:" + port_; }

  /// Expires every session token on the server, as a TTL running out would.
  void expire_tokens() {
    det::net::http_request req;
    req.method = "PUT";
    req.url = endpoint() + "/_expire_tokens";
    auto resp = det::net::make_curl_http_client()->send(req);
    ASSERT_TRUE(resp && resp->status == 200);
  }

  nlohmann::json stats() {
    det::net::http_request req;
    req.url = endpoint() + "/_stats";
    auto resp = det::net::make_curl_http_client()->send(req);
    return resp ? nlohmann::json::parse(resp->body) : nlohmann::json{};
  }

private:
  std::unique_ptr<child_process> proc_;
  std::string port_;
};

imds_client client_for(const fake_imds& imds,
                       imds_client::wall_clock now = system_clock::now) {
  imds_config cfg;
  cfg.endpoint = imds.endpoint();
  cfg.timeout = milliseconds{5'000};
  return imds_client{cfg, det::net::make_curl_http_client(), std::move(now)};
}

} // namespace

TEST(imds, metadata_helpers_read_through_one_session_token) {
  fake_imds imds;
  ASSERT_TRUE(imds.ready()) << "fake_imds.py did not start";
  auto client = client_for(imds);
  EXPECT_EQ(*client.instance_id(), "i-0fake1234567890abc");
  EXPECT_EQ(*client.local_ipv4(), "10.0.0.12");
  EXPECT_EQ(*client.public_ipv4(), "54.0.0.12");
  EXPECT_EQ(*client.local_hostname(), "ip-10-0-0-12.ec2.internal");
  EXPECT_EQ(*client.public_hostname(), "ec2-54-0-0-12.compute-1.amazonaws.com");
  EXPECT_EQ(*client.region(), "eu-central-1");
  auto s = imds.stats();
  EXPECT_EQ(s["token_puts"], 1);
  EXPECT_EQ(s["unauthorized"], 0);
}

TEST(imds, a_missing_key_is_not_found_and_no_spot_notice_is_nullopt) {
  fake_imds imds;
  ASSERT_TRUE(imds.ready());
  auto client = client_for(imds);
  auto missing = client.get("no/such/key");
  ASSERT_FALSE(missing);
  EXPECT_EQ(det::code_of(missing.error()), det::errc::not_found);
  auto notice = client.spot_instance_action();
  ASSERT_TRUE(notice) << det::render(notice.error());
  EXPECT_FALSE(notice->has_value());
}

TEST(imds, a_scheduled_spot_interruption_is_reported) {
  fake_imds imds{{"--spot-action", "terminate"}};
  ASSERT_TRUE(imds.ready());
  auto notice = client_for(imds).spot_instance_action();
  ASSERT_TRUE(notice) << det::render(notice.error());
  ASSERT_TRUE(notice->has_value());
  EXPECT_EQ((*notice)->action, "terminate");
  EXPECT_EQ((*notice)->time, "2030-01-01T00:02:00Z");
}

TEST(imds, an_expired_token_is_replaced_after_a_401) {
  fake_imds imds;
  ASSERT_TRUE(imds.ready());
  auto client = client_for(imds);
  ASSERT_TRUE(client.instance_id());
  // The server drops the token the client still believes valid for 6 h.
  imds.expire_tokens();
  auto id = client.instance_id();
  ASSERT_TRUE(id) << det::render(id.error());
  auto s = imds.stats();
  EXPECT_EQ(s["token_puts"], 2);
  EXPECT_EQ(s["unauthorized"], 1);
}

TEST(imds, role_credentials_carry_keys_token_and_expiration) {
  fake_imds imds{{"--expires-in", "3600"}};
  ASSERT_TRUE(imds.ready());
  auto creds = client_for(imds).role_credentials();
  ASSERT_TRUE(creds) << det::render(creds.error());
  EXPECT_EQ(creds->access_key_id, "ASIAFAKE0001");
  EXPECT_EQ(creds->secret_access_key, "fake-secret-1");
  EXPECT_EQ(creds->session_token, "fake-session-token-1");
  ASSERT_TRUE(creds->expiration.has_value());
  auto left = duration_cast<seconds>(*creds->expiration - system_clock::now());
  EXPECT_GT(left.count(), 3500);
  EXPECT_LE(left.count(), 3600);
  EXPECT_NE(creds->source.find("instance role det-master-role"),
            std::string::npos);
}

TEST(imds, no_role_attached_is_not_found) {
  fake_imds imds{{"--no-role"}};
  ASSERT_TRUE(imds.ready());
  auto creds = client_for(imds).role_credentials();
  ASSERT_FALSE(creds);
  EXPECT_EQ(det::code_of(creds.error()), det::errc::not_found);
}

TEST(
    credential_chain_imds,
    instance_role_is_used_via_the_endpoint_override_and_refreshed_before_expiry) {
  fake_imds imds{{"--expires-in", "600"}};
  ASSERT_TRUE(imds.ready());
  std::map<std::string, std::string> env{
      {"AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.endpoint()},
      {"AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/credentials"},
      {"AWS_CONFIG_FILE", "/nonexistent/config"}};
  auto offset = seconds{0};
  credential_chain_options opts;
  opts.env = [&](const std::string& k) -> std::optional<std::string> {
    auto it = env.find(k);
    return it == env.end() ? std::nullopt
                           : std::optional<std::string>(it->second);
  };
  opts.now = [&] { return system_clock::now() + offset; };
  opts.refresh_before = seconds{300};
  auto chain = make_default_credential_chain(opts);

  auto first = chain->get();
  ASSERT_TRUE(first) << det::render(first.error());
  EXPECT_EQ(first->access_key_id, "ASIAFAKE0001");
  auto again = chain->get();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->access_key_id, "ASIAFAKE0001") << "cached while fresh";
  EXPECT_EQ(imds.stats()["credential_gets"], 1);

  offset = seconds{301}; // now within 300 s of the 600 s expiration
  auto refreshed = chain->get();
  ASSERT_TRUE(refreshed) << det::render(refreshed.error());
  EXPECT_EQ(refreshed->access_key_id, "ASIAFAKE0002");
  EXPECT_EQ(imds.stats()["credential_gets"], 2);

  auto region = resolve_region(opts);
  ASSERT_TRUE(region) << det::render(region.error());
  EXPECT_EQ(*region, "eu-central-1");
}
