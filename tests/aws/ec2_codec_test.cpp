// EC2 Query parameters of each call, and parsing of AWS- and moto-shaped
// responses.

#include "aws/ec2_params.hpp"
#include "aws/ec2_parse.hpp"
#include "aws/query_api.hpp"
#include "aws/ssm_client.hpp"
#include "messages/errc.hpp"

#include <gtest/gtest.h>

#include <map>

using namespace det::aws;

namespace {

std::map<std::string, std::string> as_map(const param_list& p) {
  std::map<std::string, std::string> m;
  for (const auto& [k, v] : p)
    m[k] = v;
  return m;
}

} // namespace

TEST(ec2_params, run_instances_carries_every_launch_option) {
  run_instances_request req;
  req.image_id = "ami-1";
  req.instance_type = "p3.8xlarge";
  req.min_count = 2;
  req.max_count = 3;
  req.client_token = "pool-a/launch-7";
  req.instance_tags = {{"det", "agent"}, {"Name", "det-agent"}};
  req.volume_tags = {{"det", "vol"}};
  req.iam_instance_profile_arn = "arn:aws:iam::1:instance-profile/p";
  req.network_interface =
      network_interface_spec{true, {"sg-1", "sg-2"}, "subnet-9"};
  req.key_name = "ssh-key";
  req.root_volume_size_gb = 100;
  req.user_data = "#!/bin/bash\n";
  req.spot = true;
  req.spot_max_price = "1.25";
  auto p = run_instances_params(req);
  ASSERT_TRUE(p) << det::render(p.error());
  auto m = as_map(*p);
  const std::map<std::string, std::string> expected{
      {"ImageId", "ami-1"},
      {"InstanceType", "p3.8xlarge"},
      {"MinCount", "2"},
      {"MaxCount", "3"},
      {"ClientToken", "pool-a/launch-7"},
      {"KeyName", "ssh-key"},
      {"TagSpecification.1.ResourceType", "instance"},
      {"TagSpecification.1.Tag.1.Key", "det"},
      {"TagSpecification.1.Tag.1.Value", "agent"},
      {"TagSpecification.1.Tag.2.Key", "Name"},
      {"TagSpecification.1.Tag.2.Value", "det-agent"},
      {"TagSpecification.2.ResourceType", "volume"},
      {"TagSpecification.2.Tag.1.Key", "det"},
      {"TagSpecification.2.Tag.1.Value", "vol"},
      {"IamInstanceProfile.Arn", "arn:aws:iam::1:instance-profile/p"},
      {"NetworkInterface.1.DeviceIndex", "0"},
      {"NetworkInterface.1.AssociatePublicIpAddress", "true"},
      {"NetworkInterface.1.DeleteOnTermination", "true"},
      {"NetworkInterface.1.SubnetId", "subnet-9"},
      {"NetworkInterface.1.SecurityGroupId.1", "sg-1"},
      {"NetworkInterface.1.SecurityGroupId.2", "sg-2"},
      {"BlockDeviceMapping.1.DeviceName", "/dev/sda1"},
      {"BlockDeviceMapping.1.Ebs.VolumeSize", "100"},
      {"BlockDeviceMapping.1.Ebs.VolumeType", "gp3"},
      {"BlockDeviceMapping.1.Ebs.DeleteOnTermination", "true"},
      {"UserData", "IyEvYmluL2Jhc2gK"},
      {"MetadataOptions.HttpTokens", "required"},
      {"MetadataOptions.HttpEndpoint", "enabled"},
      {"InstanceMarketOptions.MarketType", "spot"},
      {"InstanceMarketOptions.SpotOptions.SpotInstanceType", "one-time"},
      {"InstanceMarketOptions.SpotOptions.InstanceInterruptionBehavior",
       "terminate"},
      {"InstanceMarketOptions.SpotOptions.MaxPrice", "1.25"},
  };
  EXPECT_EQ(m, expected);
}

TEST(ec2_params, run_instances_without_interface_uses_top_level_network) {
  run_instances_request req;
  req.image_id = "ami-1";
  req.instance_type = "t3.micro";
  req.security_group_ids = {"sg-1"};
  req.subnet_id = "subnet-1";
  req.require_imdsv2 = false;
  auto m = as_map(*run_instances_params(req));
  EXPECT_EQ(m["SecurityGroupId.1"], "sg-1");
  EXPECT_EQ(m["SubnetId"], "subnet-1");
  EXPECT_EQ(m.count("MetadataOptions.HttpTokens"), 0u);
  EXPECT_EQ(m.count("NetworkInterface.1.DeviceIndex"), 0u);
  EXPECT_EQ(m.count("ClientToken"), 0u);
  EXPECT_EQ(m.count("InstanceInitiatedShutdownBehavior"), 0u);
  req.terminate_on_shutdown = true;
  EXPECT_EQ(
      as_map(*run_instances_params(req))["InstanceInitiatedShutdownBehavior"],
      "terminate");
}

TEST(ec2_params, bad_launch_requests_are_rejected_naming_the_field) {
  run_instances_request req;
  req.instance_type = "t3.micro";
  auto p = run_instances_params(req);
  ASSERT_FALSE(p);
  EXPECT_EQ(det::code_of(p.error()), det::errc::invalid_argument);
  EXPECT_NE(det::render(p.error()).find("image_id"), std::string::npos);
  req.image_id = "ami-1";
  req.client_token = std::string(65, 'x');
  EXPECT_NE(det::render(run_instances_params(req).error()).find("client_token"),
            std::string::npos);
  req.client_token = "";
  req.instance_tags = {{"aws:reserved", "x"}};
  EXPECT_FALSE(run_instances_params(req));
  req.instance_tags = {};
  req.min_count = 3;
  req.max_count = 2;
  EXPECT_FALSE(run_instances_params(req));
}

TEST(ec2_params, describe_pages_and_filters_are_flattened) {
  describe_instances_request req;
  req.filters = {tag_filter("det", "pool"),
                 state_filter({"pending", "running"})};
  req.page_size = 50;
  auto m = as_map(describe_instances_params(req, "tok"));
  EXPECT_EQ(m["Filter.1.Name"], "tag:det");
  EXPECT_EQ(m["Filter.1.Value.1"], "pool");
  EXPECT_EQ(m["Filter.2.Name"], "instance-state-name");
  EXPECT_EQ(m["Filter.2.Value.2"], "running");
  EXPECT_EQ(m["MaxResults"], "50");
  EXPECT_EQ(m["NextToken"], "tok");
  req.instance_ids = {"i-1"};
  m = as_map(describe_instances_params(req, ""));
  EXPECT_EQ(m["InstanceId.1"], "i-1");
  EXPECT_EQ(m.count("MaxResults"), 0u) << "EC2 rejects ids with MaxResults";
  EXPECT_EQ(m.count("NextToken"), 0u);
}

TEST(ec2_params, spot_requests_tag_the_request_and_carry_a_launch_spec) {
  spot_request_spec spec;
  spec.instance_count = 2;
  spec.spot_price = "0.9";
  spec.image_id = "ami-1";
  spec.instance_type = "p3.2xlarge";
  spec.request_tags = {{"det", "pool"}};
  spec.iam_instance_profile_arn = "arn:p";
  spec.security_group_ids = {"sg-1"};
  auto m = as_map(*request_spot_instances_params(spec));
  EXPECT_EQ(m["InstanceCount"], "2");
  EXPECT_EQ(m["SpotPrice"], "0.9");
  EXPECT_EQ(m["Type"], "one-time");
  EXPECT_EQ(m["TagSpecification.1.ResourceType"], "spot-instances-request");
  EXPECT_EQ(m["LaunchSpecification.ImageId"], "ami-1");
  EXPECT_EQ(m["LaunchSpecification.IamInstanceProfile.Arn"], "arn:p");
  EXPECT_EQ(m["LaunchSpecification.SecurityGroupId.1"], "sg-1");
  auto tags = as_map(*create_tags_params({"i-1", "i-2"}, {{"k", "v"}}));
  EXPECT_EQ(tags["ResourceId.2"], "i-2");
  EXPECT_EQ(tags["Tag.1.Key"], "k");
  EXPECT_EQ(as_map(cancel_spot_instance_requests_params(
                {"sir-1"}))["SpotInstanceRequestId.1"],
            "sir-1");
}

TEST(ec2_parse, describe_response_in_aws_order_yields_every_instance) {
  auto doc = parse_xml(R"(<?xml version="1.0" encoding="UTF-8"?>
<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">
  <requestId>8f7724cf-496f-496e-8fe3-example</requestId>
  <reservationSet>
    <item>
      <reservationId>r-1</reservationId>
      <instancesSet>
        <item>
          <instanceId>i-1</instanceId><imageId>ami-1</imageId>
          <instanceState><code>272</code><name>running</name></instanceState>
          <privateDnsName>ip-10-0-0-1.ec2.internal</privateDnsName>
          <dnsName>ec2-54-1-2-3.compute-1.amazonaws.com</dnsName>
          <instanceType>p3.8xlarge</instanceType>
          <launchTime>2024-06-01T10:00:00.000Z</launchTime>
          <placement><availabilityZone>us-east-1a</availabilityZone></placement>
          <privateIpAddress>10.0.0.1</privateIpAddress>
          <ipAddress>54.1.2.3</ipAddress>
          <clientToken>tok-1</clientToken>
          <instanceLifecycle>spot</instanceLifecycle>
          <spotInstanceRequestId>sir-1</spotInstanceRequestId>
          <stateReason><code>pending</code></stateReason>
          <tagSet><item><key>det</key><value>agent</value></item></tagSet>
        </item>
        <item><instanceId>i-2</instanceId>
          <instanceState><code>48</code><name>terminated</name></instanceState>
        </item>
      </instancesSet>
    </item>
    <item><reservationId>r-2</reservationId><instancesSet><item>
      <instanceId>i-3</instanceId></item></instancesSet></item>
  </reservationSet>
  <nextToken>page-2</nextToken>
</DescribeInstancesResponse>)");
  ASSERT_TRUE(doc) << det::render(doc.error());
  auto page = parse_describe_instances(*doc);
  ASSERT_EQ(page.items.size(), 3u);
  EXPECT_EQ(page.next_token, "page-2");
  const auto& i = page.items[0];
  EXPECT_EQ(i.instance_id, "i-1");
  EXPECT_EQ(i.state, "running");
  EXPECT_EQ(i.state_code, 16) << "only the low byte is the state";
  EXPECT_EQ(i.private_ip, "10.0.0.1");
  EXPECT_EQ(i.public_ip, "54.1.2.3");
  EXPECT_EQ(i.public_dns, "ec2-54-1-2-3.compute-1.amazonaws.com");
  EXPECT_EQ(i.availability_zone, "us-east-1a");
  EXPECT_EQ(i.client_token, "tok-1");
  EXPECT_EQ(i.lifecycle, "spot");
  EXPECT_EQ(i.spot_instance_request_id, "sir-1");
  EXPECT_EQ(i.tag("det"), "agent");
  EXPECT_EQ(i.tag("other"), std::nullopt);
  EXPECT_EQ(page.items[1].state_code, 48);
  EXPECT_EQ(page.items[2].state_code, -1);
}

TEST(ec2_parse, terminate_and_cancel_responses_are_read_by_name) {
  auto term = parse_xml(
      "<TerminateInstancesResponse><instancesSet><item><instanceId>i-1"
      "</instanceId><currentState><code>32</code><name>shutting-down</name>"
      "</currentState><previousState><code>16</code><name>running</name>"
      "</previousState></item></instancesSet><requestId>x</requestId>"
      "</TerminateInstancesResponse>");
  ASSERT_TRUE(term);
  auto changes = parse_terminate_instances(*term);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].previous_state, "running");
  EXPECT_EQ(changes[0].current_state, "shutting-down");
  auto cancel = parse_xml(
      "<CancelSpotInstanceRequestsResponse><spotInstanceRequestSet><item>"
      "<spotInstanceRequestId>sir-1</spotInstanceRequestId><state>cancelled"
      "</state></item></spotInstanceRequestSet>"
      "</CancelSpotInstanceRequestsResponse>");
  ASSERT_TRUE(cancel);
  auto res = parse_cancel_spot_instance_requests(*cancel);
  ASSERT_EQ(res.size(), 1u);
  EXPECT_EQ(res[0].request_id, "sir-1");
  EXPECT_EQ(res[0].state, "cancelled");
}

TEST(ssm_parse, get_parameters_reads_values_and_invalid_names) {
  auto got = parse_get_parameters(
      R"({"Parameters":[{"Name":"/a","Type":"String","Value":"ami-1",)"
      R"("Version":3}],"InvalidParameters":["/b"]})");
  ASSERT_TRUE(got) << det::render(got.error());
  EXPECT_EQ(got->values.at("/a"), "ami-1");
  EXPECT_EQ(got->missing, std::vector<std::string>{"/b"});
  for (auto bad : {"<html>", R"({"Parameters":{}})",
                   R"({"Parameters":[{"Name":"/a"}]})"}) {
    auto err = parse_get_parameters(bad);
    ASSERT_FALSE(err) << bad;
    EXPECT_NE(det::render(err.error()).find("MalformedResponse"),
              std::string::npos);
  }
}

TEST(ec2_parse, security_groups_are_read_with_their_vpc_and_next_token) {
  auto doc = parse_xml(
      "<DescribeSecurityGroupsResponse><securityGroupInfo><item>"
      "<ownerId>1</ownerId><groupId>sg-0a1b2c3d</groupId><groupName>web"
      "</groupName><vpcId>vpc-9</vpcId><ipPermissions><item><groups><item>"
      "<groupId>sg-other</groupId></item></groups></item></ipPermissions>"
      "</item></securityGroupInfo><nextToken>t2</nextToken>"
      "</DescribeSecurityGroupsResponse>");
  ASSERT_TRUE(doc);
  auto page = parse_describe_security_groups(*doc);
  ASSERT_EQ(page.items.size(), 1u);
  EXPECT_EQ(page.items[0].group_id, "sg-0a1b2c3d");
  EXPECT_EQ(page.items[0].group_name, "web");
  EXPECT_EQ(page.items[0].vpc_id, "vpc-9");
  EXPECT_EQ(page.next_token, "t2");
  auto p = describe_security_groups_params({{"group-name", {"web"}}}, "t2");
  EXPECT_EQ(p, (param_list{{"Filter.1.Name", "group-name"},
                           {"Filter.1.Value.1", "web"},
                           {"NextToken", "t2"}}));
}

TEST(ec2_parse, instance_ids_are_read_from_not_found_messages) {
  EXPECT_EQ(instance_ids_in_message(
                "The instance IDs 'i-0123456789abcdef0, i-1234' do not exist"),
            (std::vector<std::string>{"i-0123456789abcdef0", "i-1234"}));
  EXPECT_EQ(instance_ids_in_message("The instance ID 'i-9' does not exist"),
            (std::vector<std::string>{"i-9"}));
  EXPECT_TRUE(
      instance_ids_in_message("ec2 at http://multi-az/ failed").empty());
}

TEST(endpoint, configured_url_wins_then_service_env_then_global_env) {
  std::map<std::string, std::string> env_vars;
  env_lookup env = [&](const std::string& k) -> std::optional<std::string> {
    auto it = env_vars.find(k);
    return it == env_vars.end() ? std::nullopt
                                : std::optional<std::string>(it->second);
  };
  EXPECT_EQ(resolve_endpoint("ec2", "eu-west-1", "", env),
            "https://ec2.eu-west-1.amazonaws.com/");
  env_vars["AWS_ENDPOINT_URL"] = "http://127.0.0.1:5000";
  EXPECT_EQ(resolve_endpoint("ec2", "eu-west-1", "", env),
            "http://127.0.0.1:5000");
  env_vars["AWS_ENDPOINT_URL_EC2"] = "http://127.0.0.1:6000";
  EXPECT_EQ(resolve_endpoint("ec2", "eu-west-1", "", env),
            "http://127.0.0.1:6000");
  EXPECT_EQ(resolve_endpoint("ec2", "eu-west-1", "http://x:1/", env),
            "http://x:1/");
}

TEST(endpoint, urls_are_split_for_signing) {
  auto u = det::net::parse_url("HTTP://LocalHost:5000/base?x=1");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->host, "localhost");
  EXPECT_EQ(u->port, 5000);
  EXPECT_EQ(u->path, "/base");
  EXPECT_EQ(u->host_header(), "localhost:5000");
  EXPECT_EQ(det::net::parse_url("https://ec2.us-east-1.amazonaws.com:443")
                ->host_header(),
            "ec2.us-east-1.amazonaws.com");
  EXPECT_EQ(det::net::parse_url("http://[::1]:8080/")->host_header(),
            "[::1]:8080");
  EXPECT_FALSE(det::net::parse_url("ftp://x/"));
  EXPECT_FALSE(det::net::parse_url("127.0.0.1:5000"));
  EXPECT_FALSE(det::net::parse_url("http://h:99999/"));
}
