// Our CloudFormation Query client: the parameters it sends, the responses
// it reads, paging, and the errors it tells apart (over a scripted
// http_client; the pytest suite runs it against moto).

#include "aws/aws_error.hpp"
#include "aws/cloudformation_client.hpp"
#include "aws/cloudformation_parse.hpp"
#include "aws/credential_provider.hpp"
#include "deployer/stack_waiter.hpp"
#include "messages/errc.hpp"
#include "net/http_client.hpp"

#include <gtest/gtest.h>

#include <deque>

using namespace det;
using namespace det::deploy;
using aws::stack_key_value;

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
class scripted_http final : public net::http_client {
public:
  std::deque<std::pair<long, std::string>> answers;
  std::vector<std::string> bodies;

  caf::expected<net::http_response>
  send(const net::http_request& req) override {
    bodies.push_back(req.body);
    net::http_response resp;
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
