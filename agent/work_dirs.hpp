#pragma once

// Where det-agent puts an allocation's files on the host: the model
// directory `<work_dir>/<cluster id>/<allocation id>` and the harness files
// beside it (`<...>.run`), every folder created private (0700). Several
// masters may run agents on one host: folders are keyed by cluster id, and
// each allocation folder has an owner file (`<...>.owner`) naming the
// master that created it. A folder left behind (a restarted allocation) is
// deleted only when its owner is this master; another master's folder is
// never deleted: the allocation takes the next free "<allocation>.N".

#include <caf/expected.hpp>

#include <string>

namespace det::agent {

/// Makes a fresh, empty folder for `allocation_id` of cluster `cluster_id`
/// under `work_dir`, owned by `master` (the master's URL), and returns its
/// path. Fails with errc::remote_error when the file system refuses, and
/// errc::conflict when 100 folders of that name belong to other masters.
[[nodiscard]] caf::expected<std::string>
prepare_allocation_dir(const std::string& work_dir,
                       const std::string& cluster_id, const std::string& master,
                       const std::string& allocation_id);

/// prepare_allocation_dir for one pod of a multi-pod allocation (the
/// Kubernetes resource manager's `pod_rank`, "" for a single pod): each
/// rank gets a folder of its own, "<allocation>-rank<N>", so that pods of
/// one allocation sharing a host (a test bed's nodes) never empty each
/// other's folder.
[[nodiscard]] caf::expected<std::string> prepare_pod_allocation_dir(
    const std::string& work_dir, const std::string& cluster_id,
    const std::string& master, const std::string& allocation_id,
    const std::string& pod_rank);

} // namespace det::agent
