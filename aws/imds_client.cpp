#include "aws/imds_client.hpp"

#include "util/time_text.hpp"

#include "aws/aws_error.hpp"
#include "messages/errc.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <ctime>

namespace det::aws {

using namespace std::chrono;

namespace {

const std::string meta_prefix = "/latest/meta-data/";

std::string trimmed(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r\n");
  auto e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string{} : s.substr(b, e - b + 1);
}

} // namespace

std::optional<system_clock::time_point>
parse_iso8601_utc(const std::string& text) {
  auto us = util::parse_rfc3339(text);
  if (!us)
    return std::nullopt;
  return system_clock::time_point{std::chrono::microseconds{*us}};
}

imds_config imds_config_from_env(const env_lookup& env) {
  imds_config cfg;
  if (auto v = env("AWS_EC2_METADATA_SERVICE_ENDPOINT")) {
    cfg.endpoint = *v;
    while (!cfg.endpoint.empty() && cfg.endpoint.back() == '/')
      cfg.endpoint.pop_back();
  }
  return cfg;
}

imds_client::imds_client(imds_config config,
                         std::shared_ptr<net::http_client> http, wall_clock now)
    : config_(std::move(config)), http_(std::move(http)), now_(std::move(now)) {
}

caf::expected<std::string> imds_client::token(bool force_new) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto now = now_();
  // Renew a minute early so a token never expires between check and use.
  if (!force_new && !token_.empty() && now + 60s < token_expiry_)
    return token_;
  net::http_request req;
  req.method = "PUT";
  req.url = config_.endpoint + "/latest/api/token";
  req.headers = {{"X-aws-ec2-metadata-token-ttl-seconds",
                  std::to_string(config_.token_ttl.count())}};
  req.timeout = config_.timeout;
  req.connect_timeout = config_.timeout;
  req.no_proxy = true;
  auto resp = http_->send(req);
  if (!resp)
    return make_error(errc::remote_error,
                      "IMDS at " + config_.endpoint
                          + ": no session token: " + error_text(resp.error()));
  if (resp->status != 200 || resp->body.empty())
    return make_error(errc::remote_error,
                      "IMDS at " + config_.endpoint
                          + ": session token request answered HTTP "
                          + std::to_string(resp->status));
  token_ = trimmed(resp->body);
  token_expiry_ = now + config_.token_ttl;
  return token_;
}

caf::expected<net::http_response> imds_client::fetch(const std::string& path,
                                                     const std::string& tok) {
  net::http_request req;
  req.method = "GET";
  req.url = config_.endpoint + meta_prefix + path;
  req.headers = {{"X-aws-ec2-metadata-token", tok}};
  req.timeout = config_.timeout;
  req.connect_timeout = config_.timeout;
  req.no_proxy = true;
  return http_->send(req);
}

caf::expected<std::string> imds_client::get(const std::string& path) {
  const std::string url = config_.endpoint + meta_prefix + path;
  for (int round = 0; round < 2; ++round) {
    auto tok = token(round > 0);
    if (!tok)
      return tok.error();
    auto resp = fetch(path, *tok);
    if (!resp)
      return make_error(errc::remote_error,
                        "IMDS GET " + url + ": " + error_text(resp.error()));
    if (resp->status == 200)
      return resp->body;
    if (resp->status == 404)
      return make_error(errc::not_found, "IMDS GET " + url + ": not found");
    if (resp->status != 401)
      return make_error(errc::remote_error, "IMDS GET " + url + ": HTTP "
                                                + std::to_string(resp->status));
    // 401: the token expired or IMDS restarted; one retry with a new one.
  }
  return make_error(errc::remote_error,
                    "IMDS GET " + url + ": token rejected twice (HTTP 401)");
}

caf::expected<std::string> imds_client::instance_id() {
  return get("instance-id");
}

caf::expected<std::string> imds_client::local_ipv4() {
  return get("local-ipv4");
}

caf::expected<std::string> imds_client::public_ipv4() {
  return get("public-ipv4");
}

caf::expected<std::string> imds_client::local_hostname() {
  return get("local-hostname");
}

caf::expected<std::string> imds_client::public_hostname() {
  return get("public-hostname");
}

caf::expected<std::string> imds_client::region() {
  auto r = get("placement/region");
  if (!r)
    return r;
  return trimmed(*r);
}

caf::expected<std::optional<spot_action>> imds_client::spot_instance_action() {
  auto body = get("spot/instance-action");
  if (!body) {
    if (code_of(body.error()) == errc::not_found)
      return std::optional<spot_action>{};
    return body.error();
  }
  auto j = nlohmann::json::parse(*body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("action"))
    return make_error(errc::remote_error,
                      "IMDS spot/instance-action: not the expected JSON");
  spot_action out;
  out.action = j.value("action", "");
  out.time = j.value("time", "");
  return std::optional<spot_action>{out};
}

caf::expected<credentials> imds_client::role_credentials() {
  auto roles = get("iam/security-credentials/");
  if (!roles)
    return roles.error();
  auto role = trimmed(*roles);
  if (auto nl = role.find('\n'); nl != std::string::npos)
    role = trimmed(role.substr(0, nl));
  if (role.empty())
    return make_error(errc::not_found, "IMDS at " + config_.endpoint
                                           + ": no instance role attached");
  auto body = get("iam/security-credentials/" + role);
  if (!body)
    return body.error();
  auto j = nlohmann::json::parse(*body, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return make_error(errc::remote_error,
                      "IMDS role " + role + ": credentials are not JSON");
  if (j.value("Code", "Success") != "Success")
    return make_error(errc::remote_error,
                      "IMDS role " + role + ": Code " + j.value("Code", ""));
  credentials creds;
  creds.access_key_id = j.value("AccessKeyId", "");
  creds.secret_access_key = j.value("SecretAccessKey", "");
  creds.session_token = j.value("Token", "");
  creds.source =
      "instance role " + role + " (IMDS at " + config_.endpoint + ")";
  if (creds.access_key_id.empty() || creds.secret_access_key.empty())
    return make_error(errc::remote_error,
                      "IMDS role " + role + ": credentials lack keys");
  if (auto exp = j.find("Expiration"); exp != j.end() && exp->is_string()) {
    creds.expiration = parse_iso8601_utc(exp->get<std::string>());
    if (!creds.expiration)
      return make_error(errc::remote_error,
                        "IMDS role " + role + ": bad Expiration '"
                            + exp->get<std::string>() + "'");
  }
  return creds;
}

} // namespace det::aws
