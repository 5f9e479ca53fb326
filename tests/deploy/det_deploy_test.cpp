// det-deploy's pure parts: the command line and its mapping to template
// parameters, CloudFormation's Query parameters and responses, the stack
// waiter against a scripted stack, and the template checks.

#include "aws/aws_error.hpp"
#include "aws/cloudformation_client.hpp"
#include "aws/cloudformation_parse.hpp"
#include "aws/credential_provider.hpp"
#include "aws/http_client.hpp"
#include "cmd/det_deploy/commands.hpp"
#include "cmd/det_deploy/options.hpp"
#include "cmd/det_deploy/stack_waiter.hpp"
#include "cmd/det_deploy/templates.hpp"
#include "messages/errc.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <deque>
#include <map>

using namespace det;
using namespace det::deploy;
using aws::stack_key_value;

namespace {

std::vector<std::string> up_args(std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"aws",
                                   "up",
                                   "--cluster-id",
                                   "c1",
                                   "--keypair",
                                   "k",
                                   "--package",
                                   "https://x/det.deb",
                                   "--agent-image-id",
                                   "ami-123"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::string parse_error(const std::vector<std::string>& args) {
  auto cmd = parse_command_line(args);
  EXPECT_FALSE(cmd) << "parsed";
  return cmd ? "" : aws::error_text(cmd.error());
}

std::map<std::string, std::string>
as_map(const std::vector<stack_key_value>& kvs) {
  std::map<std::string, std::string> m;
  for (const auto& kv : kvs)
    m[kv.key] = kv.value;
  return m;
}

} // namespace

TEST(det_deploy_options, seed_002_defaults_become_template_parameters) {
  auto cmd = parse_command_line(up_args());
  ASSERT_TRUE(cmd) << aws::error_text(cmd.error());
  ASSERT_EQ(cmd->kind, command_kind::up);
  auto p = as_map(template_parameters(cmd->up));
  EXPECT_EQ(p.at("Keypair"), "k");
  EXPECT_EQ(p.at("MasterInstanceType"), "m5.large");
  EXPECT_EQ(p.at("CpuAgentInstanceType"), "t2.xlarge");
  EXPECT_EQ(p.at("GpuAgentInstanceType"), "p2.8xlarge");
  EXPECT_EQ(p.at("InboundCIDR"), "0.0.0.0/0");
  EXPECT_EQ(p.at("DBPassword"), "postgres");
  EXPECT_EQ(p.at("MaxCPUContainersPerAgent"), "100");
  EXPECT_EQ(p.at("MaxIdleAgentPeriod"), "10m");
  EXPECT_EQ(p.at("MaxDynamicAgents"), "5");
  EXPECT_EQ(p.at("SpotEnabled"), "false");
  EXPECT_EQ(p.at("SpotMaxPrice"), "");
  EXPECT_EQ(p.at("DeterminedPackage"), "https://x/det.deb");
  EXPECT_EQ(p.at("CpuAgentImageId"), "ami-123");
  EXPECT_EQ(p.at("GpuAgentImageId"), "ami-123");
  EXPECT_EQ(p.at("CloudWatchLogs"), "disabled");
  EXPECT_EQ(p.count("MasterImageId"), 0u);
  EXPECT_EQ(p.count("BastionImageId"), 0u);
  EXPECT_EQ(cmd->up.deployment_type, "simple");
  EXPECT_FALSE(cmd->up.dry_run);
  auto tags = as_map(stack_tags(cmd->up));
  EXPECT_EQ(tags.at("managed-by"), "det-deploy");
  EXPECT_EQ(tags.at("det-cluster-id"), "c1");
  EXPECT_EQ(tags.at("det-deployment-type"), "simple");
}

TEST(det_deploy_options, every_argument_maps_to_its_parameter) {
  auto cmd = parse_command_line(up_args({"--master-instance-type=m5.xlarge",
                                         "--cpu-agent-instance-type",
                                         "t2.large",
                                         "--gpu-agent-instance-type",
                                         "g4dn.metal",
                                         "--deployment-type",
                                         "secure",
                                         "--inbound-cidr",
                                         "10.0.0.0/8",
                                         "--db-password",
                                         "s3cret-pw",
                                         "--max-cpu-containers-per-agent",
                                         "0",
                                         "--max-idle-agent-period",
                                         "600",
                                         "--max-dynamic-agents",
                                         "7",
                                         "--spot",
                                         "--spot-max-price",
                                         "0.90",
                                         "--cpu-agent-image-id",
                                         "ami-cpu",
                                         "--master-image-id",
                                         "ami-m",
                                         "--bastion-image-id",
                                         "ami-b",
                                         "--cloudwatch-logs",
                                         "create",
                                         "--log-group",
                                         "/g",
                                         "--param",
                                         "DBInstanceClass=db.t3.large",
                                         "--param",
                                         "MaxDynamicAgents=9",
                                         "--region",
                                         "eu-west-1",
                                         "--endpoint-url",
                                         "http://127.0.0.1:1",
                                         "--timeout",
                                         "90s",
                                         "--poll-interval",
                                         "250ms",
                                         "--dry-run"}));
  ASSERT_TRUE(cmd) << aws::error_text(cmd.error());
  const auto& o = cmd->up;
  auto p = as_map(template_parameters(o));
  EXPECT_EQ(p.at("MasterInstanceType"), "m5.xlarge");
  EXPECT_EQ(p.at("CpuAgentInstanceType"), "t2.large");
  EXPECT_EQ(p.at("GpuAgentInstanceType"), "g4dn.metal");
  EXPECT_EQ(p.at("InboundCIDR"), "10.0.0.0/8");
  EXPECT_EQ(p.at("DBPassword"), "s3cret-pw");
  EXPECT_EQ(p.at("MaxCPUContainersPerAgent"), "0");
  EXPECT_EQ(p.at("MaxIdleAgentPeriod"), "10m"); // a bare number is seconds
  EXPECT_EQ(p.at("MaxDynamicAgents"), "9");     // --param wins
  EXPECT_EQ(p.at("SpotEnabled"), "true");
  EXPECT_EQ(p.at("SpotMaxPrice"), "0.90");
  // --agent-image-id came first; --cpu-agent-image-id overrides its pool.
  EXPECT_EQ(p.at("CpuAgentImageId"), "ami-cpu");
  EXPECT_EQ(p.at("GpuAgentImageId"), "ami-123");
  EXPECT_EQ(p.at("MasterImageId"), "ami-m");
  EXPECT_EQ(p.at("BastionImageId"), "ami-b");
  EXPECT_EQ(p.at("CloudWatchLogs"), "create");
  EXPECT_EQ(p.at("CloudWatchLogGroup"), "/g");
  EXPECT_EQ(p.at("DBInstanceClass"), "db.t3.large");
  EXPECT_EQ(o.deployment_type, "secure");
  EXPECT_EQ(o.conn.region, "eu-west-1");
  EXPECT_EQ(o.conn.endpoint_url, "http://127.0.0.1:1");
  EXPECT_EQ(o.wait.timeout, std::chrono::seconds(90));
  EXPECT_EQ(o.wait.poll_interval, std::chrono::milliseconds(250));
  EXPECT_TRUE(o.dry_run);
}

TEST(det_deploy_options, bad_input_names_the_argument_and_the_choices) {
  auto msg = parse_error(up_args({"--deployment-type", "huge"}));
  EXPECT_NE(msg.find("--deployment-type: unknown value 'huge'"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("simple, vpc, efs, fsx, secure"), std::string::npos)
      << msg;
  msg = parse_error(up_args({"--gpu-agent-instance-type", "m5.large"}));
  EXPECT_NE(msg.find("--gpu-agent-instance-type: unknown value 'm5.large'"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("g4dn.xlarge, g4dn.2xlarge"), std::string::npos) << msg;
  EXPECT_NE(msg.find("t2.2xlarge"), std::string::npos) << msg;
  msg = parse_error({"aws", "up", "--cluster-id", "c1", "--package", "s3://b/k",
                     "--agent-image-id", "ami-1"});
  EXPECT_EQ(msg, "missing required argument --keypair");
  msg = parse_error({"aws", "up", "--keypair", "k"});
  EXPECT_EQ(msg, "missing required argument --cluster-id");
  msg = parse_error({"aws", "up", "--cluster-id", "c", "--keypair", "k",
                     "--agent-image-id", "ami-1"});
  EXPECT_EQ(msg.rfind("missing required argument --package", 0), 0u) << msg;
  msg = parse_error({"aws", "down"});
  EXPECT_EQ(msg, "missing required argument --cluster-id");
  EXPECT_EQ(parse_error(up_args({"--spot-max-price", "1"})),
            "--spot-max-price needs --spot");
  EXPECT_EQ(parse_error(up_args({"--max-dynamic-agents", "0"})),
            "--max-dynamic-agents: must be at least 1, not 0");
  EXPECT_EQ(parse_error(up_args({"--bogus"})), "unknown argument --bogus");
  EXPECT_EQ(parse_error(up_args({"--keypair"})),
            "--keypair needs a value (NAME)");
  EXPECT_NE(parse_error(up_args({"--inbound-cidr", "10.0.0.300/8"}))
                .find("not an IPv4 CIDR"),
            std::string::npos);
  EXPECT_EQ(parse_error({"aws", "sideways"}),
            "unknown command 'aws sideways'; allowed: up, down, list");
  EXPECT_EQ(parse_error({"gcp", "up"}), "unknown provider 'gcp'; allowed: aws");
  EXPECT_NE(parse_error(up_args({"--cluster-id", "1bad_id"}))
                .find("must start with a letter"),
            std::string::npos);
  EXPECT_NE(parse_error(up_args({"--bastion-image-id", "ami-1"}))
                .find("only the secure"),
            std::string::npos);
}

TEST(det_deploy_options, a_bad_password_is_described_never_echoed) {
  for (std::string pw : {"short", "has space in it", "with@sign-long"}) {
    auto msg = parse_error(up_args({"--db-password", pw}));
    EXPECT_EQ(msg.rfind("--db-password: must", 0), 0u) << msg;
    EXPECT_EQ(msg.find(pw), std::string::npos) << msg;
  }
}

TEST(det_deploy_options, help_has_a_topic_per_subcommand) {
  for (std::string sub : {"up", "down", "list"}) {
    auto cmd = parse_command_line({"aws", sub, "--help"});
    ASSERT_TRUE(cmd);
    EXPECT_EQ(cmd->kind, command_kind::help);
    EXPECT_EQ(cmd->help_topic, sub);
    EXPECT_NE(usage(sub).find("usage: det-deploy aws " + sub),
              std::string::npos);
  }
  for (const char* flag :
       {"--cluster-id", "--keypair", "--master-instance-type",
        "--cpu-agent-instance-type", "--gpu-agent-instance-type",
        "--deployment-type", "--inbound-cidr", "--db-password", "--region",
        "--max-cpu-containers-per-agent", "--max-idle-agent-period",
        "--max-dynamic-agents", "--spot", "--spot-max-price", "--dry-run",
        "--endpoint-url", "--templates-dir", "--timeout"})
    EXPECT_NE(usage("up").find(std::string("\n  ") + flag), std::string::npos)
        << flag;
  auto top = parse_command_line({});
  ASSERT_TRUE(top);
  EXPECT_EQ(top->kind, command_kind::help);
  EXPECT_EQ(top->help_topic, "");
}

TEST(det_deploy_options, dry_run_json_redacts_the_password) {
  aws::stack_request req;
  req.stack_name = "c1";
  req.template_body = "Resources: {}\n";
  req.parameters = {{"Keypair", "k"}, {"DBPassword", "top-secret"}};
  req.capabilities = {"CAPABILITY_IAM"};
  req.tags = {{"managed-by", "det-deploy"}};
  auto text = dry_run_json(req);
  EXPECT_EQ(text.find("top-secret"), std::string::npos);
  auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["TemplateBody"], "Resources: {}\n");
  EXPECT_EQ(doc["Parameters"][1]["ParameterValue"], "****");
  EXPECT_EQ(doc["Parameters"][0]["ParameterValue"], "k");
  EXPECT_EQ(doc["Capabilities"][0], "CAPABILITY_IAM");
  EXPECT_EQ(doc["Tags"][0]["Key"], "managed-by");
}

// ---- CloudFormation Query parameters and responses ----

TEST(cloudformation_parse, stack_request_is_flattened_one_based) {
  aws::stack_request req;
  req.stack_name = "s";
  req.template_body = "body";
  req.parameters = {{"A", "1"}, {"B", ""}};
  req.capabilities = {"CAPABILITY_IAM"};
  req.tags = {{"k", "v"}};
  aws::param_list want = {{"StackName", "s"},
                          {"TemplateBody", "body"},
                          {"Parameters.member.1.ParameterKey", "A"},
                          {"Parameters.member.1.ParameterValue", "1"},
                          {"Parameters.member.2.ParameterKey", "B"},
                          {"Parameters.member.2.ParameterValue", ""},
                          {"Capabilities.member.1", "CAPABILITY_IAM"},
                          {"Tags.member.1.Key", "k"},
                          {"Tags.member.1.Value", "v"}};
  EXPECT_EQ(aws::stack_request_params(req), want);
  req.previous_value_parameters = {"DBPassword"};
  want.insert(want.begin() + 6,
              {{"Parameters.member.3.ParameterKey", "DBPassword"},
               {"Parameters.member.3.UsePreviousValue", "true"}});
  EXPECT_EQ(aws::stack_request_params(req), want);
  EXPECT_EQ(aws::describe_stacks_params("", "t"),
            (aws::param_list{{"NextToken", "t"}}));
}

TEST(cloudformation_parse, describe_stacks_reads_outputs_parameters_tags) {
  auto doc = aws::parse_xml(
      R"(<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/">
  <DescribeStacksResult>
    <Stacks>
      <member>
        <StackName>c1</StackName>
        <StackId>arn:aws:cloudformation:us-east-1:123:stack/c1/abc</StackId>
        <CreationTime>2024-05-01T10:11:12.345Z</CreationTime>
        <StackStatus>ROLLBACK_COMPLETE</StackStatus>
        <StackStatusReason>The following resource(s) failed to create: [Database].</StackStatusReason>
        <Parameters>
          <member><ParameterKey>DBPassword</ParameterKey><ParameterValue>****</ParameterValue></member>
        </Parameters>
        <Outputs>
          <member><OutputKey>MasterURL</OutputKey><OutputValue>http://1.2.3.4:8080</OutputValue><Description>d</Description></member>
          <member><OutputKey>Region</OutputKey><OutputValue>us-east-1</OutputValue></member>
        </Outputs>
        <Tags><member><Key>managed-by</Key><Value>det-deploy</Value></member></Tags>
      </member>
      <member><StackName>other</StackName><StackStatus>CREATE_COMPLETE</StackStatus></member>
    </Stacks>
    <NextToken>page2</NextToken>
  </DescribeStacksResult>
  <ResponseMetadata><RequestId>r</RequestId></ResponseMetadata>
</DescribeStacksResponse>)");
  ASSERT_TRUE(doc);
  auto page = aws::parse_describe_stacks(*doc);
  ASSERT_EQ(page.items.size(), 2u);
  EXPECT_EQ(page.next_token, "page2");
  const auto& s = page.items[0];
  EXPECT_EQ(s.stack_name, "c1");
  EXPECT_EQ(s.stack_id, "arn:aws:cloudformation:us-east-1:123:stack/c1/abc");
  EXPECT_EQ(s.status, "ROLLBACK_COMPLETE");
  EXPECT_NE(s.status_reason.find("[Database]"), std::string::npos);
  EXPECT_EQ(s.creation_time, "2024-05-01T10:11:12.345Z");
  EXPECT_EQ(s.output("MasterURL"), "http://1.2.3.4:8080");
  EXPECT_EQ(s.output("Region"), "us-east-1");
  EXPECT_EQ(s.output("Missing"), "");
  EXPECT_EQ(s.tag("managed-by"), "det-deploy");
  ASSERT_EQ(s.parameters.size(), 1u);
  EXPECT_EQ(s.parameters[0].key, "DBPassword");
  EXPECT_TRUE(page.items[1].outputs.empty());
}

TEST(cloudformation_parse, stack_events_and_stack_id) {
  auto doc =
      aws::parse_xml(R"(<DescribeStackEventsResponse><DescribeStackEventsResult>
  <StackEvents>
    <member><EventId>e2</EventId><StackId>sid</StackId><LogicalResourceId>Database</LogicalResourceId>
      <PhysicalResourceId></PhysicalResourceId><ResourceType>AWS::RDS::DBInstance</ResourceType>
      <Timestamp>2024-05-01T10:11:13Z</Timestamp><ResourceStatus>CREATE_FAILED</ResourceStatus>
      <ResourceStatusReason>DB quota &amp; limits</ResourceStatusReason></member>
    <member><EventId>e1</EventId><LogicalResourceId>c1</LogicalResourceId>
      <ResourceType>AWS::CloudFormation::Stack</ResourceType><ResourceStatus>CREATE_IN_PROGRESS</ResourceStatus></member>
  </StackEvents></DescribeStackEventsResult></DescribeStackEventsResponse>)");
  ASSERT_TRUE(doc);
  auto page = aws::parse_describe_stack_events(*doc);
  ASSERT_EQ(page.items.size(), 2u);
  EXPECT_TRUE(page.next_token.empty());
  EXPECT_EQ(page.items[0].event_id, "e2");
  EXPECT_EQ(page.items[0].logical_id, "Database");
  EXPECT_EQ(page.items[0].resource_type, "AWS::RDS::DBInstance");
  EXPECT_EQ(page.items[0].status, "CREATE_FAILED");
  EXPECT_EQ(page.items[0].reason, "DB quota & limits");
  EXPECT_EQ(format_event(page.items[0]),
            "2024-05-01 10:11:13  Database                       "
            "AWS::RDS::DBInstance                 CREATE_FAILED        "
            " DB quota & limits");
  auto created = aws::parse_xml(
      "<CreateStackResponse><CreateStackResult><StackId>arn:x</StackId>"
      "</CreateStackResult></CreateStackResponse>");
  ASSERT_TRUE(created);
  EXPECT_EQ(aws::parse_stack_id(*created), "arn:x");
}

TEST(cloudformation_parse, validation_errors_are_told_apart) {
  auto missing =
      aws::make_aws_error(aws::aws_error_kind::bad_request, "ValidationError",
                          "cloudformation", "Stack with id c1 does not exist");
  auto same =
      aws::make_aws_error(aws::aws_error_kind::bad_request, "ValidationError",
                          "cloudformation", "No updates are to be performed.");
  EXPECT_TRUE(aws::is_stack_missing(missing));
  EXPECT_FALSE(aws::is_no_updates(missing));
  EXPECT_TRUE(aws::is_no_updates(same));
  EXPECT_FALSE(aws::is_stack_missing(same));
  EXPECT_FALSE(aws::is_stack_missing(
      make_error(errc::not_found, "file does not exist")));
  EXPECT_TRUE(aws::is_terminal_stack_status("ROLLBACK_COMPLETE"));
  EXPECT_FALSE(
      aws::is_terminal_stack_status("UPDATE_COMPLETE_CLEANUP_IN_PROGRESS"));
}

namespace {

// Answers each request with the next scripted (status, body); records the
// request bodies.
class scripted_http final : public aws::http_client {
public:
  std::deque<std::pair<long, std::string>> answers;
  std::vector<std::string> bodies;

  caf::expected<aws::http_response>
  send(const aws::http_request& req) override {
    bodies.push_back(req.body);
    aws::http_response resp;
    resp.status = answers.front().first;
    resp.body = answers.front().second;
    answers.pop_front();
    return resp;
  }
};

std::string stacks_page(const std::string& members, const std::string& next) {
  return "<DescribeStacksResponse><DescribeStacksResult><Stacks>" + members
         + "</Stacks>"
         + (next.empty() ? "" : "<NextToken>" + next + "</NextToken>")
         + "</DescribeStacksResult></DescribeStacksResponse>";
}

std::shared_ptr<aws::cloudformation_client>
scripted_client(std::shared_ptr<scripted_http> http) {
  aws::cloudformation_client_config config;
  config.endpoint_url = "http://127.0.0.1:9/";
  config.retry.max_attempts = 1;
  aws::credentials creds;
  creds.access_key_id = "AKIDEXAMPLE";
  creds.secret_access_key = "secret";
  return aws::make_cloudformation_client(
      config, aws::make_static_credentials(creds), http,
      [](const std::string&) { return std::optional<std::string>{}; });
}

} // namespace

TEST(cloudformation_client,
     describe_all_stacks_follows_pages_and_skips_deleted) {
  auto http = std::make_shared<scripted_http>();
  http->answers = {
      {200, stacks_page("<member><StackName>a</StackName><StackStatus>"
                        "CREATE_COMPLETE</StackStatus></member>"
                        "<member><StackName>gone</StackName><StackStatus>"
                        "DELETE_COMPLETE</StackStatus></member>",
                        "tok/2=")},
      {200, stacks_page("<member><StackName>b</StackName><StackStatus>"
                        "UPDATE_COMPLETE</StackStatus></member>",
                        "")}};
  auto cf = scripted_client(http);
  auto stacks = cf->describe_all_stacks();
  ASSERT_TRUE(stacks) << aws::error_text(stacks.error());
  ASSERT_EQ(stacks->size(), 2u);
  EXPECT_EQ((*stacks)[0].stack_name, "a");
  EXPECT_EQ((*stacks)[1].stack_name, "b");
  ASSERT_EQ(http->bodies.size(), 2u);
  EXPECT_EQ(http->bodies[0], "Action=DescribeStacks&Version=2010-05-15");
  EXPECT_EQ(http->bodies[1],
            "Action=DescribeStacks&Version=2010-05-15&NextToken=tok%2F2%3D");
}

TEST(cloudformation_client,
     a_missing_stack_is_none_and_no_updates_is_recognised) {
  auto http = std::make_shared<scripted_http>();
  const std::string missing =
      "<ErrorResponse><Error><Type>Sender</Type><Code>ValidationError</Code>"
      "<Message>Stack with id c1 does not exist</Message></Error>"
      "</ErrorResponse>";
  const std::string same =
      "<ErrorResponse><Error><Code>ValidationError</Code>"
      "<Message>No updates are to be performed.</Message></Error>"
      "</ErrorResponse>";
  http->answers = {{400, missing}, {400, same}};
  auto cf = scripted_client(http);
  auto described = cf->describe_stack("c1");
  ASSERT_TRUE(described) << aws::error_text(described.error());
  EXPECT_FALSE(*described);
  aws::stack_request req;
  req.stack_name = "c1";
  req.template_body = "x: y";
  auto updated = cf->update_stack(req);
  ASSERT_FALSE(updated);
  EXPECT_TRUE(aws::is_no_updates(updated.error()));
  EXPECT_EQ(http->bodies[1].rfind("Action=UpdateStack&Version=2010-05-15&"
                                  "StackName=c1&TemplateBody=x%3A%20y",
                                  0),
            0u);
}

// ---- the stack waiter against a scripted stack ----

namespace {

// Each describe_stack() pops the next status (the last one repeats) and
// makes the next batch of events visible; events are served newest first,
// two per page.
class scripted_stack final : public aws::cloudformation_client {
public:
  std::deque<std::string> statuses;
  std::deque<std::vector<aws::stack_event>> batches;
  std::vector<aws::stack_event> visible; // oldest first
  int describes = 0;
  bool gone_after_last = false;

  caf::expected<std::string> create_stack(const aws::stack_request&) override {
    return std::string{"sid"};
  }
  caf::expected<std::string> update_stack(const aws::stack_request&) override {
    return std::string{"sid"};
  }
  caf::expected<std::optional<aws::stack>>
  describe_stack(const std::string&) override {
    ++describes;
    if (!batches.empty()) {
      for (auto& e : batches.front())
        visible.push_back(e);
      batches.pop_front();
    }
    aws::stack s;
    s.stack_id = "sid";
    s.stack_name = "c1";
    s.status = statuses.front();
    if (statuses.size() > 1)
      statuses.pop_front();
    else if (gone_after_last)
      return std::optional<aws::stack>{};
    return std::optional<aws::stack>{s};
  }
  caf::expected<std::vector<aws::stack>> describe_all_stacks() override {
    return std::vector<aws::stack>{};
  }
  caf::expected<std::pair<std::vector<aws::stack_event>, std::string>>
  describe_stack_events(const std::string&, const std::string& token) override {
    size_t start = token.empty() ? 0 : std::stoul(token);
    std::vector<aws::stack_event> page;
    size_t n = visible.size();
    for (size_t i = start; i < std::min(n, start + 2); ++i)
      page.push_back(visible[n - 1 - i]);
    std::string next = start + 2 < n ? std::to_string(start + 2) : "";
    return std::make_pair(page, next);
  }
  caf::error delete_stack(const std::string&) override { return caf::none; }
};

aws::stack_event ev(const std::string& id, const std::string& logical,
                    const std::string& status, const std::string& reason = "") {
  aws::stack_event e;
  e.event_id = id;
  e.logical_id = logical;
  e.resource_type = "AWS::X::Y";
  e.status = status;
  e.reason = reason;
  e.timestamp = "2024-05-01T00:00:00Z";
  return e;
}

struct fake_time {
  std::chrono::steady_clock::time_point t{};
  std::vector<std::chrono::milliseconds> sleeps;
  waiter_clock clock() {
    return {[this] { return t; },
            [this](std::chrono::milliseconds d) {
              sleeps.push_back(d);
              t += d;
            }};
  }
};

} // namespace

TEST(stack_waiter,
     prints_each_new_event_once_in_order_and_reports_the_first_real_failure) {
  scripted_stack cf;
  cf.statuses = {"CREATE_IN_PROGRESS", "CREATE_IN_PROGRESS",
                 "ROLLBACK_IN_PROGRESS", "ROLLBACK_COMPLETE"};
  cf.batches = {
      {ev("1", "c1", "CREATE_IN_PROGRESS")},
      {ev("2", "Bucket", "CREATE_IN_PROGRESS"),
       ev("3", "Database", "CREATE_IN_PROGRESS"),
       ev("4", "Bucket", "CREATE_COMPLETE")},
      {ev("5", "Role", "CREATE_FAILED", "Resource creation cancelled"),
       ev("6", "Database", "CREATE_FAILED", "quota exceeded"),
       ev("7", "c1", "ROLLBACK_IN_PROGRESS")},
      {ev("8", "c1", "ROLLBACK_COMPLETE")}};
  event_follower follower(cf, "sid");
  fake_time time;
  wait_options opts;
  opts.poll_interval = std::chrono::seconds(5);
  std::vector<std::string> printed;
  auto result = wait_for_stack(
      cf, "sid", stack_operation::create, follower, opts, time.clock(),
      [&](const aws::stack_event& e) { printed.push_back(e.event_id); });
  ASSERT_TRUE(result);
  EXPECT_FALSE(result->ok);
  EXPECT_FALSE(result->timed_out);
  EXPECT_EQ(result->final.status, "ROLLBACK_COMPLETE");
  EXPECT_EQ(printed,
            (std::vector<std::string>{"1", "2", "3", "4", "5", "6", "7", "8"}));
  ASSERT_TRUE(result->first_failure);
  EXPECT_EQ(result->first_failure->logical_id, "Database");
  EXPECT_EQ(result->first_failure->reason, "quota exceeded");
  EXPECT_EQ(time.sleeps.size(), 3u);
  EXPECT_EQ(failure_message(*result, "sid", opts.timeout),
            "stack c1 ended ROLLBACK_COMPLETE; first failure: Database "
            "(AWS::X::Y) CREATE_FAILED: quota exceeded");
}

TEST(stack_waiter, an_update_shows_only_its_own_events_and_succeeds) {
  scripted_stack cf;
  cf.statuses = {"CREATE_COMPLETE", "UPDATE_IN_PROGRESS", "UPDATE_COMPLETE"};
  cf.visible = {
      ev("1", "c1", "CREATE_IN_PROGRESS"), ev("2", "A", "CREATE_COMPLETE"),
      ev("3", "B", "CREATE_COMPLETE"), ev("4", "c1", "CREATE_COMPLETE"),
      ev("5", "c1", "CREATE_COMPLETE")};
  event_follower follower(cf, "sid");
  ASSERT_FALSE(follower.skip_existing());
  cf.statuses.pop_front();
  cf.batches = {{ev("6", "c1", "UPDATE_IN_PROGRESS")},
                {ev("7", "c1", "UPDATE_COMPLETE")}};
  fake_time time;
  std::vector<std::string> printed;
  auto result = wait_for_stack(
      cf, "sid", stack_operation::update, follower, wait_options{},
      time.clock(),
      [&](const aws::stack_event& e) { printed.push_back(e.event_id); });
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->ok);
  EXPECT_EQ(printed, (std::vector<std::string>{"6", "7"}));
  EXPECT_FALSE(result->first_failure);
  EXPECT_FALSE(failure_message(*result, "sid", std::chrono::seconds(1)));
}

TEST(stack_waiter, gives_up_at_the_timeout_without_sleeping_past_it) {
  scripted_stack cf;
  cf.statuses = {"CREATE_IN_PROGRESS"};
  event_follower follower(cf, "sid");
  fake_time time;
  wait_options opts;
  opts.timeout = std::chrono::seconds(12);
  opts.poll_interval = std::chrono::seconds(5);
  auto result = wait_for_stack(cf, "sid", stack_operation::create, follower,
                               opts, time.clock(), [](const auto&) {});
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->timed_out);
  EXPECT_FALSE(result->ok);
  EXPECT_EQ(time.sleeps, (std::vector<std::chrono::milliseconds>{
                             std::chrono::seconds(5), std::chrono::seconds(5),
                             std::chrono::seconds(2)}));
  EXPECT_EQ(cf.describes, 4);
  EXPECT_EQ(
      failure_message(*result, "sid", opts.timeout),
      "gave up after 12s waiting for stack c1 (still CREATE_IN_PROGRESS); "
      "CloudFormation carries on: see `det-deploy aws list`, or raise "
      "--timeout");
}

TEST(stack_waiter, a_deleted_stack_that_cannot_be_described_is_deleted) {
  scripted_stack cf;
  cf.statuses = {"DELETE_IN_PROGRESS", "DELETE_IN_PROGRESS"};
  cf.gone_after_last = true;
  event_follower follower(cf, "sid");
  fake_time time;
  auto result =
      wait_for_stack(cf, "sid", stack_operation::remove, follower,
                     wait_options{}, time.clock(), [](const auto&) {});
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->ok);
  EXPECT_EQ(result->final.status, "DELETE_COMPLETE");
}

// ---- templates ----

TEST(det_deploy_templates,
     the_source_tree_templates_are_found_fit_and_declare_what_is_sent) {
  auto dirs = template_dirs("", "/nonexistent/bin/det-deploy");
  ASSERT_GE(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], "/nonexistent/share/determined/deploy/aws");
  auto cmd = parse_command_line(
      up_args({"--deployment-type", "secure", "--bastion-image-id", "ami-b"}));
  ASSERT_TRUE(cmd);
  for (const auto& type : deployment_types()) {
    auto t = load_template(type, dirs);
    ASSERT_TRUE(t) << aws::error_text(t.error());
    EXPECT_FALSE(check_template_size(*t)) << type;
    auto params = template_parameters(cmd->up);
    if (type != "secure")
      params.pop_back(); // BastionImageId
    EXPECT_FALSE(check_parameters(*t, params)) << type;
  }
  auto t = load_template("simple", dirs);
  ASSERT_TRUE(t);
  auto err = check_parameters(*t, {{"BastionImageId", "ami-b"}});
  ASSERT_TRUE(err);
  EXPECT_NE(aws::error_text(err).find("has no parameter BastionImageId"),
            std::string::npos);
}

TEST(det_deploy_templates, a_missing_or_oversized_template_is_named) {
  auto t = load_template("simple", {"/nope/a", "/nope/b"});
  ASSERT_FALSE(t);
  EXPECT_EQ(
      aws::error_text(t.error()),
      "no template for deployment type simple: tried /nope/a/simple.yaml, "
      "/nope/b/simple.yaml (see --templates-dir)");
  template_file big{"/x/big.yaml", std::string(template_body_limit + 1, '#')};
  auto err = check_template_size(big);
  ASSERT_TRUE(err);
  EXPECT_NE(
      aws::error_text(err).find(
          "/x/big.yaml is 51201 bytes, over CloudFormation's limit of 51200"),
      std::string::npos);
  big.body.pop_back();
  EXPECT_FALSE(check_template_size(big));
}
