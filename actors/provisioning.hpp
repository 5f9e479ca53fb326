#pragma once

// What a provisioner should do on one tick, as plain code over the master's
// state (runs inside the master as a state_view): the scale decision of
// policy::decide_scale fed from the state, plus reconciliation with the
// provider (instances of the state whose machine is gone are to be recorded
// terminated). The provisioner actor turns the plan into instance events
// (through the master, write-ahead) and provider calls.

#include "policy/scale_decision.hpp"
#include "state/cluster_state.hpp"

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

namespace det {

policy::scale_config scale_config_of(const state::pool_info& p);

policy::scale_input scale_input_of(const state::cluster_state& s,
                                   const std::string& pool, int64_t now_us);

struct provisioning_plan {
  int launch = 0;
  /// The launch_seq of the first launch (next_launch_seq).
  int64_t next_seq = 0;
  /// Instance id and reason ("idle", ...), not yet terminating.
  std::vector<std::pair<std::string, std::string>> terminate;
  /// Instances of the state the provider no longer has.
  std::vector<std::string> gone;
  /// Terminating instances the provider still has (ask again).
  std::vector<std::string> still_terminating;
};

/// `alive`: the instance ids the provider reports running. Instances not
/// in it are `gone`, and are left out of the scale decision.
provisioning_plan plan_provisioning(const state::cluster_state& s,
                                    const std::string& pool, int64_t now_us,
                                    const std::set<std::string>& alive);

nlohmann::json to_json(const provisioning_plan& p);
provisioning_plan plan_from_json(const nlohmann::json& j);

} // namespace det
