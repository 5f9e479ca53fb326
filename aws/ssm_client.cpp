#include "aws/ssm_client.hpp"

#include "aws/aws_error.hpp"
#include "aws/query_api.hpp"
#include "aws/sigv4.hpp"
#include "messages/errc.hpp"

#include <nlohmann/json.hpp>

#include <cctype>

namespace det::aws {

namespace {

using nlohmann::json;

std::string excerpt(const std::string& body) {
  std::string out;
  for (char c : body) {
    if (out.size() >= 160)
      return out + "...";
    out += std::isprint(static_cast<unsigned char>(c)) ? c : ' ';
  }
  return out;
}

class curl_ssm_client final : public ssm_client {
public:
  curl_ssm_client(ssm_client_config config, std::string endpoint,
                  std::shared_ptr<credential_provider> creds,
                  std::shared_ptr<net::http_client> http, retry_clock clock)
      : config_(std::move(config)), endpoint_(std::move(endpoint)),
        creds_(std::move(creds)), http_(std::move(http)),
        clock_(std::move(clock)) {}

  caf::expected<ssm_parameters>
  get_parameters(const std::vector<std::string>& names) override {
    if (names.empty() || names.size() > 10)
      return make_error(errc::invalid_argument,
                        "ssm GetParameters: 1 to 10 names, got "
                            + std::to_string(names.size()));
    auto body = json{{"Names", names}}.dump();
    auto should_retry = [](const caf::error& err) {
      return is_retryable(aws_error_of(err).kind);
    };
    return with_retries<ssm_parameters>(config_.retry, clock_, should_retry,
                                        [&]() -> caf::expected<ssm_parameters> {
                                          auto resp =
                                              call("GetParameters", body);
                                          if (!resp)
                                            return resp.error();
                                          return parse_get_parameters(*resp);
                                        });
  }

private:
  // One signed attempt; the body of a 200 answer, or the typed error.
  caf::expected<std::string> call(const std::string& action,
                                  const std::string& body) {
    auto url = net::parse_url(endpoint_);
    if (!url)
      return url.error();
    auto creds = creds_->get();
    if (!creds)
      return creds.error();
    sigv4_request sreq;
    sreq.method = "POST";
    sreq.host = url->host_header();
    sreq.path = url->path;
    sreq.headers = {{"Content-Type", "application/x-amz-json-1.1"},
                    {"Host", sreq.host},
                    {"X-Amz-Target", "AmazonSSM." + action}};
    sreq.body = body;
    auto signed_req = sign_v4(sreq, {config_.region, "ssm"}, *creds,
                              std::chrono::system_clock::now());
    net::http_request hreq;
    hreq.method = "POST";
    hreq.url = endpoint_;
    hreq.headers = sreq.headers;
    hreq.headers.emplace_back("User-Agent", "det-deploy/0.1");
    for (auto& h : signed_req.headers)
      hreq.headers.push_back(std::move(h));
    hreq.body = body;
    hreq.timeout = config_.timeout;
    auto resp = http_->send(hreq);
    if (!resp)
      return annotate(resp.error(), " (during ssm " + action + ")");
    if (resp->status == 200)
      return std::move(resp->body);
    // {"__type": "com.amazonaws...#ParameterNotFound", "message": "..."}
    std::string code = "HTTP" + std::to_string(resp->status);
    std::string message = excerpt(resp->body);
    auto doc = json::parse(resp->body, nullptr, false);
    if (doc.is_object()) {
      auto type = doc.value("__type", std::string{});
      if (!type.empty())
        code = type.substr(type.rfind('#') + 1);
      for (const char* k : {"message", "Message"})
        if (doc.contains(k) && doc[k].is_string())
          message = doc[k].get<std::string>();
    }
    return make_aws_error(classify_aws_code(code, resp->status), code,
                          "ssm " + action + " at " + endpoint_ + " (HTTP "
                              + std::to_string(resp->status) + ")",
                          message);
  }

  ssm_client_config config_;
  std::string endpoint_;
  std::shared_ptr<credential_provider> creds_;
  std::shared_ptr<net::http_client> http_;
  retry_clock clock_;
};

} // namespace

caf::expected<ssm_parameters> parse_get_parameters(const std::string& body) {
  auto malformed = [&](const std::string& why) {
    return make_aws_error(aws_error_kind::server_error, "MalformedResponse",
                          "ssm GetParameters",
                          why + "; body: " + excerpt(body));
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
  auto endpoint =
      resolve_endpoint("ssm", config.region, config.endpoint_url, env);
  if (!http)
    http = net::make_curl_http_client();
  return std::make_shared<curl_ssm_client>(
      std::move(config), std::move(endpoint), std::move(creds), std::move(http),
      std::move(clock));
}

} // namespace det::aws
