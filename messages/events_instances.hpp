#pragma once

// Persisted events of the provisioners: instances launched, running and
// terminated, and spot requests opened, fulfilled and cancelled. Included
// by messages/events.hpp (the catalogue); the rules there apply (past
// tense, never renamed, new fields at the end).

#include <cstdint>
#include <string>
#include <vector>

namespace det {

/// A provisioner decided to launch `count` instances (or spot requests).
/// `launch_seq` is the pool's launch counter plus one; `client_token` is
/// derived from it (state::make_client_token) and sent with the cloud call,
/// so a retried call cannot launch twice.
struct instance_launch_requested {
  static constexpr const char* type_name = "instance_launch_requested";
  static constexpr int32_t version = 1;
  std::string pool;
  int64_t launch_seq = 0;
  std::string client_token;
  int32_t count = 0;
  bool spot = false;
  int64_t at_us = 0;
};

/// A launch failed. `error_kind`: insufficient_capacity, quota_exceeded,
/// unauthorized, invalid_request, unavailable, partial, other.
struct instance_launch_failed {
  static constexpr const char* type_name = "instance_launch_failed";
  static constexpr int32_t version = 1;
  std::string pool;
  int64_t launch_seq = 0;
  std::string error_kind;
  std::string message;
  int64_t at_us = 0;
};

/// An on-demand instance of the pool exists (EC2 "pending"). `launch_seq` is
/// 0 for a tagged instance found by reconciliation without a known launch.
struct instance_pending {
  static constexpr const char* type_name = "instance_pending";
  static constexpr int32_t version = 1;
  std::string instance_id;
  std::string pool;
  int64_t launch_seq = 0;
  int64_t at_us = 0;
};

/// An instance is running (its agent has not necessarily connected).
struct instance_running {
  static constexpr const char* type_name = "instance_running";
  static constexpr int32_t version = 1;
  std::string instance_id;
  int64_t at_us = 0;
};

/// The provisioner decided to terminate an instance. `reason`: idle,
/// long_disconnected, stopped, over_max, starting_timeout, shutdown.
struct instance_terminate_requested {
  static constexpr const char* type_name = "instance_terminate_requested";
  static constexpr int32_t version = 1;
  std::string instance_id;
  std::string reason;
  int64_t at_us = 0;
};

/// An instance is gone (terminated by us, by the user or spot reclaim).
struct instance_terminated {
  static constexpr const char* type_name = "instance_terminated";
  static constexpr int32_t version = 1;
  std::string instance_id;
  std::string reason;
  int64_t at_us = 0;
};

/// A one-time spot request ("sir-...") of a launch is open.
struct spot_request_opened {
  static constexpr const char* type_name = "spot_request_opened";
  static constexpr int32_t version = 1;
  std::string request_id;
  std::string pool;
  int64_t launch_seq = 0;
  int64_t at_us = 0;
};

/// An open spot request got its instance, which is now pending.
struct spot_request_fulfilled {
  static constexpr const char* type_name = "spot_request_fulfilled";
  static constexpr int32_t version = 1;
  std::string request_id;
  std::string instance_id;
  int64_t at_us = 0;
};

/// An open spot request was cancelled (by us or by AWS) before fulfilment.
struct spot_request_cancelled {
  static constexpr const char* type_name = "spot_request_cancelled";
  static constexpr int32_t version = 1;
  std::string request_id;
  std::string reason;
  int64_t at_us = 0;
};

} // namespace det
