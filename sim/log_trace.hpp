#pragma once

// The jobs a cluster really ran, read from its own event log, so det-sim
// can replay them under another configuration (`det-sim --from-log`). One
// job per trial of an experiment in `pool` ("" = every pool) that was ever
// placed: submitted when trial_created says, lasting the sum of its runs
// (trial_placed to trial_exited; a run still going at the end of the log
// counts up to the log's last event), with the experiment's
// slots_per_trial GPUs, in the group of the experiment's owner. Trials
// never placed are left out: nothing says how long they would run.
//
// Reads through event_store::read only (store/event_store.hpp), so the
// PostgreSQL log and the in-memory store of tests both serve. Runs on the
// caller's thread; fails with the store's error, or errc::invalid_argument
// naming the position of a payload that is not JSON.

#include "sim/trace.hpp"

#include "store/event_store.hpp"

#include <caf/error.hpp>

#include <string>

namespace det::sim {

[[nodiscard]] caf::error jobs_from_log(event_store& store,
                                       const std::string& pool, trace& out);

} // namespace det::sim
