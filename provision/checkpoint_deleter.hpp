#pragma once

// Deletes checkpoints from the storage their experiment wrote them to, for
// the checkpoint GC (core/checkpoint_gc.hpp): shared_fs removes
// <host_path>/<storage_path>/<uuid>, s3 lists <prefix>/<uuid>/ and deletes
// the objects with batched DeleteObjects through our S3 client (the keys
// and endpoint of the storage config, else the default credential chain).
// A checkpoint already gone counts as deleted. Blocking: run it off actor
// threads. Other storage types fail with errc::invalid_argument.

#include "aws/environment.hpp"
#include "core/checkpoint_gc.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace det {

/// "<prefix>/<uuid>/" as the determined harness lays out its keys
/// (leading '/', "." and empty segments dropped); "<uuid>/" without one.
std::string s3_checkpoint_prefix(const std::string& prefix,
                                 const std::string& uuid);

/// The folder of checkpoint `uuid` on a shared_fs storage config.
std::string shared_fs_checkpoint_dir(const nlohmann::json& storage,
                                     const std::string& uuid);

/// Deletes experiment `experiment_id`'s TensorBoard files where the
/// harness syncs them: <cluster_id>/tensorboard/experiment/<id> in the
/// storage (a folder for shared_fs, a key prefix for s3). Blocking.
caf::error
delete_tensorboard_files(const nlohmann::json& storage,
                         const std::string& cluster_id, int64_t experiment_id,
                         aws::env_lookup env = aws::process_environment());

/// The deleter for every storage type, with `env` for regions and
/// endpoints (AWS_REGION, AWS_ENDPOINT_URL_S3, ...).
checkpoint_delete_fn
make_checkpoint_deleter(aws::env_lookup env = aws::process_environment());

} // namespace det
