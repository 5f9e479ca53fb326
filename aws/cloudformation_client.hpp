#pragma once

// The CloudFormation calls det-deploy makes, as an interface so the stack
// waiter is tested against scripted stacks. Every call blocks its thread
// until CloudFormation answered (retries included). Failures are aws errors
// (aws_error.hpp); CloudFormation reports most refusals as code
// ValidationError, so is_stack_missing() and is_no_updates() read the
// message.

#include "aws/cloudformation_types.hpp"
#include "aws/credential_provider.hpp"
#include "aws/environment.hpp"
#include "aws/query_api.hpp"

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace det::aws {

class cloudformation_client {
public:
  virtual ~cloudformation_client() = default;

  /// Returns the new stack's id.
  [[nodiscard]] virtual caf::expected<std::string>
  create_stack(const stack_request& req) = 0;

  /// Returns the stack's id; fails with is_no_updates() when the template
  /// and parameters equal the stack's.
  [[nodiscard]] virtual caf::expected<std::string>
  update_stack(const stack_request& req) = 0;

  /// The stack named (or with the id) `name`; nullopt when there is none.
  [[nodiscard]] virtual caf::expected<std::optional<stack>>
  describe_stack(const std::string& name) = 0;

  /// Every stack of the region that is not deleted, all pages followed.
  [[nodiscard]] virtual caf::expected<std::vector<stack>>
  describe_all_stacks() = 0;

  /// One page of the stack's events, newest first; `next_token` empty for
  /// the first page.
  [[nodiscard]] virtual caf::expected<
      std::pair<std::vector<stack_event>, std::string>>
  describe_stack_events(const std::string& stack_name,
                        const std::string& next_token) = 0;

  [[nodiscard]] virtual caf::error delete_stack(const std::string& name) = 0;
};

/// "Stack with id X does not exist".
bool is_stack_missing(const caf::error& err);

/// "No updates are to be performed.": UpdateStack had nothing to do.
bool is_no_updates(const caf::error& err);

struct cloudformation_client_config {
  std::string region = "us-east-1";
  /// Empty: AWS_ENDPOINT_URL_CLOUDFORMATION, AWS_ENDPOINT_URL, then the
  /// public endpoint of `region` (see resolve_endpoint).
  std::string endpoint_url;
  std::chrono::milliseconds timeout{60'000};
  retry_policy retry;
  /// Bound on the pages describe_all_stacks follows.
  int max_pages = 100;
};

/// The client over `http` (tests script it); retries on the real clock.
std::shared_ptr<cloudformation_client>
make_cloudformation_client(const cloudformation_client_config& config,
                           std::shared_ptr<credential_provider> creds,
                           std::shared_ptr<net::http_client> http,
                           const env_lookup& env = process_environment());

/// The production client: the Query API over libcurl.
std::shared_ptr<cloudformation_client>
make_curl_cloudformation_client(const cloudformation_client_config& config,
                                std::shared_ptr<credential_provider> creds,
                                const env_lookup& env = process_environment());

} // namespace det::aws
