#pragma once

// The EC2 instance metadata service, IMDSv2 only: a session token from
// PUT /latest/api/token (cached until shortly before its TTL ends, fetched
// again on a 401), then GETs with the X-aws-ec2-metadata-token header. The
// master uses it for its instance role and region, the agent for its
// addresses and spot interruption notices. Thread-safe; every call blocks
// on HTTP with short timeouts, so keep it off actor threads.

#include "aws/credentials.hpp"
#include "aws/environment.hpp"
#include "net/http_client.hpp"

#include <caf/expected.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace det::aws {

struct imds_config {
  /// Base URL; AWS_EC2_METADATA_SERVICE_ENDPOINT overrides the default.
  std::string endpoint = "http://169.254.169.254";
  /// Per request; IMDS answers in milliseconds when it exists at all.
  std::chrono::milliseconds timeout{1'000};
  std::chrono::seconds token_ttl{21'600};
};

/// The default config with the endpoint taken from `env` when set.
imds_config imds_config_from_env(const env_lookup& env);

/// A scheduled spot interruption (spot/instance-action).
struct spot_action {
  /// terminate, stop or hibernate.
  std::string action;
  /// When, as IMDS wrote it (UTC, ISO 8601).
  std::string time;
};

class imds_client {
public:
  using wall_clock = std::function<std::chrono::system_clock::time_point()>;

  imds_client(imds_config config, std::shared_ptr<net::http_client> http,
              wall_clock now = std::chrono::system_clock::now);

  /// GET /latest/meta-data/<path>. A 404 fails with errc::not_found; no
  /// answer or another status with errc::remote_error, naming the URL.
  [[nodiscard]] caf::expected<std::string> get(const std::string& path);

  [[nodiscard]] caf::expected<std::string> instance_id();
  [[nodiscard]] caf::expected<std::string> local_ipv4();
  [[nodiscard]] caf::expected<std::string> public_ipv4();
  [[nodiscard]] caf::expected<std::string> local_hostname();
  [[nodiscard]] caf::expected<std::string> public_hostname();
  [[nodiscard]] caf::expected<std::string> region();

  /// The pending spot interruption, or nullopt when none is scheduled (IMDS
  /// answers 404 then).
  [[nodiscard]] caf::expected<std::optional<spot_action>>
  spot_instance_action();

  /// The keys of the instance's role (iam/security-credentials/<role>),
  /// with their expiration. errc::not_found when no role is attached.
  [[nodiscard]] caf::expected<credentials> role_credentials();

  const imds_config& config() const { return config_; }

private:
  caf::expected<std::string> token(bool force_new);
  caf::expected<net::http_response> fetch(const std::string& path,
                                          const std::string& tok);

  imds_config config_;
  std::shared_ptr<net::http_client> http_;
  wall_clock now_;
  std::mutex mtx_;
  std::string token_;
  std::chrono::system_clock::time_point token_expiry_{};
};

/// "2024-06-11T12:00:00Z" (fractional seconds allowed) as a UTC time point;
/// nullopt when it is not that format.
std::optional<std::chrono::system_clock::time_point>
parse_iso8601_utc(const std::string& text);

} // namespace det::aws
