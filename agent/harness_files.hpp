#pragma once

// What an unmodified Core API script (PyPI determined==0.38.1) needs around
// it, made from the trial's environment the way upstream's prep_container
// makes it inside a container: the /run/determined/info/*.json files
// (cluster.json, trial.json, rendezvous.json, resources.json) and the
// shared_fs checkpoint directory at the harness's container path.
//
// det-agent runs trials as plain processes, so those fixed paths cannot be
// per trial. Instead each allocation gets a run directory holding
// info/*.json, launch.py (trial_command) and python/sitecustomize.py;
// PYTHONPATH points at the latter, which, when (and only when) the script
// imports the harness, redirects the harness's info file paths to
// DET_INFO_DIR and its shared_fs container path to DET_SHARED_FS_PATH (the
// experiment's checkpoint_storage.host_path), so core.checkpoint writes
// straight to the host path. Nothing else of the harness changes. Pure
// except write_harness_files.

#include <caf/error.hpp>

#include <map>
#include <string>

namespace det::agent {

using env_map = std::map<std::string, std::string>;

/// info file name -> JSON text, from the DET_* variables of `env` (the
/// upstream ClusterInfo/TrialInfo fields; latest_checkpoint is null when
/// DET_LATEST_CHECKPOINT is empty).
std::map<std::string, std::string> info_files(const env_map& env);

/// checkpoint_storage.host_path of DET_EXPERIMENT_CONFIG when its type is
/// shared_fs; "" otherwise.
std::string shared_fs_host_path(const env_map& env);

/// The sitecustomize.py described above.
const char* harness_shim_source();

/// The launcher (<run_dir>/launch.py) described at trial_command.
const char* launcher_source();

/// Writes <run_dir>/info/*.json, <run_dir>/python/sitecustomize.py and
/// <run_dir>/launch.py and adds DET_RUN_DIR, DET_INFO_DIR,
/// DET_SHARED_FS_PATH and PYTHONPATH (prepended to `inherited_pythonpath`)
/// to `env`. errc::remote_error naming the file when a write fails.
[[nodiscard]] caf::error
write_harness_files(const std::string& run_dir, env_map& env,
                    const std::string& inherited_pythonpath);

/// The shell command that runs a trial whose entrypoint is `entrypoint`,
/// after write_harness_files; adds DET_ENTRYPOINT to `env`. As upstream's
/// containers run every trial, it goes through the harness's launch layer
/// (python3 -m determined.exec.launch: the runner lines, the checkpoint
/// storage check, then the entrypoint or a launcher such as
/// determined.launch.torch_distributed) when python3 can import the
/// determined package and the experiment config names the entrypoint;
/// otherwise the entrypoint runs as a shell command.
std::string trial_command(const std::string& entrypoint, env_map& env);

} // namespace det::agent
