#pragma once

// Every DET_* environment variable the programs read, read here and only
// here (docs/configuration.md, "Environment overrides", is the table). Each
// program reads its own struct once at start-up and passes the fields to
// where they are used; nothing else calls getenv for a DET_* name.
// det-agent's config overrides (DET_MASTER, DET_AGENT_TOKEN, ...) are
// agent_config.hpp's overrides_from_env, read through the same lookup.
//
// The lookup is injected (tests pass a map); process_env() is getenv.
// Empty variables count as unset. A number that does not parse is refused
// with errc::invalid_argument naming the variable and its value; numbers
// out of range are clamped as the programs always did (documented per
// field). Plain code, no I/O beyond the lookup.

#include "messages/errc.hpp"

#include <caf/expected.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace det::conf {

/// A variable's value, or nullptr when unset.
using env_lookup = std::function<const char*(const char*)>;

/// std::getenv of this process.
env_lookup process_env();

/// The aws provisioners' tuning (tests and benchmarks shorten the clocks).
struct provisioner_env {
  std::optional<std::chrono::milliseconds> tick;          ///< _TICK_MS
  std::optional<std::chrono::milliseconds> min_gap;       ///< _MIN_GAP_MS
  std::optional<std::chrono::milliseconds> list_interval; ///< _LIST_INTERVAL_MS
  std::optional<std::chrono::milliseconds> orphan_grace;  ///< _ORPHAN_GRACE_MS
  std::optional<bool> wake;          ///< _WAKE: anything but "0" is true
  std::optional<int> page_size;      ///< _PAGE_SIZE
  std::optional<int> max_per_launch; ///< _MAX_PER_LAUNCH, at least 1
  /// DET_TEST_CRASH_AFTER: the EC2 call after which the provider exits
  /// (crash-recovery tests only); "" never.
  std::string test_crash_after;
};

/// det-master's.
struct master_env {
  /// DET_SESSION_SECRET: the key of trials' session tokens; "" = the
  /// cluster's own.
  std::string session_secret;
  /// DET_READ_REPLICAS: read-model replicas, at least 1.
  std::optional<size_t> read_replicas;
  /// DET_SNAPSHOT_EVERY: events between snapshots of the state, at least
  /// 0 (0 = none).
  std::optional<int64_t> snapshot_every;
  /// DET_CHECKPOINT_GC_INTERVAL_MS: the checkpoint GC's tick, at least 50.
  std::optional<std::chrono::milliseconds> checkpoint_gc_interval;
  /// DET_K8S_SA_DIR: the service-account folder of in-cluster access
  /// ("" = /var/run/secrets/kubernetes.io/serviceaccount).
  std::string k8s_sa_dir;
  provisioner_env provisioner;
};

/// det-agent's (its config overrides aside).
struct agent_env {
  /// DET_SPOT_NOTICE_INTERVAL_MS: how often --spot-notice polls IMDS.
  std::chrono::milliseconds spot_notice_interval{5000};
  /// A Kubernetes pod's, set by its Job (k8s/job_spec.cpp):
  /// DET_POD_NAME, DET_POD_RANK, DET_NUM_PODS ("" when unset).
  std::string pod_name;
  std::string pod_rank;
  std::string num_pods;
};

/// det-inspect's: where to read from when no flag says.
struct inspect_env {
  std::string master; ///< DET_MASTER
  std::string db_url; ///< DET_DB_URL
};

[[nodiscard]] caf::expected<master_env> read_master_env(const env_lookup& env);
[[nodiscard]] caf::expected<agent_env> read_agent_env(const env_lookup& env);
inspect_env read_inspect_env(const env_lookup& env);

} // namespace det::conf
