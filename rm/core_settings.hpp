#pragma once

// master.yaml -> what the actors take: the master core's configuration
// (pools, schedulers, reconnect wait, and the priority order of the
// resource manager's type) and the trials' checkpoint folder that both
// resource managers hand their trials. Plain code, no I/O.

#include "conf/master_config.hpp"
#include "core/master_core.hpp"

#include <string>

namespace det::rm {

/// The cluster id used when master.yaml has none.
inline constexpr const char* default_cluster_id = "determined";

core_config core_config_from(const conf::master_config& cfg,
                             const std::string& host, int64_t pid);

/// DET_CHECKPOINT_DIR for trials: host_path/storage_path of a shared_fs
/// storage; "" for other types.
std::string checkpoint_dir(const conf::master_config& cfg);

} // namespace det::rm
