#pragma once

// Deletes checkpoints from the storage their experiment wrote them to, for
// the checkpoint GC (core/checkpoint_gc.hpp): shared_fs removes
// <host_path>/<storage_path>/<uuid>, s3 lists <prefix>/<uuid>/ and deletes
// the objects with batched DeleteObjects through our S3 client (the keys
// and endpoint of the storage config, else the default credential chain).
// A checkpoint already gone counts as deleted. Blocking: run it off actor
// threads. Other storage types fail with errc::invalid_argument.

#include "aws/environment.hpp"
#include "aws/s3_client.hpp"
#include "core/checkpoint_gc.hpp"
#include "messages/errc.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace det {

/// A string field of a checkpoint_storage config ("" when absent or not a
/// string).
std::string storage_field(const nlohmann::json& storage, const char* key);

/// Calls `shared_fs()` or `s3()` by the storage config's type; any other
/// type is errc::invalid_argument naming it and `what` ("deleting").
template <class Result, class SharedFs, class S3>
Result by_storage_type(const nlohmann::json& storage, const char* what,
                       SharedFs shared_fs, S3 s3) {
  auto type = storage_field(storage, "type");
  if (type == "shared_fs")
    return shared_fs();
  if (type == "s3")
    return s3();
  return Result{make_error(errc::invalid_argument, "checkpoint storage type '"
                                                       + type + "': " + what
                                                       + " is not supported")};
}

/// Deletes `keys` from `bucket` (batched DeleteObjects); errc::remote_error
/// names the first key S3 kept and why.
caf::error delete_s3_keys(aws::s3_client& s3, const std::string& bucket,
                          const std::vector<std::string>& keys);

/// "<prefix>/<uuid>/" as the determined harness lays out its keys
/// (leading '/', "." and empty segments dropped); "<uuid>/" without one.
std::string s3_checkpoint_prefix(const std::string& prefix,
                                 const std::string& uuid);

/// An S3 client for a checkpoint_storage of type s3: its endpoint_url and
/// keys, else the default credential chain; the region from `env`.
std::shared_ptr<aws::s3_client> storage_s3_client(const nlohmann::json& storage,
                                                  const aws::env_lookup& env);

/// The folder of checkpoint `uuid` on a shared_fs storage config.
std::string shared_fs_checkpoint_dir(const nlohmann::json& storage,
                                     const std::string& uuid);

/// The most a checkpoint packed for download through the master may hold.
inline constexpr uint64_t max_checkpoint_download_bytes = 256ull << 20;

/// Checkpoint `uuid` packed as a gzipped tar (`det checkpoint download
/// --mode master`, and the SDK's fallback when it cannot read the storage
/// itself). shared_fs: its regular files and folders, paths relative to
/// its folder; symlinks are left out (a trial may have made one point
/// anywhere). s3: the objects under <prefix>/<uuid>/, read with the
/// storage's keys (or the master's own credentials), paths relative to
/// that; a key with a ".." part is left out. errc::not_found when nothing
/// is there, errc::invalid_argument for another storage type or past
/// max_checkpoint_download_bytes. Blocking.
caf::expected<std::string>
pack_checkpoint(const nlohmann::json& storage, const std::string& uuid,
                const aws::env_lookup& env = aws::process_environment());

/// Deletes experiment `experiment_id`'s TensorBoard files where the
/// harness syncs them: <cluster_id>/tensorboard/experiment/<id> in the
/// storage (a folder for shared_fs, a key prefix for s3). Blocking.
caf::error
delete_tensorboard_files(const nlohmann::json& storage,
                         const std::string& cluster_id, int64_t experiment_id,
                         aws::env_lookup env = aws::process_environment());

/// The routes' storage work, each call run on one thread of its own (it
/// blocks: S3 calls, folder walks), its result given to `done` there:
/// delete_tensorboard_files for the cluster `cluster_id` ("" on success,
/// else why), and pack_checkpoint.
struct storage_calls {
  std::function<void(int64_t experiment_id, nlohmann::json storage,
                     std::function<void(std::string)> done)>
      delete_tensorboard_files;
  std::function<void(std::string uuid, nlohmann::json storage,
                     std::function<void(caf::expected<std::string>)> done)>
      pack_checkpoint;
};
storage_calls make_storage_calls(std::string cluster_id);

/// The deleter for every storage type, with `env` for regions and
/// endpoints (AWS_REGION, AWS_ENDPOINT_URL_S3, ...).
checkpoint_delete_fn
make_checkpoint_deleter(aws::env_lookup env = aws::process_environment());

} // namespace det
