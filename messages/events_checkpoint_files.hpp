#pragma once

// Persisted events of removing files from checkpoints (`det checkpoint rm`,
// POST /api/v1/checkpoints/rm). Included by messages/events.hpp (the
// catalogue); the rules there apply (past tense, never renamed, new fields
// at the end).

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace det {

/// A user asked that the files matching `globs` (relative to each
/// checkpoint's folder) be removed from checkpoints `uuids` of one
/// experiment; no globs: only refresh their resources from the storage. A
/// master restarted before checkpoint_files_removed carries it out again.
struct checkpoint_files_removal_requested {
  static constexpr const char* type_name = "checkpoint_files_removal_requested";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  std::vector<std::string> uuids;
  std::vector<std::string> globs;
  std::string username;
  int64_t at_us = 0;
};

/// The removal of checkpoint `uuid` is done: `resources` ({path: size}) are
/// the files left in the storage. None left: the checkpoint is deleted;
/// otherwise partially deleted when they differ from what it listed.
struct checkpoint_files_removed {
  static constexpr const char* type_name = "checkpoint_files_removed";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  std::string uuid;
  nlohmann::json resources = nlohmann::json::object();
  int64_t at_us = 0;
};

/// A user replaced the metadata of checkpoint `uuid` of `experiment_id`
/// (the SDK's add_metadata/remove_metadata, POST /api/v1/checkpoints/
/// {uuid}/metadata): `metadata` is the whole of it, the files it lists
/// (its resources) left as they were.
struct checkpoint_metadata_set {
  static constexpr const char* type_name = "checkpoint_metadata_set";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  std::string uuid;
  nlohmann::json metadata = nlohmann::json::object();
  std::string username;
  int64_t at_us = 0;
};

} // namespace det
