#pragma once

// det-agent's exit recorder on a provisioned EC2 instance
// (agent/idle_shutdown.hpp): writes the exits the master has not recorded
// into the instance's own tags (messages/exit_tags.hpp) with one
// CreateTags call, signed with the instance role's credentials. The
// instance id comes from IMDS; the region from the environment or IMDS;
// the credentials from the default chain (environment, shared files, then
// the instance role through IMDS); the endpoint from AWS_ENDPOINT_URL_EC2
// or AWS_ENDPOINT_URL when set (tests), else EC2's public one.
//
// The instance role may tag only the instance it is on, and only with
// det:exit: keys (deploy/ templates; docs/agent_protocol.md has the
// trade-off). Resolution is lazy and retried on the next write when it
// fails. Thread-safe; write() blocks on HTTP (the idle monitor's thread).

#include "aws/ec2_client.hpp"
#include "aws/environment.hpp"
#include "messages/agent_protocol.hpp"

#include <caf/error.hpp>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace det::agent {

class exit_tag_writer {
public:
  /// Resolves everything from `env` (and IMDS) on the first write.
  explicit exit_tag_writer(aws::env_lookup env);
  /// Writes to `instance_id` through `ec2` (tests; nothing resolved).
  exit_tag_writer(std::string instance_id,
                  std::shared_ptr<aws::ec2_client> ec2);

  /// Tags the instance with one det:exit: tag per exit. Fails (and writes
  /// nothing) when an exit cannot be encoded, more exits than the tag
  /// budget are given, or the instance, region, credentials or EC2 cannot
  /// be reached; the error names which.
  [[nodiscard]] caf::error write(const std::vector<exit_report>& exits);

private:
  [[nodiscard]] caf::error resolve();

  aws::env_lookup env_;
  std::mutex mu_;
  std::string instance_id_;
  std::shared_ptr<aws::ec2_client> ec2_;
};

} // namespace det::agent
