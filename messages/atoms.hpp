#pragma once

// The project's CAF atoms (CAF 0.17: at most 10 characters each). Actor
// message types live beside the actor that receives them.

#include <caf/atom.hpp>

namespace det {

using append_atom = caf::atom_constant<caf::atom("append")>;
using committed_atom = caf::atom_constant<caf::atom("committed")>;
using snapshot_atom = caf::atom_constant<caf::atom("snapshot")>;
using tick_atom = caf::atom_constant<caf::atom("tick")>;

} // namespace det
