#pragma once

// The master-side proxy of one connected agent. It registers the agent with
// the master (connect_atom) when spawned, forwards the master's orders
// (start, preempt, kill) to the agent's connection, and the agent's reports
// to the master: running, exited and a new slot count as commands
// (allocation_running_report, allocation_exit_report, agent_resize:
// core/commands_agents.hpp), its end as disconn_atom. Once the master answers
// an exit (the log holds it durably), the connection gets
// (exitack_atom, allocation id), so the agent may forget that exit. The
// connection is any actor that speaks these messages: the WebSocket
// session of a det-agent, or a test probe.

#include "actors/master_actor.hpp"

#include <caf/typed_actor.hpp>

namespace det {

using agent_actor = caf::typed_actor<
    // Orders from the master, passed on to the connection.
    caf::reacts_to<start_atom, start_order>,
    caf::reacts_to<start_atom, task_start_order>,
    caf::reacts_to<preempt_atom, std::string, std::string>,
    caf::reacts_to<kill_atom, std::string>,
    // Reports from the connection, passed on to the master.
    caf::reacts_to<running_atom, std::string>,
    caf::reacts_to<exited_atom, std::string, int32_t>,
    caf::reacts_to<disconn_atom, std::string>,
    // The connection's slot count changed (a Kubernetes pool's nodes):
    // passed on to the master after the hello; ok once durable.
    caf::replies_to<resize_atom, int32_t>::with<caf::ok_atom>>;

agent_actor spawn_agent_actor(caf::actor_system& sys, master_actor master,
                              agent_hello hello, caf::actor connection);

} // namespace det
