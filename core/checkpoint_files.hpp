#pragma once

// Removing files from checkpoints (`det checkpoint rm`) as plain code: the
// checks of the user's globs, which request events a removal makes, which
// removals are under way (again after a restart), and which files a glob
// matches. The file work itself is checkpoint_file_remover's (I/O, off actor
// threads). Pure; any thread.

#include "messages/events.hpp"
#include "state/cluster_state.hpp"

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace det {

/// At most this many globs per request, each at most this long.
constexpr size_t max_checkpoint_globs = 100;
constexpr size_t max_checkpoint_glob_bytes = 255;

/// The globs of a request: a list of non-empty strings, bounded in count
/// and length, without control characters, absolute paths or "..".
/// errc::invalid_argument names `field`.
[[nodiscard]] caf::expected<std::vector<std::string>>
checkpoint_globs_of(const nlohmann::json& globs,
                    const std::string& field = "checkpointGlobs");

/// Whether file `path` (relative to the checkpoint's folder, '/'-separated)
/// is removed by `glob`: fnmatch(3) rules ('*' and '?' also match '/'), on
/// the path or on one of its folders ("logs" removes logs/a.txt); a
/// leading "**/" also matches at the top ("**/*" matches every file).
[[nodiscard]] bool checkpoint_glob_matches(const std::string& glob,
                                           const std::string& path);

/// The user's `det checkpoint rm`: one checkpoint_files_removal_requested
/// per experiment, or errc::not_found naming the unknown uuids,
/// errc::invalid_argument naming one being deleted (or another removal).
[[nodiscard]] caf::expected<std::vector<checkpoint_files_removal_requested>>
user_checkpoint_file_removal(const state::cluster_state& s,
                             const std::vector<std::string>& uuids,
                             const std::vector<std::string>& globs,
                             const std::string& username, int64_t now_us);

/// The most a checkpoint's metadata may hold, as JSON text.
constexpr size_t max_checkpoint_metadata_bytes = 64 * 1024;

/// The user's replacement of checkpoint `uuid`'s metadata (the SDK's
/// add_metadata/remove_metadata send the whole of it): `metadata` without
/// its "resources" key, which the storage's files decide. errc::not_found
/// naming the uuid; errc::invalid_argument naming `checkpoint.metadata`
/// when it is not an object or too large, or the checkpoint is deleted.
[[nodiscard]] caf::expected<checkpoint_metadata_set>
user_checkpoint_metadata(const state::cluster_state& s, const std::string& uuid,
                         nlohmann::json metadata, const std::string& username,
                         int64_t now_us);

/// A removal to carry out: checkpoint `uuid` of `experiment_id`, the globs
/// (none: only list what is there) and the experiment's checkpoint_storage.
struct checkpoint_file_removal {
  int64_t experiment_id = 0;
  std::string uuid;
  std::vector<std::string> globs;
  nlohmann::json storage;
};

/// Every checkpoint with a removal under way.
[[nodiscard]] std::vector<checkpoint_file_removal>
pending_checkpoint_file_removals(const state::cluster_state& s);

/// Removes the matching files of one checkpoint and answers the files left
/// ({path: size}); blocking (provision/checkpoint_file_remover.hpp).
using checkpoint_remove_files_fn = std::function<caf::expected<nlohmann::json>(
    const checkpoint_file_removal&)>;

} // namespace det
