#pragma once

// Persisted events of deleting checkpoints (their GC policy, `det
// checkpoint delete`) and of removing files from them (`det checkpoint rm`,
// POST /api/v1/checkpoints/rm). Included by messages/events.hpp (the
// catalogue); the rules there apply (past tense, never renamed, new fields
// at the end).

#include "messages/event_definition.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace det {

/// Checkpoints of an experiment are to be deleted from its checkpoint
/// storage (its GC policy when a trial ended or the policy changed, or a
/// user's `det checkpoint delete`); they stay in the list until
/// checkpoints_deleted. A master restarted in between deletes them again.
struct checkpoints_deletion_requested {
  static constexpr const char* type_name = "checkpoints_deletion_requested";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  std::vector<std::string> uuids;
  /// "gc" (the policy) or "user".
  std::string reason;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("experiment_id", experiment_id);
    f.req("uuids", uuids);
    f.req("reason", reason);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    if (uuids.empty())
      throw field_error("field 'uuids': must not be empty");
    for (const auto& u : uuids)
      require_non_empty("uuids[]", u);
    require_one_of("reason", reason, {"gc", "user", "delete"});
  }
  std::string stream() const {
    return "experiment/" + std::to_string(experiment_id);
  }
};

/// Their files (shared_fs) or objects (s3) are gone: state DELETED.
struct checkpoints_deleted {
  static constexpr const char* type_name = "checkpoints_deleted";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  std::vector<std::string> uuids;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("experiment_id", experiment_id);
    f.req("uuids", uuids);
    f.opt("at_us", at_us);
  }
  void validate() const {
    if (uuids.empty())
      throw field_error("field 'uuids': must not be empty");
    for (const auto& u : uuids)
      require_non_empty("uuids[]", u);
  }
  std::string stream() const {
    return "experiment/" + std::to_string(experiment_id);
  }
};

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

  template <class F> void fields(F& f) {
    f.req("experiment_id", experiment_id);
    f.req("uuids", uuids);
    f.opt("globs", globs);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    if (uuids.empty())
      throw field_error("field 'uuids': must not be empty");
    for (const auto& g : globs)
      if (g.empty())
        throw field_error("field 'globs': must not hold an empty glob");
  }
  std::string stream() const {
    return "experiment/" + std::to_string(experiment_id);
  }
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

  template <class F> void fields(F& f) {
    f.req("experiment_id", experiment_id);
    f.req("uuid", uuid);
    f.req("resources", resources);
    f.opt("at_us", at_us);
  }
  void validate() const {
    // {path: size} as the storage listed it; the views show each size as
    // text, whatever its form.
    if (!resources.is_object())
      throw field_error("field 'resources': must be an object");
  }
  std::string stream() const {
    return "experiment/" + std::to_string(experiment_id);
  }
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

  template <class F> void fields(F& f) {
    f.req("experiment_id", experiment_id);
    f.req("uuid", uuid);
    f.req("metadata", metadata);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_object(metadata, "field 'metadata'");
    // The files are the storage's to say (checkpoint_files_removed).
    if (metadata.contains("resources"))
      throw field_error("field 'metadata': must not hold 'resources'");
  }
  std::string stream() const {
    return "experiment/" + std::to_string(experiment_id);
  }
};

using checkpoint_event_family =
    event_family<checkpoints_deletion_requested, checkpoints_deleted,
                 checkpoint_files_removal_requested, checkpoint_files_removed,
                 checkpoint_metadata_set>;

} // namespace det
