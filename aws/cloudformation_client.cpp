#include "aws/cloudformation_client.hpp"

#include "aws/aws_error.hpp"
#include "aws/cloudformation_parse.hpp"
#include "messages/errc.hpp"

namespace det::aws {

namespace {

class query_cloudformation_client final : public cloudformation_client {
public:
  query_cloudformation_client(std::shared_ptr<query_api> api, int max_pages)
      : api_(std::move(api)), max_pages_(max_pages) {}

  caf::expected<std::string> create_stack(const stack_request& req) override {
    return stack_call("CreateStack", req);
  }

  caf::expected<std::string> update_stack(const stack_request& req) override {
    return stack_call("UpdateStack", req);
  }

  caf::expected<std::optional<stack>>
  describe_stack(const std::string& name) override {
    auto doc = api_->call("DescribeStacks", describe_stacks_params(name, ""));
    if (!doc) {
      if (is_stack_missing(doc.error()))
        return std::optional<stack>{};
      return doc.error();
    }
    auto page = parse_describe_stacks(*doc);
    if (page.items.empty())
      return std::optional<stack>{};
    return std::optional<stack>{std::move(page.items.front())};
  }

  caf::expected<std::vector<stack>> describe_all_stacks() override {
    std::vector<stack> out;
    std::string token;
    for (int page = 0; page < max_pages_; ++page) {
      auto doc =
          api_->call("DescribeStacks", describe_stacks_params("", token));
      if (!doc)
        return doc.error();
      auto parsed = parse_describe_stacks(*doc);
      for (auto& s : parsed.items)
        if (s.status != "DELETE_COMPLETE")
          out.push_back(std::move(s));
      if (parsed.next_token.empty())
        return out;
      if (parsed.next_token == token)
        return make_aws_error(aws_error_kind::server_error, "RepeatedNextToken",
                              "cloudformation DescribeStacks",
                              "the same NextToken came back twice");
      token = std::move(parsed.next_token);
    }
    return make_error(errc::remote_error,
                      "cloudformation DescribeStacks: more than "
                          + std::to_string(max_pages_) + " pages");
  }

  caf::expected<std::pair<std::vector<stack_event>, std::string>>
  describe_stack_events(const std::string& stack_name,
                        const std::string& next_token) override {
    auto doc = api_->call("DescribeStackEvents",
                          describe_stack_events_params(stack_name, next_token));
    if (!doc)
      return doc.error();
    auto page = parse_describe_stack_events(*doc);
    return std::make_pair(std::move(page.items), std::move(page.next_token));
  }

  caf::error delete_stack(const std::string& name) override {
    auto doc = api_->call("DeleteStack", {{"StackName", name}});
    if (!doc)
      return doc.error();
    return caf::none;
  }

private:
  caf::expected<std::string> stack_call(const char* action,
                                        const stack_request& req) {
    auto doc = api_->call(action, stack_request_params(req));
    if (!doc)
      return doc.error();
    auto id = parse_stack_id(*doc);
    if (id.empty())
      return make_aws_error(aws_error_kind::server_error, "MalformedResponse",
                            std::string{"cloudformation "} + action,
                            "the response has no StackId");
    return id;
  }

  std::shared_ptr<query_api> api_;
  int max_pages_;
};

bool message_has(const caf::error& err, std::string_view what) {
  return aws_error_of(err).kind != aws_error_kind::none
         && error_text(err).find(what) != std::string::npos;
}

} // namespace

bool is_stack_missing(const caf::error& err) {
  return message_has(err, "does not exist");
}

bool is_no_updates(const caf::error& err) {
  return message_has(err, "No updates are to be performed");
}

std::shared_ptr<cloudformation_client>
make_cloudformation_client(const cloudformation_client_config& config,
                           std::shared_ptr<credential_provider> creds,
                           std::shared_ptr<net::http_client> http,
                           const env_lookup& env) {
  query_api_config qc;
  qc.service = "cloudformation";
  qc.version = "2010-05-15";
  qc.region = config.region;
  qc.endpoint_url = resolve_endpoint("cloudformation", config.region,
                                     config.endpoint_url, env);
  qc.timeout = config.timeout;
  qc.retry = config.retry;
  auto api = std::make_shared<query_api>(std::move(qc), std::move(http),
                                         std::move(creds));
  return std::make_shared<query_cloudformation_client>(std::move(api),
                                                       config.max_pages);
}

std::shared_ptr<cloudformation_client>
make_curl_cloudformation_client(const cloudformation_client_config& config,
                                std::shared_ptr<credential_provider> creds,
                                const env_lookup& env) {
  return make_cloudformation_client(config, std::move(creds),
                                    net::make_curl_http_client(), env);
}

} // namespace det::aws
