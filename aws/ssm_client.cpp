#include "aws/ssm_client.hpp"

#include "aws/aws_error.hpp"
#include "aws/json_api.hpp"
#include "aws/query_api.hpp"
#include "messages/errc.hpp"

#include <nlohmann/json.hpp>

namespace det::aws {

namespace {

using nlohmann::json;

class curl_ssm_client final : public ssm_client {
public:
  explicit curl_ssm_client(json_api api) : api_(std::move(api)) {}

  caf::expected<ssm_parameters>
  get_parameters(const std::vector<std::string>& names) override {
    if (names.empty() || names.size() > 10)
      return make_error(errc::invalid_argument,
                        "ssm GetParameters: 1 to 10 names, got "
                            + std::to_string(names.size()));
    auto resp = api_.call("GetParameters", json{{"Names", names}}.dump());
    if (!resp)
      return resp.error();
    return parse_get_parameters(*resp);
  }

private:
  json_api api_;
};

} // namespace

caf::expected<ssm_parameters> parse_get_parameters(const std::string& body) {
  auto malformed = [&](const std::string& why) {
    return make_aws_error(aws_error_kind::server_error, "MalformedResponse",
                          "ssm GetParameters",
                          why + "; body: " + body_excerpt(body));
  };
  auto doc = json::parse(body, nullptr, false);
  if (!doc.is_object())
    return malformed("not a JSON object");
  ssm_parameters out;
  if (auto p = doc.find("Parameters"); p != doc.end()) {
    if (!p->is_array())
      return malformed("Parameters is not a list");
    for (const auto& x : *p) {
      if (!x.is_object() || !x.contains("Name") || !x["Name"].is_string()
          || !x.contains("Value") || !x["Value"].is_string())
        return malformed("a parameter without a Name and a Value");
      out.values[x["Name"].get<std::string>()] = x["Value"].get<std::string>();
    }
  }
  if (auto m = doc.find("InvalidParameters"); m != doc.end()) {
    if (!m->is_array())
      return malformed("InvalidParameters is not a list");
    for (const auto& x : *m)
      if (x.is_string())
        out.missing.push_back(x.get<std::string>());
  }
  return out;
}

std::shared_ptr<ssm_client> make_curl_ssm_client(
    ssm_client_config config, std::shared_ptr<credential_provider> creds,
    const env_lookup& env, std::shared_ptr<net::http_client> http,
    retry_clock clock) {
  json_api_config jc;
  jc.service = "ssm";
  jc.target_prefix = "AmazonSSM";
  jc.region = config.region;
  jc.endpoint_url =
      resolve_endpoint("ssm", config.region, config.endpoint_url, env);
  jc.timeout = config.timeout;
  jc.retry = config.retry;
  jc.user_agent = "det-deploy/0.1";
  if (!http)
    http = net::make_curl_http_client();
  return std::make_shared<curl_ssm_client>(json_api{
      std::move(jc), std::move(http), std::move(creds), std::move(clock)});
}

} // namespace det::aws
