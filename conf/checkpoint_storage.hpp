#pragma once

// checkpoint_storage, in master.yaml (the cluster default) and in an
// experiment config (an override merged over the master's). Types follow
// upstream: shared_fs, s3, gcs, azure, directory. access_key, secret_key,
// connection_string and credential are secrets (see redact.hpp).

#include "conf/reader.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace det::conf {

struct checkpoint_storage_config {
  std::string type = "shared_fs";
  int64_t save_experiment_best = 0;
  int64_t save_trial_best = 1;
  int64_t save_trial_latest = 1;
  // shared_fs: the harness sees host_path at /determined_shared_fs.
  std::string host_path = "/tmp";
  std::string storage_path = "determined-checkpoint";
  std::string propagation = "rprivate";
  // s3 and gcs
  std::string bucket;
  std::string prefix;
  std::string access_key;
  std::string secret_key;
  std::string endpoint_url;
  // azure
  std::string container;
  std::string connection_string;
  std::string account_url;
  std::string credential;
  // directory
  std::string container_path;
};

/// The packaged default: shared_fs, host_path /tmp, storage_path
/// determined-checkpoint.
nlohmann::json default_checkpoint_storage();

/// Validates the storage object `r` reads into `out` (type is required;
/// shared_fs needs an absolute host_path and a storage_path inside it; s3
/// and gcs need bucket; azure needs container and connection_string or
/// account_url). Fields of another type are unknown fields.
void read_checkpoint_storage(object_reader& r, checkpoint_storage_config& out);

/// `override_` merged over `base`: field by field when the types agree (or
/// the override names none), the override alone when they differ.
nlohmann::json merge_checkpoint_storage(const nlohmann::json& base,
                                        const nlohmann::json& override_);

} // namespace det::conf
