#pragma once

// Persisted events of the cluster and its pools: a master started, a pool
// is configured. Included by messages/events.hpp (the catalogue); the rules
// there apply (past tense, never renamed, new fields at the end).

#include "messages/event_definition.hpp"

#include <cstdint>
#include <string>

namespace det {

/// A master process took the writer lock and started.
struct master_started {
  static constexpr const char* type_name = "master_started";
  static constexpr int32_t version = 1;
  std::string cluster_id;
  std::string host;
  int64_t pid = 0;
  std::string master_version;
  int64_t at_us = 0;
  /// The cluster's identity (a UUID made by the first master that had
  /// none; `/api/v1/master` clusterId) and this master process's own
  /// (masterId). Absent in logs of older masters.
  std::string cluster_uuid{};
  std::string master_uuid{};

  template <class F> void fields(F& f) {
    f.req("cluster_id", cluster_id);
    f.opt("host", host);
    f.opt("pid", pid);
    f.opt("master_version", master_version);
    f.opt("at_us", at_us);
    f.opt("cluster_uuid", cluster_uuid);
    f.opt("master_uuid", master_uuid);
  }
  std::string stream() const { return "cluster"; }
};

/// A resource pool exists with this configuration (repeated when the
/// master's configuration changes it).
struct pool_configured {
  static constexpr const char* type_name = "pool_configured";
  static constexpr int32_t version = 1;
  std::string pool;
  /// "priority" or "fair_share".
  std::string scheduler = "priority";
  /// "" (static agents only), "local" or "aws".
  std::string provider;
  int32_t slots_per_instance = 0;
  int32_t min_instances = 0;
  int32_t max_instances = 0;
  std::string instance_type;
  bool spot = false;
  int64_t max_idle_agent_period_s = 1200;
  int64_t max_agent_starting_period_s = 1200;
  int64_t agent_reconnect_wait_s = 25;

  template <class F> void fields(F& f) {
    f.req("pool", pool);
    f.opt("scheduler", scheduler);
    f.opt("provider", provider);
    f.opt("slots_per_instance", slots_per_instance);
    f.opt("min_instances", min_instances);
    f.opt("max_instances", max_instances);
    f.opt("instance_type", instance_type);
    f.opt("spot", spot);
    f.opt("max_idle_agent_period_s", max_idle_agent_period_s);
    f.opt("max_agent_starting_period_s", max_agent_starting_period_s);
    f.opt("agent_reconnect_wait_s", agent_reconnect_wait_s);
  }
  void validate() const {
    require_non_empty("pool", pool);
    require_one_of("scheduler", scheduler, {"priority", "fair_share"});
    require_one_of("provider", provider, {"", "local", "aws"});
    require_non_negative("slots_per_instance", slots_per_instance);
    require_non_negative("min_instances", min_instances);
    require_non_negative("max_instances", max_instances);
    if (max_instances < min_instances)
      throw field_error("field 'max_instances': must not be below "
                        "min_instances");
    require_non_negative("max_idle_agent_period_s", max_idle_agent_period_s);
    require_non_negative("max_agent_starting_period_s",
                         max_agent_starting_period_s);
    require_non_negative("agent_reconnect_wait_s", agent_reconnect_wait_s);
  }
  std::string stream() const { return "pool/" + pool; }
};

/// Equal when every payload field is (the event's one field list in
/// messages/events_cluster.hpp); pool_info compares its configuration so.
bool operator==(const pool_configured& a, const pool_configured& b);

using cluster_event_family = event_family<master_started, pool_configured>;

} // namespace det
