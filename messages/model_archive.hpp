#pragma once

// The model definition of a submitted experiment (and a task's context
// directory, the same list): upstream sends its files
// as a list of v1File objects ({"path", "type", "content" (base64), "mode",
// ...}); agents download one .tar.gz. make_model_archive() builds it in
// memory (util/archive.hpp); for a large model it takes a while, so the
// master calls it on the detached model-def actor.
// Refused (errc::invalid_argument naming modelDefinition[i] and the
// field): a path that is absolute, climbs out with "..", holds "." or
// names nothing, is not text (NUL, control characters, invalid UTF-8),
// is over 1,024 bytes or has a name over 255; an entry that is neither a
// file (type 48, or 0) nor a directory (53), such as a link; an entry
// under a file's path (what a link followed by a file written through it
// becomes); content that is not base64.

#include <caf/expected.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace det {

/// The gzipped tar of `files` (a JSON array of v1File), base64-encoded.
[[nodiscard]] caf::expected<std::string>
make_model_archive(const nlohmann::json& files);

/// Checks `files` without writing anything (the same errors), naming
/// `field` (a task's context is sent as `files`).
[[nodiscard]] caf::error
check_model_files(const nlohmann::json& files,
                  const std::string& field = "modelDefinition");

/// errc::invalid_argument naming `field` when the files' decoded contents
/// add up to more than `limit` bytes.
[[nodiscard]] caf::error
check_model_size(const nlohmann::json& files, int64_t limit,
                 const std::string& field = "modelDefinition");

} // namespace det
