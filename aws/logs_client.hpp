#pragma once

// The CloudWatch Logs calls det-master and det-agent make to ship their
// logs (JSON protocol, X-Amz-Target: Logs_20140328.<Action>): the log
// group and the instance's stream, created idempotently, and PutLogEvents.
// Each call is one signed attempt with no retries: the log shipper
// (telemetry/log_shipper.hpp) owns the backoff, so it can keep the batch
// and go on queueing while CloudWatch is down. Blocks the calling thread;
// thread-safe if its http_client and credential_provider are.

#include "aws/credential_provider.hpp"
#include "aws/environment.hpp"
#include "net/http_client.hpp"

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace det::aws {

struct cloudwatch_log_event {
  int64_t timestamp_ms = 0; ///< since the epoch
  std::string message;      ///< valid UTF-8, not empty
};

/// What CloudWatch took but did not keep (rejectedLogEventsInfo): counts
/// of events too old, too new or past the group's retention.
struct put_log_events_result {
  int64_t too_old = 0;
  int64_t too_new = 0;
  int64_t expired = 0;
};

class logs_client {
public:
  virtual ~logs_client() = default;

  /// Succeeds when the group exists afterwards (already existing is fine).
  [[nodiscard]] virtual caf::error
  create_log_group(const std::string& group) = 0;

  /// Succeeds when the stream exists afterwards (already existing is fine).
  [[nodiscard]] virtual caf::error
  create_log_stream(const std::string& group, const std::string& stream) = 0;

  /// `events` in time order, within PutLogEvents' limits (the caller's
  /// policy/log_batch.hpp makes sure). A typed aws error on failure:
  /// ResourceNotFoundException when the group or stream is gone.
  [[nodiscard]] virtual caf::expected<put_log_events_result>
  put_log_events(const std::string& group, const std::string& stream,
                 const std::vector<cloudwatch_log_event>& events) = 0;
};

/// PutLogEvents' request body (pure; the order of `events` is kept).
std::string
encode_put_log_events(const std::string& group, const std::string& stream,
                      const std::vector<cloudwatch_log_event>& events);

/// PutLogEvents' answer -> the counts of rejected events (indexes turned
/// into counts over `sent` events); an empty result for a body without
/// rejectedLogEventsInfo or one that is not JSON.
put_log_events_result parse_put_log_events(const std::string& body,
                                           size_t sent);

struct logs_client_config {
  std::string region = "us-east-1";
  /// Empty: AWS_ENDPOINT_URL_LOGS, AWS_ENDPOINT_URL, then the public one.
  std::string endpoint_url;
  std::chrono::milliseconds timeout{10'000};
};

std::shared_ptr<logs_client>
make_logs_client(logs_client_config config,
                 std::shared_ptr<credential_provider> creds,
                 const env_lookup& env = process_environment(),
                 std::shared_ptr<net::http_client> http = nullptr);

} // namespace det::aws
