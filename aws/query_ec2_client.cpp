#include "aws/query_ec2_client.hpp"

#include "aws/aws_error.hpp"
#include "aws/ec2_params.hpp"
#include "aws/ec2_parse.hpp"
#include "messages/errc.hpp"

#include <algorithm>
#include <set>

namespace det::aws {

namespace {

// Follows nextToken until the last page, at most `max_pages` pages.
template <class T, class Params, class Parse>
caf::expected<std::vector<T>>
all_pages(query_api& api, const std::string& action, int max_pages,
          Params params, Parse parse) {
  std::vector<T> out;
  std::string token;
  for (int page = 0; page < max_pages; ++page) {
    auto doc = api.call(action, params(token));
    if (!doc)
      return doc.error();
    auto parsed = parse(*doc);
    std::move(parsed.items.begin(), parsed.items.end(),
              std::back_inserter(out));
    if (parsed.next_token.empty())
      return out;
    if (parsed.next_token == token)
      return make_aws_error(aws_error_kind::server_error, "RepeatedNextToken",
                            "ec2 " + action,
                            "the same nextToken came back twice");
    token = std::move(parsed.next_token);
  }
  return make_error(errc::remote_error, "ec2 " + action + ": more than "
                                            + std::to_string(max_pages)
                                            + " pages");
}

bool invalid_instance_id(const std::string& code) {
  return code.rfind("InvalidInstanceID", 0) == 0;
}

} // namespace

query_ec2_client::query_ec2_client(std::shared_ptr<query_api> api,
                                   ec2_client_config config)
    : api_(std::move(api)), config_(std::move(config)) {
  if (config_.terminate_batch_size == 0)
    config_.terminate_batch_size = 1;
}

caf::expected<std::vector<instance>>
query_ec2_client::run_instances(const run_instances_request& req) {
  auto params = run_instances_params(req);
  if (!params)
    return params.error();
  auto doc = api_->call("RunInstances", *params);
  if (!doc)
    return doc.error();
  return parse_run_instances(*doc);
}

caf::expected<std::vector<instance>>
query_ec2_client::describe_instances(const describe_instances_request& req) {
  return all_pages<instance>(
      *api_, "DescribeInstances", config_.max_pages,
      [&](const std::string& token) {
        return describe_instances_params(req, token);
      },
      parse_describe_instances);
}

caf::expected<terminate_result>
query_ec2_client::terminate_instances(const std::vector<std::string>& ids) {
  terminate_result out;
  std::vector<std::string> unique;
  std::set<std::string> seen;
  for (const auto& id : ids)
    if (seen.insert(id).second)
      unique.push_back(id);
  for (size_t i = 0; i < unique.size(); i += config_.terminate_batch_size) {
    auto end = std::min(unique.size(), i + config_.terminate_batch_size);
    std::vector<std::string> batch(unique.begin() + static_cast<long>(i),
                                   unique.begin() + static_cast<long>(end));
    if (auto err = terminate_batch(batch, out))
      return err;
  }
  return out;
}

// EC2 terminates nothing when any id in the call is unknown. Drop the ids the
// error message names, or halve the batch when it names none, and retry the
// rest: each round removes or splits, so it ends after at most 2n calls.
caf::error
query_ec2_client::terminate_batch(const std::vector<std::string>& ids,
                                  terminate_result& out) {
  std::vector<std::vector<std::string>> work{ids};
  while (!work.empty()) {
    auto batch = std::move(work.back());
    work.pop_back();
    if (batch.empty())
      continue;
    auto doc =
        api_->call("TerminateInstances", terminate_instances_params(batch));
    if (doc) {
      auto changes = parse_terminate_instances(*doc);
      std::move(changes.begin(), changes.end(),
                std::back_inserter(out.changes));
      continue;
    }
    auto info = aws_error_of(doc.error());
    if (!invalid_instance_id(info.code))
      return doc.error();
    if (batch.size() == 1) {
      out.not_found.push_back(batch.front());
      continue;
    }
    auto named = instance_ids_in_message(render(doc.error()));
    std::vector<std::string> rest;
    bool dropped = false;
    for (auto& id : batch) {
      if (std::find(named.begin(), named.end(), id) != named.end()) {
        out.not_found.push_back(id);
        dropped = true;
      } else {
        rest.push_back(id);
      }
    }
    if (dropped) {
      work.push_back(std::move(rest));
    } else {
      auto mid = batch.begin() + static_cast<long>(batch.size() / 2);
      work.emplace_back(mid, batch.end());
      work.emplace_back(batch.begin(), mid);
    }
  }
  return {};
}

caf::error query_ec2_client::create_tags(const std::vector<std::string>& ids,
                                         const std::vector<ec2_tag>& tags) {
  auto params = create_tags_params(ids, tags);
  if (!params)
    return params.error();
  auto doc = api_->call("CreateTags", *params);
  return doc ? caf::error{} : doc.error();
}

caf::expected<std::vector<spot_instance_request>>
query_ec2_client::request_spot_instances(const spot_request_spec& spec) {
  auto params = request_spot_instances_params(spec);
  if (!params)
    return params.error();
  auto doc = api_->call("RequestSpotInstances", *params);
  if (!doc)
    return doc.error();
  return parse_spot_instance_requests(*doc).items;
}

caf::expected<std::vector<spot_instance_request>>
query_ec2_client::describe_spot_instance_requests(
    const describe_spot_requests_request& req) {
  return all_pages<spot_instance_request>(
      *api_, "DescribeSpotInstanceRequests", config_.max_pages,
      [&](const std::string& token) {
        return describe_spot_instance_requests_params(req, token);
      },
      parse_spot_instance_requests);
}

caf::expected<std::vector<security_group>>
query_ec2_client::describe_security_groups(
    const std::vector<ec2_filter>& filters) {
  return all_pages<security_group>(
      *api_, "DescribeSecurityGroups", config_.max_pages,
      [&](const std::string& token) {
        return describe_security_groups_params(filters, token);
      },
      parse_describe_security_groups);
}

caf::expected<std::vector<spot_cancel_result>>
query_ec2_client::cancel_spot_instance_requests(
    const std::vector<std::string>& ids) {
  if (ids.empty())
    return std::vector<spot_cancel_result>{};
  auto doc = api_->call("CancelSpotInstanceRequests",
                        cancel_spot_instance_requests_params(ids));
  if (!doc)
    return doc.error();
  return parse_cancel_spot_instance_requests(*doc);
}

std::shared_ptr<query_api>
make_ec2_query_api(const ec2_client_config& config,
                   std::shared_ptr<credential_provider> creds,
                   std::shared_ptr<net::http_client> http, retry_clock clock,
                   const env_lookup& env) {
  query_api_config qc;
  qc.service = "ec2";
  qc.version = "2016-11-15";
  qc.region = config.region;
  qc.endpoint_url =
      resolve_endpoint("ec2", config.region, config.endpoint_url, env);
  qc.timeout = config.timeout;
  qc.retry = config.retry;
  return std::make_shared<query_api>(std::move(qc), std::move(http),
                                     std::move(creds), std::move(clock));
}

std::shared_ptr<ec2_client>
make_curl_ec2_client(ec2_client_config config,
                     std::shared_ptr<credential_provider> creds,
                     const env_lookup& env) {
  auto api =
      make_ec2_query_api(config, std::move(creds), net::make_curl_http_client(),
                         retry_clock::real(), env);
  return std::make_shared<query_ec2_client>(std::move(api), std::move(config));
}

} // namespace det::aws
