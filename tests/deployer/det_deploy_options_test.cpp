// det-deploy's command line and its mapping to template parameters, the
// --dry-run document, and the template lookup and checks.

#include "aws/aws_error.hpp"
#include "deployer/commands.hpp"
#include "deployer/options.hpp"
#include "deployer/templates.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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
