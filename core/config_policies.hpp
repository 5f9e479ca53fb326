#pragma once

// Config policies (`det config-policies set|describe|delete`): per scope
// (global, or one workspace) and workload type (EXPERIMENT, or NTSC for
// commands, notebooks, shells and tensorboards), an `invariant_config`
// merged over every submitted config (its values win) and `constraints`
// that refuse a submission asking for more: {priority_limit, resources:
// {max_slots}}. A global policy wins over a workspace's.
//
// The decisions are record commands (core/commands_records.hpp:
// set_config_policies, delete_config_policies), decided on the master's
// own state; the API parsed the document (YAML or JSON) and checked the
// invariant config as an experiment config fragment. Setting replies
// {configPolicies}.
// Only admins may change the global scope; admins and the workspace's
// owner (its creator) a workspace's (errc::permission_denied otherwise).
// A bad value is errc::invalid_argument naming the field; an unknown
// workspace errc::not_found. An NTSC invariant config is refused, as
// upstream refuses it. Setting what is set, or deleting what is not,
// writes nothing.

#include "core/records.hpp"
#include "state/cluster_state.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace det {

record_outcome decide_record(const state::cluster_state& s,
                             const set_config_policies& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const delete_config_policies& c, int64_t now_us);

/// Whether `type` is a workload type policies are kept for.
bool valid_workload_type(const std::string& type);

/// The scope's policies for `workload_type` as upstream's configPolicies
/// object ({invariant_config, constraints}, each only when set; {} when
/// none); null when workspace `workspace_id` (0: global) does not exist.
nlohmann::json config_policies_view(const state::cluster_state& s,
                                    int64_t workspace_id,
                                    const std::string& workload_type);

/// The invariant config for an experiment of workspace `workspace_id`: the
/// workspace's with the global one merged over it; {} when neither is set.
nlohmann::json invariant_experiment_config(const state::cluster_state& s,
                                           int64_t workspace_id);

/// `config` with `invariant` merged over it: objects merge key by key,
/// anything else in `invariant` replaces what `config` has.
nlohmann::json merge_invariant(nlohmann::json config,
                               const nlohmann::json& invariant);

/// Why an experiment with the (filled) `config` in workspace
/// `workspace_id` breaks the workspace's or the global constraints
/// (resources.slots_per_trial and resources.max_slots above max_slots;
/// resources.priority past priority_limit on the side
/// `smaller_is_higher` ranks first), naming the field; "" when it does
/// not.
std::string experiment_constraint_problem(const state::cluster_state& s,
                                          int64_t workspace_id,
                                          const nlohmann::json& config,
                                          bool smaller_is_higher);

} // namespace det
