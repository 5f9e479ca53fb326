#pragma once

// What det-agent runs for a task whose program the master chooses (a
// notebook, a shell): a shell command line. The process finds a free port,
// starts the service on it, copies its output to the task's logs (the notebook
// token masked), and once the service's readiness line appears posts
// POST /api/v1/allocations/{id}/ready {proxyPort} with its allocation
// token (DET_SESSION_TOKEN), so the master proxies /proxy/{task id}/ to it.

#include <string>

namespace det::api {

/// `script` (Python, no single quote in it) run by
/// ${DET_PYTHON_EXECUTABLE:-python3}, after a prelude that defines
/// det_call(path, body, method, token) (a call to $DET_MASTER) and
/// det_ready(port) (POST /api/v1/allocations/$DET_ALLOCATION_ID/ready with
/// $DET_SESSION_TOKEN).
std::string python_entrypoint(const char* script);

/// JupyterLab with base_url /proxy/$DET_TASK_ID/ and $DET_NOTEBOOK_TOKEN,
/// listening on $DET_PROXY_BIND (default 127.0.0.1), run by
/// ${DET_PYTHON_EXECUTABLE:-python3}.
std::string notebook_entrypoint();

/// sshd (`$DET_SSHD`, else `sshd` on PATH, else /usr/sbin/sshd) run as
/// the agent's user in the task's folder (`.ssh-shell/`): its own host
/// key (ssh-keygen), `$DET_SHELL_PUBLIC_KEY` as the only authorized key,
/// with every variable of the task's environment as an `environment=`
/// option (PermitUserEnvironment) so each session has it; password and
/// keyboard logins off, sftp inside sshd, listening on $DET_PROXY_BIND
/// (default 127.0.0.1) at a free port. Ready on "Server listening on".
/// On SIGTERM (the agent's kill) it kills sshd's sessions, which sshd
/// puts outside the process group, then sshd.
std::string shell_entrypoint();

/// TensorBoard on a free port of $DET_PROXY_BIND under /proxy/$DET_TASK_ID,
/// showing the TensorBoard files of the experiments and trials that
/// $DET_TENSORBOARD names, fetched from their checkpoint storage (shared_fs
/// folders, s3, ...) with the determined package's fetchers
/// (api/tensorboard_entrypoint.cpp). Ready once it answers and holds a
/// first file ("TensorBoard contains metrics").
std::string tensorboard_entrypoint();

} // namespace det::api
