// The exit of a trial that ended while the master was down, end to end
// against the moto EC2 emulator (fixture moto_server) and a fake IMDSv2
// (fake_imds.py) that says this process runs on the moto instance: the
// agent's idle monitor writes the exit into the instance's tags through
// det-agent's real writer (IMDS instance id, region and role credentials,
// SigV4, CreateTags), and only then stops; the instance is terminated
// (the launch script's shutdown); the master's provisioner lists it
// terminated with the exit (DescribeInstances), and reconciliation records
// it for the allocation its state had on that instance's agent, and
// refuses a claim about an allocation of another instance.

#include "agent/exit_tag_writer.hpp"
#include "agent/idle_shutdown.hpp"
#include "aws/async_ec2.hpp"
#include "aws/async_executor.hpp"
#include "aws/query_ec2_client.hpp"
#include "core/provisioning.hpp"
#include "messages/errc.hpp"
#include "provision/aws_provider.hpp"
#include "state/cluster_state.hpp"
#include "test_support.hpp"
#include "tests/support/applied_state.hpp"

#include <gtest/gtest.h>

#include <future>
#include <map>
#include <unistd.h>

using namespace det;
using namespace std::chrono_literals;
using det::aws::test::child_process;
using det::aws::test::helper;

namespace {

constexpr int64_t s_ = 1'000'000;

policy::timestamp at(int64_t s) {
  return policy::timestamp{} + std::chrono::seconds{1'000'000 + s};
}

} // namespace

TEST(exit_tags_against_moto,
     an_exit_written_by_the_agent_is_read_back_by_the_returning_master) {
  auto url = aws::test::moto_url();
  ASSERT_FALSE(url.empty()) << "no moto server: run through ctest";
  const std::string region = "us-east-1";
  const std::string pool = "exit-tags-" + std::to_string(getpid());
  // The master launches the instance with its pool's tags.
  provision::aws_provider_options po;
  po.pool = pool;
  po.cluster_id = "c-exit-tags";
  po.aws.tag_key = "det-test-exit-tags";
  po.aws.tag_value = pool;
  po.list_interval = 0ms;
  aws::ec2_client_config cc;
  cc.region = region;
  cc.endpoint_url = url;
  cc.timeout = 20s;
  cc.retry.max_attempts = 2;
  cc.retry.base_delay = 10ms;
  auto master_ec2 = aws::make_curl_ec2_client(
      cc, aws::make_static_credentials(
              {"testing", "testing", "", std::nullopt, "test"}));
  auto executor = std::make_shared<aws::async_executor>(2);
  auto provider = std::make_shared<provision::aws_provider>(
      po, std::make_shared<aws::async_ec2>(master_ec2, executor));
  aws::run_instances_request req;
  req.image_id = "ami-12345678";
  req.instance_type = "t2.micro";
  req.min_count = req.max_count = 1;
  req.instance_tags = provider->pool_tags();
  req.instance_tags.push_back({provision::launch_tag_key, "tok-1"});
  auto launched = master_ec2->run_instances(req);
  ASSERT_TRUE(launched) << render(launched.error());
  ASSERT_EQ(launched->size(), 1u);
  const auto id = launched->front().instance_id;

  // This process is that instance, as far as IMDS says.
  child_process imds{{"python3", helper("fake_imds.py"), "--instance-id", id,
                      "--region", region, "--role", "det-agent-role"}};
  auto port = imds.read_line(15'000);
  ASSERT_FALSE(port.empty()) << "fake_imds.py did not start";
  std::map<std::string, std::string> env{
      {"AWS_EC2_METADATA_SERVICE_ENDPOINT", "http://127.0.0.1:" + port},
      {"AWS_ENDPOINT_URL_EC2", url},
      {"HOME", "/nonexistent"}};
  auto writer = std::make_shared<agent::exit_tag_writer>(
      [env](const std::string& k) -> std::optional<std::string> {
        auto i = env.find(k);
        if (i == env.end())
          return std::nullopt;
        return i->second;
      });

  // The agent: its trial (allocation A) ended while the master was away;
  // a second claim (B) is a lie about an allocation on another instance.
  const std::string a = "0123abcd-0000-4000-8000-00000000000a";
  const std::string b = "0123abcd-0000-4000-8000-00000000000b";
  std::vector<agent::exit_report> exits{{a + ".1", 3, 60 * s_},
                                        {b + ".1", 0, 60 * s_}};
  policy::self_shutdown_config sc;
  sc.max_idle = 180s;
  sc.unreachable_idle = 60s;
  std::atomic<int64_t> t{0};
  std::atomic<int> writes{0};
  std::promise<void> stopped;
  std::atomic<bool> tagged_before_stop{false};
  {
    agent::idle_shutdown_monitor m{
        sc,
        1ms,
        [&] {
          agent::idle_observation o;
          o.only_exits = true;
          o.exits = exits;
          return o;
        },
        [&] {
          auto seen = master_ec2->describe_instances(
              aws::describe_instances_request{{id}, {}, 0});
          tagged_before_stop = seen && seen->size() == 1
                               && seen->front().tag("det:exit:" + a + ".1");
          stopped.set_value();
        },
        [&] { return at(t.fetch_add(10)); },
        [&](const std::vector<agent::exit_report>& xs) {
          ++writes;
          return writer->write(xs);
        }};
    ASSERT_EQ(stopped.get_future().wait_for(60s), std::future_status::ready);
  }
  EXPECT_EQ(writes.load(), 1);
  EXPECT_TRUE(tagged_before_stop) << "stopped before the tags were there";

  // The launch script shuts the instance down; it terminates.
  auto term = master_ec2->terminate_instances({id});
  ASSERT_TRUE(term) << render(term.error());

  // The master is back: its state has A on this instance's agent, B on
  // another's.
  det::test::applied_state c;
  pool_configured p;
  p.pool = pool;
  p.provider = "aws";
  p.slots_per_instance = 1;
  p.max_instances = 3;
  c.apply(p);
  c.apply(instance_launch_requested{pool, 1, "tok-1", 2, false, 10 * s_});
  c.apply(instance_pending{id, pool, 1, 11 * s_});
  c.apply(instance_pending{"i-other", pool, 1, 11 * s_});
  c.apply(agent_connected{id, pool, 1, "cpu", id, 13 * s_});
  c.apply(agent_connected{"i-other", pool, 1, "cpu", "i-other", 13 * s_});
  for (const auto& tid : {a, b}) {
    task_launched tl;
    tl.task_id = tid;
    tl.task_type = "COMMAND";
    tl.owner = "admin";
    tl.pool = pool;
    tl.at_us = 14 * s_;
    c.apply(tl);
  }
  c.apply(task_placed{a, a + ".1", id, {0}, 15 * s_});
  c.apply(task_placed{b, b + ".1", "i-other", {0}, 15 * s_});

  std::promise<caf::expected<provider_inventory>> listed;
  provider->list([&](caf::expected<provider_inventory> inv) {
    listed.set_value(std::move(inv));
  });
  auto f = listed.get_future();
  ASSERT_EQ(f.wait_for(60s), std::future_status::ready);
  auto inv = f.get();
  ASSERT_TRUE(inv) << render(inv.error());
  const provider_instance* mine = nullptr;
  for (const auto& x : inv->instances)
    if (x.id == id)
      mine = &x;
  ASSERT_NE(mine, nullptr) << "the terminated instance is not listed";
  EXPECT_EQ(mine->state, "terminated");
  ASSERT_EQ(inv->exit_claims[id].size(), 2u);

  provisioning_input in;
  in.inventory = *inv;
  in.consistency_grace_us = 30 * s_;
  auto plan = plan_provisioning(c.s, pool, inv->taken_at_us, in);
  ASSERT_EQ(plan.tagged_exits.size(), 1u);
  EXPECT_EQ(plan.tagged_exits[0].first, id);
  EXPECT_EQ(plan.tagged_exits[0].second.allocation_id, a + ".1");
  EXPECT_EQ(plan.tagged_exits[0].second.exit_code, 3);
  EXPECT_EQ(plan.tagged_exits[0].second.exited_at_us, 60 * s_);
  ASSERT_EQ(plan.refused_exit_tags.size(), 1u);
  EXPECT_NE(plan.refused_exit_tags[0].find(b + ".1"), std::string::npos);
  bool gone = false;
  for (const auto& [gid, why] : plan.gone)
    gone = gone || gid == id;
  EXPECT_TRUE(gone);
  EXPECT_TRUE(plan.unknown_instances.empty())
      << "an instance the master does not know";
}
