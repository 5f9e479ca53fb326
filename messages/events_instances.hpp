#pragma once

// Persisted events of the provisioners: instances launched, running and
// terminated, and spot requests opened, fulfilled and cancelled. Included
// by messages/events.hpp (the catalogue); the rules there apply (past
// tense, never renamed, new fields at the end).

#include "messages/event_definition.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace det {

/// instance_launch_failed error kinds.
inline const std::vector<std::string>& launch_error_kinds() {
  static const std::vector<std::string> xs{"insufficient_capacity",
                                           "quota_exceeded",
                                           "unauthorized",
                                           "invalid_request",
                                           "unavailable",
                                           "partial",
                                           "other"};
  return xs;
}

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

  template <class F> void fields(F& f) {
    f.req("pool", pool);
    f.req("launch_seq", launch_seq);
    f.req("client_token", client_token);
    f.req("count", count);
    f.opt("spot", spot);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_non_empty("client_token", client_token);
    if (count < 1)
      throw field_error("field 'count': must be at least 1");
  }
  std::string stream() const { return "pool/" + pool; }
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

  template <class F> void fields(F& f) {
    f.req("pool", pool);
    f.req("launch_seq", launch_seq);
    f.req("error_kind", error_kind);
    f.opt("message", message);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_one_of("error_kind", error_kind, launch_error_kinds());
  }
  std::string stream() const { return "pool/" + pool; }
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

  template <class F> void fields(F& f) {
    f.req("instance_id", instance_id);
    f.req("pool", pool);
    f.opt("launch_seq", launch_seq);
    f.opt("at_us", at_us);
  }
  void validate() const { require_non_empty("instance_id", instance_id); }
  std::string stream() const { return "instance/" + instance_id; }
};

/// An instance is running (its agent has not necessarily connected).
struct instance_running {
  static constexpr const char* type_name = "instance_running";
  static constexpr int32_t version = 1;
  std::string instance_id;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("instance_id", instance_id);
    f.opt("at_us", at_us);
  }
  std::string stream() const { return "instance/" + instance_id; }
};

/// The provisioner decided to terminate an instance. `reason`: idle,
/// long_disconnected, stopped, over_max, starting_timeout, shutdown.
struct instance_terminate_requested {
  static constexpr const char* type_name = "instance_terminate_requested";
  static constexpr int32_t version = 1;
  std::string instance_id;
  std::string reason;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("instance_id", instance_id);
    f.opt("reason", reason);
    f.opt("at_us", at_us);
  }
  std::string stream() const { return "instance/" + instance_id; }
};

/// An instance is gone (terminated by us, by the user or spot reclaim).
struct instance_terminated {
  static constexpr const char* type_name = "instance_terminated";
  static constexpr int32_t version = 1;
  std::string instance_id;
  std::string reason;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("instance_id", instance_id);
    f.opt("reason", reason);
    f.opt("at_us", at_us);
  }
  std::string stream() const { return "instance/" + instance_id; }
};

/// A one-time spot request ("sir-...") of a launch is open.
struct spot_request_opened {
  static constexpr const char* type_name = "spot_request_opened";
  static constexpr int32_t version = 1;
  std::string request_id;
  std::string pool;
  int64_t launch_seq = 0;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("request_id", request_id);
    f.req("pool", pool);
    f.opt("launch_seq", launch_seq);
    f.opt("at_us", at_us);
  }
  std::string stream() const { return "instance/" + request_id; }
};

/// An open spot request got its instance, which is now pending.
struct spot_request_fulfilled {
  static constexpr const char* type_name = "spot_request_fulfilled";
  static constexpr int32_t version = 1;
  std::string request_id;
  std::string instance_id;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("request_id", request_id);
    f.req("instance_id", instance_id);
    f.opt("at_us", at_us);
  }
  void validate() const { require_non_empty("instance_id", instance_id); }
  std::string stream() const { return "instance/" + request_id; }
};

/// An open spot request was cancelled (by us or by AWS) before fulfilment.
struct spot_request_cancelled {
  static constexpr const char* type_name = "spot_request_cancelled";
  static constexpr int32_t version = 1;
  std::string request_id;
  std::string reason;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("request_id", request_id);
    f.opt("reason", reason);
    f.opt("at_us", at_us);
  }
  std::string stream() const { return "instance/" + request_id; }
};

using instance_event_family = event_family<
    instance_launch_requested, instance_launch_failed, instance_pending,
    instance_running, instance_terminate_requested, instance_terminated,
    spot_request_opened, spot_request_fulfilled, spot_request_cancelled>;

} // namespace det
