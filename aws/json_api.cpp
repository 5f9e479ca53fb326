#include "aws/json_api.hpp"

#include "aws/aws_error.hpp"
#include "aws/sigv4.hpp"

#include <nlohmann/json.hpp>

#include <cctype>

namespace det::aws {

std::string body_excerpt(const std::string& body) {
  std::string out;
  for (char c : body) {
    if (out.size() >= 160)
      return out + "...";
    out += std::isprint(static_cast<unsigned char>(c)) ? c : ' ';
  }
  return out;
}

json_api::json_api(json_api_config config,
                   std::shared_ptr<net::http_client> http,
                   std::shared_ptr<credential_provider> creds,
                   retry_clock clock, wall_clock now)
    : config_(std::move(config)), http_(std::move(http)),
      creds_(std::move(creds)), clock_(std::move(clock)), now_(std::move(now)) {
}

caf::expected<std::string> json_api::call(const std::string& action,
                                          const std::string& body) {
  auto should_retry = [](const caf::error& err) {
    return is_retryable(aws_error_of(err).kind);
  };
  return with_retries<std::string>(config_.retry, clock_, should_retry,
                                   [&] { return attempt(action, body); });
}

caf::expected<std::string> json_api::attempt(const std::string& action,
                                             const std::string& body) {
  auto url = net::parse_url(config_.endpoint_url);
  if (!url)
    return url.error();
  auto creds = creds_->get();
  if (!creds)
    return creds.error();
  sigv4_request sreq;
  sreq.method = "POST";
  sreq.host = url->host_header();
  sreq.path = url->path;
  sreq.headers = {{"Content-Type", config_.content_type},
                  {"Host", sreq.host},
                  {"X-Amz-Target", config_.target_prefix + "." + action}};
  sreq.body = body;
  auto signed_req =
      sign_v4(sreq, {config_.region, config_.service}, *creds, now_());
  net::http_request hreq;
  hreq.method = "POST";
  hreq.url = config_.endpoint_url;
  hreq.headers = sreq.headers;
  hreq.headers.emplace_back("User-Agent", config_.user_agent);
  for (auto& h : signed_req.headers)
    hreq.headers.push_back(std::move(h));
  hreq.body = body;
  hreq.timeout = config_.timeout;
  auto resp = http_->send(hreq);
  auto context = config_.service + " " + action;
  if (!resp)
    return annotate(resp.error(), " (during " + context + ")");
  if (resp->status == 200)
    return std::move(resp->body);
  // {"__type": "com.amazonaws...#ParameterNotFound", "message": "..."}
  std::string code = "HTTP" + std::to_string(resp->status);
  std::string message = body_excerpt(resp->body);
  auto doc = nlohmann::json::parse(resp->body, nullptr, false);
  if (doc.is_object()) {
    auto type = doc.value("__type", std::string{});
    if (!type.empty())
      code = type.substr(type.rfind('#') + 1);
    for (const char* k : {"message", "Message"})
      if (doc.contains(k) && doc[k].is_string())
        message = doc[k].get<std::string>();
  }
  return make_aws_error(classify_aws_code(code, resp->status), code,
                        context + " at " + config_.endpoint_url + " (HTTP "
                            + std::to_string(resp->status) + ")",
                        message);
}

} // namespace det::aws
