#pragma once

// The project's CAF atoms (CAF 0.17: at most 10 characters each). Actor
// message types live beside the actor that receives them.

#include <caf/atom.hpp>

namespace det {

using append_atom = caf::atom_constant<caf::atom("append")>;
using committed_atom = caf::atom_constant<caf::atom("committed")>;
using snapshot_atom = caf::atom_constant<caf::atom("snapshot")>;
using tick_atom = caf::atom_constant<caf::atom("tick")>;
/// A pool's demand or capacity changed: its provisioner decides again.
using wake_atom = caf::atom_constant<caf::atom("wake")>;
/// A provisioner asks the master for wake_atom on its pool's changes.
using watch_atom = caf::atom_constant<caf::atom("watch")>;

} // namespace det

namespace det {

using create_atom = caf::atom_constant<caf::atom("create")>;
using kill_atom = caf::atom_constant<caf::atom("kill")>;
using connect_atom = caf::atom_constant<caf::atom("connect")>;
using disconn_atom = caf::atom_constant<caf::atom("disconn")>;
using running_atom = caf::atom_constant<caf::atom("running")>;
using exited_atom = caf::atom_constant<caf::atom("exited")>;
using start_atom = caf::atom_constant<caf::atom("start")>;
using preempt_atom = caf::atom_constant<caf::atom("preempt")>;
using state_atom = caf::atom_constant<caf::atom("state")>;
/// The master holds an allocation's exit durably: the agent may forget it.
using exitack_atom = caf::atom_constant<caf::atom("exitack")>;
/// A command on the user's records (workspaces, projects, templates,
/// models: core/records.hpp).
/// An agent's slot count changed (a Kubernetes pool's nodes).
using resize_atom = caf::atom_constant<caf::atom("resize")>;

} // namespace det
