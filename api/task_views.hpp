#pragma once

// JSON views of tasks (commands, notebooks, shells, TensorBoards, generic
// tasks) in upstream's shapes, rendered from the state (read model or the
// master's), and the `start` frame that runs a task's allocation on its
// det-agent (docs/agent_protocol.md). Pure functions of their inputs.

#include "api/views.hpp"
#include "core/master_core.hpp"
#include "state/cluster_state.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace det::api {

/// "command", "notebook", "shell", "tensorboard" by task type
/// (COMMAND ...), as upstream's routes and messages name them.
std::string task_kind_of(const std::string& task_type);

/// Upstream's Command / Notebook / Shell / Tensorboard object (camelCase):
/// id, description, state (STATE_*), startTime, displayName, userId,
/// username, resourcePool, exitStatus, jobId, workspaceId.
nlohmann::json ntsc_json(const state::cluster_state& s,
                         const state::task_info& t);

/// The POSIX identity a shell's sessions log in as (upstream's
/// agentUserGroup: user, uid, group, gid, id, user_id): the owner's
/// linked agent user (`det user link-with-agent-user`), overridden field by
/// field by the workspace's, else upstream's default task identity root
/// (0). A det-agent that is not root runs an unprivileged sshd that logs
/// in only its own user: link the users to it.
nlohmann::json shell_agent_user_group(const state::cluster_state& s,
                                      const state::task_info& t);

/// A Shell's own fields added to `j` (ntsc_json's): privateKey (as given:
/// "" for a viewer who may not see it), publicKey, addresses (where its
/// sshd listens, once ready) and agentUserGroup.
void add_shell_fields(nlohmann::json& j, const state::cluster_state& s,
                      const state::task_info& t, const std::string& public_key,
                      const std::string& private_key);

/// Upstream's GenericTaskState of a generic task: ACTIVE while it lives,
/// STOPPING_PAUSED or STOPPING_CANCELED while it is asked to stop, then
/// PAUSED, COMPLETED, CANCELED or ERROR ("GENERIC_TASK_STATE_<x>").
std::string generic_task_state(const state::task_info& t);

/// Upstream's v1Task for GET /api/v1/tasks/{id}: taskId, taskType,
/// allocations [{taskId, allocationId, state, isReady, startTime, endTime,
/// slots, exitReason}], startTime, endTime (once terminated; a paused
/// generic task has none); a generic task's taskState, config (JSON text)
/// and forkedFrom.
nlohmann::json task_json(const state::task_info& t);

/// A trial's run `run` (0: the first, n: after the n-th continue) as a
/// v1Task named `id`: taskType TASK_TYPE_TRIAL, startTime, and endTime
/// once that run ended.
nlohmann::json trial_task_json(const state::trial_info& t, size_t run,
                               const std::string& id);

/// The allocation summary of a placed task for GET /api/v1/tasks
/// (allocationIdToSummary's value); `proxyPorts` holds its service once
/// ready.
nlohmann::json task_summary_json(const state::task_info& t);

/// The shell command that runs a task's `config.entrypoint`: one string is
/// run by /bin/sh -c as it is, a list of several words is quoted word by
/// word (upstream's command-entrypoint.sh: `sh -c "$1"` or `exec "$@"`);
/// none is `true` (the command exits 0).
std::string task_shell_command(const nlohmann::json& config);

/// What a task's process is given to prove itself: the allocation's token
/// (DET_SESSION_TOKEN: its own routes and nothing more), the owner's
/// (DET_USER_TOKEN: session_tokens::user_token_for), a notebook's Jupyter
/// token (DET_NOTEBOOK_TOKEN) and a shell's public key
/// (DET_SHELL_PUBLIC_KEY, api/shell_keys.hpp); empty ones are not set.
struct task_secrets {
  std::string token;
  std::string user_token;
  std::string notebook_token;
  std::string shell_public_key;
};

/// The `start` frame of a task's allocation: its entrypoint, and its
/// environment (config.environment.environment_variables for the agent's
/// slot type `slot_type`, then DET_MASTER, DET_CLUSTER_ID, DET_USER and
/// the secrets). A notebook runs api/ntsc_entrypoints.hpp's launcher, a
/// shell its sshd launcher.
nlohmann::json task_start_frame(const task_start_order& o,
                                const std::string& slot_type,
                                const start_context& ctx,
                                const task_secrets& secrets);

} // namespace det::api
