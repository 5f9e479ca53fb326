#pragma once

// The default credential chain and region lookup, in the order the AWS SDKs
// use: environment variables, the shared files (~/.aws/credentials, then
// ~/.aws/config) for the selected profile, then the instance role through
// IMDSv2. Temporary credentials are fetched again `refresh_before` their
// expiration; if that fails while the old ones still work, the old ones are
// used. When no source has credentials the error names each source tried
// and why it had none. Secrets never appear in errors or logs.

#include "aws/credential_provider.hpp"
#include "aws/environment.hpp"
#include "aws/imds_client.hpp"
#include "net/http_client.hpp"

#include <caf/expected.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace det::aws {

struct credential_chain_options {
  env_lookup env = process_environment();
  /// Home directory for ~/.aws; empty: $HOME from `env`.
  std::string home;
  /// Transport for IMDS; null: libcurl.
  std::shared_ptr<net::http_client> http;
  std::function<std::chrono::system_clock::time_point()> now =
      std::chrono::system_clock::now;
  std::chrono::seconds refresh_before{300};
  /// Also off when AWS_EC2_METADATA_DISABLED=true.
  bool use_imds = true;
};

/// The shared files and profile the options select.
struct shared_files {
  std::string credentials_path;
  std::string config_path;
  std::string profile;
};

shared_files locate_shared_files(const credential_chain_options& opts);

/// Credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY /
/// AWS_SESSION_TOKEN; nullopt when unset, errc::invalid_argument when only
/// one of the pair is set.
[[nodiscard]] caf::expected<std::optional<credentials>>
credentials_from_environment(const env_lookup& env);

/// Credentials of the profile from the credentials file, else from the
/// config file ("[profile NAME]" or "[default]"). nullopt with `why` set
/// when neither has them; errc::invalid_argument for a half-set key pair.
[[nodiscard]] caf::expected<std::optional<credentials>>
credentials_from_shared_files(const shared_files& files, std::string& why);

class credential_chain final : public credential_provider {
public:
  explicit credential_chain(credential_chain_options opts);

  caf::expected<credentials> get() override;

private:
  caf::expected<credentials> resolve();

  credential_chain_options opts_;
  std::unique_ptr<imds_client> imds_;
  std::mutex mtx_;
  std::optional<credentials> cached_;
};

std::shared_ptr<credential_provider>
make_default_credential_chain(credential_chain_options opts = {});

/// The region: AWS_REGION, AWS_DEFAULT_REGION, the profile's `region` in the
/// config file, then IMDS placement/region. errc::not_found naming the
/// sources tried when none has it.
[[nodiscard]] caf::expected<std::string>
resolve_region(const credential_chain_options& opts = {});

} // namespace det::aws
