#pragma once

// The machines of a pool, as a provisioner drives them: asynchronous. Every
// call returns at once and hands its result to `done` exactly once, on any
// thread (the provisioner actor turns it into a message to itself), so a
// slow cloud never blocks an actor thread. Implementations: the local
// provider (det-agent processes, provision/local_provider) and the aws
// provider (EC2 through aws/async_ec2, provision/aws_provider).

#include "messages/agent_protocol.hpp"

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace det {

/// An instance the provider has, tagged as this pool's.
struct provider_instance {
  std::string id;
  /// pending, running, shutting-down, terminated, stopping, stopped.
  std::string state = "running";
  /// The client token of the launch that made it ("" = unknown).
  std::string launch_token;
  std::string spot_request_id;
};

/// A spot request the provider has, tagged as this pool's.
struct provider_spot_request {
  std::string id;
  /// open, active, closed, cancelled, failed.
  std::string state = "open";
  std::string instance_id;
  std::string launch_token;
};

/// What the provider has right now. Instances created after `taken_at_us`
/// may be missing from it (EC2 is eventually consistent).
struct provider_inventory {
  int64_t taken_at_us = 0;
  std::vector<provider_instance> instances;
  std::vector<provider_spot_request> spot_requests;
  /// By instance id: the exits its agent wrote into its tags before
  /// stopping itself (messages/exit_tags.hpp), decoded but not verified:
  /// claims that plan_provisioning checks against the state.
  std::map<std::string, std::vector<agent::exit_report>> exit_claims;
  /// By instance id: one line per exit tag the decoder refused.
  std::map<std::string, std::vector<std::string>> refused_exit_tags;
};

struct launch_spec {
  std::string pool;
  int64_t launch_seq = 0;
  std::string client_token;
  int count = 1;
  int64_t slots = 1;
  std::string instance_type;
  bool spot = false;
};

/// A launch's result: instances (on-demand, or local processes) or open
/// spot requests; fewer than asked is a partial launch.
struct launch_result {
  std::vector<std::string> instance_ids;
  std::vector<std::string> spot_request_ids;
};

template <class T> using provider_done = std::function<void(T)>;

class instance_provider {
public:
  virtual ~instance_provider();

  /// Launches spec.count instances with spec.client_token as idempotency
  /// key. Failures are aws errors (aws/aws_error.hpp) or plain errors.
  virtual void launch(const launch_spec& spec,
                      provider_done<caf::expected<launch_result>> done) = 0;

  /// Terminates the instances (the provider may batch).
  virtual void terminate(std::vector<std::string> ids,
                         provider_done<caf::error> done) = 0;

  /// Cancels open spot requests (their instances are not terminated).
  virtual void cancel_spot_requests(std::vector<std::string> ids,
                                    provider_done<caf::error> done);

  /// What the provider has, tagged as this pool's; may be cached for a
  /// while (the provider bounds its API calls), refreshed after a launch or
  /// terminate.
  virtual void list(provider_done<caf::expected<provider_inventory>> done) = 0;

  /// Instance types to launch, preferred first (fallbacks after capacity
  /// or quota errors). Empty: the provider has no types (local).
  virtual std::vector<std::string> instance_types() const;

  /// Whether launches are spot requests.
  virtual bool spot() const;

  /// How long an instance may be missing from the inventory after its
  /// launch before it counts as gone, and how long an unknown tagged
  /// instance may live before it is terminated (microseconds).
  virtual int64_t consistency_grace_us() const;
  virtual int64_t orphan_grace_us() const;

  /// The launch_error_kinds() name (messages/events.hpp) of a launch error:
  /// insufficient_capacity, quota_exceeded, unauthorized, ... ("other").
  virtual std::string launch_error_kind(const caf::error& err) const;
};

} // namespace det
