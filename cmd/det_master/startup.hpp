#pragma once

// master.yaml -> what the actors take: the master core's configuration
// (pools, schedulers, reconnect wait) and the secret for trial session
// tokens. Plain code, no I/O.

#include "conf/master_config.hpp"
#include "core/master_core.hpp"

#include <string>

namespace det::master {

/// The cluster id used when master.yaml has none.
inline constexpr const char* default_cluster_id = "determined";

core_config core_config_from(const conf::master_config& cfg,
                             const std::string& host, int64_t pid);

/// The per-cluster secret for session tokens: DET_SESSION_SECRET from the
/// environment when set, else derived from the agent token and cluster id
/// (stable across restarts, so running trials keep valid tokens).
std::string session_secret(const conf::master_config& cfg,
                           const char* env_secret);

/// DET_CHECKPOINT_DIR for trials: host_path/storage_path of a shared_fs
/// storage; "" for other types.
std::string checkpoint_dir(const conf::master_config& cfg);

} // namespace det::master
