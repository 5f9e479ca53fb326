#pragma once

// Host folders that hold one cluster's files (det-agent's allocation
// folders, the local provider's agent folders): created private (0700) and
// named from ids a client may have chosen.

#include <filesystem>
#include <string>
#include <system_error>

namespace det::util {

/// Creates `p` and the folders above it that are missing, each 0700
/// (folders that exist are left as they are). False, with `ec`, when the
/// file system refuses.
bool make_private_dirs(const std::filesystem::path& p, std::error_code& ec);

/// A folder name from an id: letters, digits, '-', '_', '.'; anything else
/// becomes '_' ("." and ".." are prefixed).
[[nodiscard]] std::string safe_dir_name(const std::string& id);

} // namespace det::util
