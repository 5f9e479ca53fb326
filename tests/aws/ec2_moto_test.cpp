// The EC2 client against the real moto emulator (fixture moto_server), with
// boto3 pointed at the same server as the independent witness of what we
// claim exists there.

#include "aws/async_ec2.hpp"
#include "aws/aws_error.hpp"
#include "aws/query_ec2_client.hpp"
#include "aws/security_groups.hpp"
#include "aws/ssm_client.hpp"
#include "messages/errc.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <future>
#include <map>
#include <set>
#include <unistd.h>

using namespace det::aws;
using namespace std::chrono_literals;
using det::aws::test::helper;
using det::aws::test::run_command;

namespace {

// Counts the actions sent through it, then forwards to libcurl.
class counting_http_client final : public det::net::http_client {
public:
  caf::expected<det::net::http_response>
  send(const det::net::http_request& req) override {
    auto at = req.body.find("Action=");
    auto end = req.body.find('&', at);
    std::lock_guard<std::mutex> guard{mtx_};
    ++calls_[req.body.substr(at + 7, end - at - 7)];
    return inner_->send(req);
  }

  int calls(const std::string& action) {
    std::lock_guard<std::mutex> guard{mtx_};
    return calls_[action];
  }

private:
  std::shared_ptr<det::net::http_client> inner_ =
      det::net::make_curl_http_client();
  std::mutex mtx_;
  std::map<std::string, int> calls_;
};

class ec2_against_moto : public ::testing::Test {
protected:
  void SetUp() override {
    url_ = det::aws::test::moto_url();
    ASSERT_FALSE(url_.empty())
        << "no moto server: run through ctest (fixture moto_server) or set "
           "DET_TEST_MOTO_URL";
    static std::atomic<int> counter{0};
    tag_value_ =
        "run-" + std::to_string(getpid()) + "-" + std::to_string(counter++)
        + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    config_.region = "us-east-1";
    config_.endpoint_url = url_;
    config_.timeout = 20s;
    config_.retry.max_attempts = 2;
    config_.retry.base_delay = 10ms;
    http_ = std::make_shared<counting_http_client>();
    auto api =
        make_ec2_query_api(config_,
                           make_static_credentials({"testing", "testing", "",
                                                    std::nullopt, "test"}),
                           http_, retry_clock::real());
    ec2_ = std::make_shared<query_ec2_client>(api, config_);
  }

  nlohmann::json boto3(std::vector<std::string> args) {
    std::vector<std::string> argv{"python3", helper("boto3_check.py"), url_,
                                  config_.region};
    argv.insert(argv.end(), args.begin(), args.end());
    auto res = run_command(argv);
    EXPECT_EQ(res.status, 0) << "boto3_check.py failed: " << res.out;
    return res.status == 0 ? nlohmann::json::parse(res.out) : nlohmann::json{};
  }

  std::map<std::string, nlohmann::json> boto3_instances() {
    std::map<std::string, nlohmann::json> out;
    for (auto& i : boto3({"instances", tag_key_, tag_value_}))
      out[i["id"]] = i;
    return out;
  }

  run_instances_request basic_launch(int count = 1) {
    run_instances_request req;
    req.image_id = "ami-12345678";
    req.instance_type = "t2.micro";
    req.min_count = count;
    req.max_count = count;
    req.instance_tags = {{tag_key_, tag_value_}};
    return req;
  }

  describe_instances_request ours() {
    describe_instances_request req;
    req.filters = {tag_filter(tag_key_, tag_value_)};
    return req;
  }

  std::string url_;
  std::string tag_key_ = "det-test-pool";
  std::string tag_value_;
  ec2_client_config config_;
  std::shared_ptr<counting_http_client> http_;
  std::shared_ptr<query_ec2_client> ec2_;
};

} // namespace

TEST_F(ec2_against_moto,
       run_instances_launches_tagged_instances_with_every_launch_option) {
  auto net = boto3({"network", tag_value_});
  auto profile_arn = boto3({"instance-profile", tag_value_}).get<std::string>();
  auto req = basic_launch(2);
  req.client_token = tag_value_.substr(0, 60);
  req.instance_tags.push_back({"Name", "determined-ai-agent"});
  req.volume_tags = {{tag_key_, tag_value_ + "-vol"}};
  req.iam_instance_profile_arn = profile_arn;
  req.network_interface = network_interface_spec{
      true, {net["security_group_id"]}, net["subnet_id"]};
  req.key_name = "determined-ai-ssh";
  req.root_volume_size_gb = 100;
  req.user_data = "#!/bin/bash\necho 'det agent' > /tmp/x\n";
  auto launched = ec2_->run_instances(req);
  ASSERT_TRUE(launched) << det::render(launched.error());
  ASSERT_EQ(launched->size(), 2u);
  for (const auto& i : *launched) {
    EXPECT_EQ(i.instance_id.rfind("i-", 0), 0u);
    EXPECT_EQ(i.tag(tag_key_), tag_value_);
    EXPECT_EQ(i.tag("Name"), "determined-ai-agent");
    EXPECT_EQ(i.image_id, "ami-12345678");
  }
  auto seen = boto3_instances();
  ASSERT_EQ(seen.size(), 2u);
  int with_profile = 0;
  for (const auto& i : *launched) {
    ASSERT_TRUE(seen.count(i.instance_id)) << i.instance_id;
    const auto& b = seen[i.instance_id];
    EXPECT_EQ(b["state"], "running");
    EXPECT_EQ(b["tags"]["Name"], "determined-ai-agent");
    with_profile += b["iam_profile_arn"] == profile_arn ? 1 : 0;
    EXPECT_EQ(b["http_tokens"], "required");
    EXPECT_EQ(b["subnet_id"], net["subnet_id"]);
    EXPECT_EQ(b["key_name"], "determined-ai-ssh");
    ASSERT_EQ(b["volumes"].size(), 1u);
    EXPECT_EQ(b["volumes"][0]["size"], 100);
    EXPECT_EQ(b["volumes"][0]["tags"][tag_key_], tag_value_ + "-vol");
  }
  // moto 5.2.1 associates the instance profile with only the first instance
  // of a multi-instance launch (boto3 sees the same); EC2 does all of them.
  EXPECT_GE(with_profile, 1);
}

TEST_F(ec2_against_moto,
       spot_market_launch_with_max_price_makes_spot_instances) {
  auto net = boto3({"network", tag_value_});
  auto req = basic_launch();
  req.security_group_ids = {net["security_group_id"]};
  req.subnet_id = net["subnet_id"];
  req.spot = true;
  req.spot_max_price = "0.50";
  auto launched = ec2_->run_instances(req);
  ASSERT_TRUE(launched) << det::render(launched.error());
  ASSERT_EQ(launched->size(), 1u);
  EXPECT_EQ(launched->front().lifecycle, "spot");
  auto seen = boto3_instances();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen.begin()->second["lifecycle"], "spot");
  EXPECT_EQ(seen.begin()->second["security_groups"],
            nlohmann::json::array({net["security_group_id"]}));
}

TEST_F(ec2_against_moto, describe_filters_by_tag_state_and_instance_id) {
  auto launched = ec2_->run_instances(basic_launch(3));
  ASSERT_TRUE(launched) << det::render(launched.error());
  auto victim = launched->at(0).instance_id;
  auto term = ec2_->terminate_instances({victim});
  ASSERT_TRUE(term) << det::render(term.error());

  auto req = ours();
  req.filters.push_back(state_filter({"pending", "running"}));
  auto live = ec2_->describe_instances(req);
  ASSERT_TRUE(live) << det::render(live.error());
  EXPECT_EQ(live->size(), 2u);
  for (const auto& i : *live)
    EXPECT_NE(i.instance_id, victim);

  req = ours();
  req.filters.push_back(state_filter({"terminated"}));
  auto dead = ec2_->describe_instances(req);
  ASSERT_TRUE(dead) << det::render(dead.error());
  ASSERT_EQ(dead->size(), 1u);
  EXPECT_EQ(dead->front().instance_id, victim);
  EXPECT_EQ(dead->front().state_code, 48);

  describe_instances_request by_id;
  by_id.instance_ids = {launched->at(1).instance_id,
                        launched->at(2).instance_id};
  auto two = ec2_->describe_instances(by_id);
  ASSERT_TRUE(two) << det::render(two.error());
  std::set<std::string> ids;
  for (const auto& i : *two)
    ids.insert(i.instance_id);
  EXPECT_EQ(ids, (std::set<std::string>{launched->at(1).instance_id,
                                        launched->at(2).instance_id}));

  req = ours();
  req.filters.front().values = {"no-such-pool"};
  auto none = ec2_->describe_instances(req);
  ASSERT_TRUE(none) << det::render(none.error());
  EXPECT_TRUE(none->empty());
}

TEST_F(ec2_against_moto, describe_follows_next_token_through_every_page) {
  // moto pages by reservation: twelve launches are twelve reservations.
  std::set<std::string> launched_ids;
  for (int i = 0; i < 12; ++i) {
    auto launched = ec2_->run_instances(basic_launch());
    ASSERT_TRUE(launched) << det::render(launched.error());
    launched_ids.insert(launched->front().instance_id);
  }
  auto req = ours();
  req.page_size = 5;
  auto all = ec2_->describe_instances(req);
  ASSERT_TRUE(all) << det::render(all.error());
  std::set<std::string> ids;
  for (const auto& i : *all)
    ids.insert(i.instance_id);
  EXPECT_EQ(all->size(), 12u) << "no instance may appear twice";
  EXPECT_EQ(ids, launched_ids);
  EXPECT_EQ(http_->calls("DescribeInstances"), 3) << "pages of 5, 5 and 2";
}

TEST_F(ec2_against_moto,
       terminate_reports_unknown_ids_and_still_terminates_the_known_ones) {
  auto launched = ec2_->run_instances(basic_launch(3));
  ASSERT_TRUE(launched) << det::render(launched.error());
  const auto& l = *launched;
  config_.terminate_batch_size = 2;
  query_ec2_client small_batches(
      make_ec2_query_api(config_,
                         make_static_credentials(
                             {"testing", "testing", "", std::nullopt, "test"}),
                         http_, retry_clock::real()),
      config_);
  auto res = small_batches.terminate_instances(
      {l[0].instance_id, "i-0123456789abcdef0", l[1].instance_id,
       "i-0fedcba9876543210", l[2].instance_id, l[0].instance_id});
  ASSERT_TRUE(res) << det::render(res.error());
  EXPECT_EQ(
      std::set<std::string>(res->not_found.begin(), res->not_found.end()),
      (std::set<std::string>{"i-0123456789abcdef0", "i-0fedcba9876543210"}));
  std::set<std::string> changed;
  for (const auto& c : res->changes)
    changed.insert(c.instance_id);
  EXPECT_EQ(changed, (std::set<std::string>{l[0].instance_id, l[1].instance_id,
                                            l[2].instance_id}));
  for (auto& [id, b] : boto3_instances())
    EXPECT_EQ(b["state"], "terminated") << id;
}

TEST_F(ec2_against_moto, create_tags_sets_tags_that_boto3_sees) {
  auto launched = ec2_->run_instances(basic_launch(2));
  ASSERT_TRUE(launched) << det::render(launched.error());
  std::vector<std::string> ids;
  for (const auto& i : *launched)
    ids.push_back(i.instance_id);
  auto err = ec2_->create_tags(
      ids, {{"det-agent-id", "agent-7"}, {"Name", "det agent & co"}});
  ASSERT_FALSE(err) << det::render(err);
  auto seen = boto3_instances();
  ASSERT_EQ(seen.size(), 2u);
  for (auto& [id, b] : seen) {
    EXPECT_EQ(b["tags"]["det-agent-id"], "agent-7") << id;
    EXPECT_EQ(b["tags"]["Name"], "det agent & co") << id;
  }
}

TEST_F(ec2_against_moto,
       spot_requests_can_be_requested_described_and_cancelled) {
  spot_request_spec spec;
  spec.instance_count = 2;
  spec.spot_price = "0.25";
  spec.image_id = "ami-12345678";
  spec.instance_type = "p3.8xlarge";
  spec.request_tags = {{tag_key_, tag_value_}};
  spec.user_data = "#!/bin/sh\ntrue\n";
  auto made = ec2_->request_spot_instances(spec);
  ASSERT_TRUE(made) << det::render(made.error());
  ASSERT_EQ(made->size(), 2u);
  for (const auto& r : *made)
    EXPECT_EQ(r.request_id.rfind("sir-", 0), 0u);

  describe_spot_requests_request req;
  req.filters = {tag_filter(tag_key_, tag_value_)};
  auto listed = ec2_->describe_spot_instance_requests(req);
  ASSERT_TRUE(listed) << det::render(listed.error());
  ASSERT_EQ(listed->size(), 2u);
  std::set<std::string> ours_ids;
  for (const auto& r : *listed) {
    ours_ids.insert(r.request_id);
    EXPECT_EQ(r.state, "active"); // moto fulfils at once
    EXPECT_FALSE(r.instance_id.empty());
    ASSERT_EQ(r.tags.size(), 1u);
    EXPECT_EQ(r.tags.front(), (ec2_tag{tag_key_, tag_value_}));
  }
  std::set<std::string> boto_ids;
  for (auto& r : boto3({"spot-requests", tag_key_, tag_value_}))
    boto_ids.insert(r["id"].get<std::string>());
  EXPECT_EQ(boto_ids, ours_ids);

  auto cancelled = ec2_->cancel_spot_instance_requests(
      std::vector<std::string>(ours_ids.begin(), ours_ids.end()));
  ASSERT_TRUE(cancelled) << det::render(cancelled.error());
  ASSERT_EQ(cancelled->size(), 2u);
  for (const auto& c : *cancelled)
    EXPECT_EQ(c.state, "cancelled");
  // moto forgets cancelled requests (AWS would list them as cancelled).
  EXPECT_TRUE(boto3({"spot-requests", tag_key_, tag_value_}).empty());
}

TEST_F(ec2_against_moto, ec2_error_responses_become_typed_errors) {
  auto req = basic_launch();
  req.iam_instance_profile_arn =
      "arn:aws:iam::123456789012:instance-profile/does-not-exist";
  auto launched = ec2_->run_instances(req);
  ASSERT_FALSE(launched);
  EXPECT_EQ(det::code_of(launched.error()), det::errc::remote_error);
  auto info = aws_error_of(launched.error());
  EXPECT_EQ(info.kind, aws_error_kind::not_found)
      << det::render(launched.error());
  EXPECT_EQ(info.code, "NoSuchEntity");

  // moto answers unimplemented filters with an HTML 500 page: a server error
  // after the retry budget (two attempts here).
  describe_instances_request bad;
  bad.filters = {{"client-token", {"x"}}};
  auto listed = ec2_->describe_instances(bad);
  ASSERT_FALSE(listed);
  EXPECT_EQ(aws_error_of(listed.error()).kind, aws_error_kind::server_error)
      << det::render(listed.error());
  EXPECT_EQ(http_->calls("DescribeInstances"), 2);
  EXPECT_NE(det::render(listed.error()).find("gave up after 2 attempts"),
            std::string::npos)
      << det::render(listed.error());
}

TEST_F(ec2_against_moto,
       invalid_requests_are_rejected_before_anything_is_sent) {
  auto req = basic_launch();
  req.network_interface = network_interface_spec{true, {"sg-1"}, ""};
  req.subnet_id = "subnet-1";
  auto launched = ec2_->run_instances(req);
  ASSERT_FALSE(launched);
  EXPECT_EQ(det::code_of(launched.error()), det::errc::invalid_argument);
  EXPECT_EQ(http_->calls("RunInstances"), 0);
}

TEST_F(ec2_against_moto, async_calls_run_on_executor_threads_against_moto) {
  auto ex = std::make_shared<async_executor>(2);
  async_ec2 async{ec2_, ex};
  std::promise<caf::expected<std::vector<instance>>> launched;
  async.run_instances(basic_launch(2),
                      [&](auto res) { launched.set_value(std::move(res)); });
  auto l = launched.get_future().get();
  ASSERT_TRUE(l) << det::render(l.error());
  std::promise<std::pair<caf::expected<std::vector<instance>>, std::thread::id>>
      described;
  async.describe_instances(ours(), [&](auto res) {
    described.set_value({std::move(res), std::this_thread::get_id()});
  });
  auto [d, thread] = described.get_future().get();
  ASSERT_TRUE(d) << det::render(d.error());
  EXPECT_EQ(d->size(), 2u);
  EXPECT_NE(thread, std::this_thread::get_id());
}

// The older documents' `security_group: NAME`: the provisioner launches
// with the id this finds.
TEST_F(ec2_against_moto, a_security_group_name_resolves_to_its_id) {
  auto net = boto3({"network", tag_value_});
  auto id = security_group_id_by_name(*ec2_, tag_value_);
  ASSERT_TRUE(id) << det::render(id.error());
  EXPECT_EQ(*id, net["security_group_id"]);
  auto groups = ec2_->describe_security_groups({{"group-id", {*id}}});
  ASSERT_TRUE(groups) << det::render(groups.error());
  ASSERT_EQ(groups->size(), 1u);
  EXPECT_EQ(groups->front().group_name, tag_value_);
  EXPECT_FALSE(groups->front().vpc_id.empty());
  auto missing = security_group_id_by_name(*ec2_, tag_value_ + "-none");
  ASSERT_FALSE(missing);
  EXPECT_NE(det::render(missing.error())
                .find("no security group named \"" + tag_value_ + "-none\""),
            std::string::npos)
      << det::render(missing.error());
  // The same name in a second VPC: ambiguous, so the id is asked for.
  boto3({"network", tag_value_});
  auto two = security_group_id_by_name(*ec2_, tag_value_);
  ASSERT_FALSE(two);
  EXPECT_NE(det::render(two.error()).find("give the sg- id instead"),
            std::string::npos)
      << det::render(two.error());
}

// det-deploy reads the agents' AMIs from SSM parameters with this client.
TEST_F(ec2_against_moto, ssm_parameters_are_read_and_missing_ones_named) {
  auto a = "/det-test/" + tag_value_ + "/a";
  auto b = "/det-test/" + tag_value_ + "/b";
  boto3({"ssm-put", a, "ami-0123456789abcdef0"});
  boto3({"ssm-put", b, "ami-00000000"});
  ssm_client_config sc;
  sc.region = config_.region;
  sc.endpoint_url = url_;
  auto ssm = make_curl_ssm_client(
      sc, make_static_credentials(
              {"testing", "testing", "", std::nullopt, "test"}));
  auto got = ssm->get_parameters({a, b, a + "-none"});
  ASSERT_TRUE(got) << det::render(got.error());
  EXPECT_EQ(got->values.at(a), "ami-0123456789abcdef0");
  EXPECT_EQ(got->values.at(b), "ami-00000000");
  EXPECT_EQ(got->missing, std::vector<std::string>{a + "-none"});
  auto none = ssm->get_parameters({});
  EXPECT_FALSE(none);
}
