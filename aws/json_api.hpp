#pragma once

// One AWS JSON-protocol service (SSM, CloudWatch Logs, ...): call(action,
// body) POSTs the JSON body with X-Amz-Target: <target_prefix>.<action>,
// signed with SigV4, retries throttling, 5xx and connection failures with
// backoff (retry.hpp), and returns the body of the 200 answer or a typed
// aws error (aws_error.hpp) whose code is the "__type" AWS answered
// ("ResourceNotFoundException", ...). Thread-safe if its net::http_client
// and credential_provider are; call() blocks the calling thread for the
// whole retry loop, so never call it on an actor thread.

#include "aws/credential_provider.hpp"
#include "aws/retry.hpp"
#include "net/http_client.hpp"

#include <caf/expected.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace det::aws {

struct json_api_config {
  /// SigV4 service name: "ssm", "logs", ...
  std::string service;
  /// "AmazonSSM", "Logs_20140328", ...
  std::string target_prefix;
  /// "application/x-amz-json-1.1" for SSM and Logs.
  std::string content_type = "application/x-amz-json-1.1";
  std::string region = "us-east-1";
  /// Must be set (resolve_endpoint in query_api.hpp decides it).
  std::string endpoint_url;
  std::chrono::milliseconds timeout{30'000};
  retry_policy retry;
  std::string user_agent = "det/0.1";
};

class json_api {
public:
  using wall_clock = std::function<std::chrono::system_clock::time_point()>;

  json_api(json_api_config config, std::shared_ptr<net::http_client> http,
           std::shared_ptr<credential_provider> creds,
           retry_clock clock = retry_clock::real(),
           wall_clock now = std::chrono::system_clock::now);

  /// Runs `action` with the JSON text `body`; the 200 answer's body.
  [[nodiscard]] caf::expected<std::string> call(const std::string& action,
                                                const std::string& body);

  /// One signed attempt, no retries (callers with their own backoff).
  [[nodiscard]] caf::expected<std::string> attempt(const std::string& action,
                                                   const std::string& body);

  const json_api_config& config() const { return config_; }

private:
  json_api_config config_;
  std::shared_ptr<net::http_client> http_;
  std::shared_ptr<credential_provider> creds_;
  retry_clock clock_;
  wall_clock now_;
};

/// A printable excerpt of at most 160 characters of an answer's body, for
/// error messages.
std::string body_excerpt(const std::string& body);

} // namespace det::aws
