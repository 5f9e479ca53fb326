#pragma once

// The trials' and tasks' log books of a running master: made at start,
// filled with what the log archive kept (store/log_archive.hpp) so that a
// restarted master shows what its processes printed before, and fed the
// master's own lines from its durable events.

#include "actors/master_actor.hpp"
#include "api/task_logs.hpp"
#include "api/trial_logs.hpp"
#include "state/cluster_state.hpp"
#include "store/log_archive.hpp"

#include <memory>

namespace det::api {

/// The trials' book (1,000 lines a trial): with an archive, first the
/// lines kept there, then every new line kept in it. Writes the master's
/// own line into a trial's logs when it errors (why it is not restarted),
/// as upstream's trial logs show it.
std::shared_ptr<trial_logs>
follow_trial_logs(master_options& mo, std::shared_ptr<log_archive> archive);

/// The tasks' book (5,000 lines a task), kept as the trials' is, with the
/// master's own lines as upstream's show them: "Scheduling <name> (id:
/// <allocation>)", "<name> was assigned to an agent", "Service of <name>
/// is available", and on exit "resources exited successfully with a zero
/// exit code", "crashed: resources failed with non-zero exit code: N" or
/// "killed: ...", then "<name> was terminated: <reason>". A forgotten
/// task's lines are dropped from the book and the archive. `from` (the
/// recovered state) names the tasks that live at start.
std::shared_ptr<task_logs>
follow_task_events(master_options& mo, const state::cluster_state& from,
                   std::shared_ptr<log_archive> archive);

} // namespace det::api
