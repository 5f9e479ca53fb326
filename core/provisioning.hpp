#pragma once

// What a provisioner should do on one tick, as plain code over the master's
// state (runs inside the master as a state_view): reconciliation of the
// state with the provider's inventory, then the scale decision of
// policy::decide_scale fed from the state. The provisioner actor turns the
// plan into events (through the master, write-ahead) and provider calls.
//
// Reconciliation rules (inventory = what the provider lists with the pool's
// exact tags):
// - a state instance missing from the inventory (after the consistency
//   grace) or shutting down / terminated there is gone; if it was a spot
//   instance whose agent is disconnected, the agent is lost as
//   spot_reclaimed (its trials resume elsewhere without counting a restart);
// - the exits a gone instance's agent wrote into its tags before stopping
//   itself (messages/exit_tags.hpp) are recorded first, as that agent's
//   reports, but only for allocations still live that hold slots of the
//   agent linked to that instance: a tag is a claim from a machine that
//   runs other people's code, and it may only speak for itself. Any other
//   claim is refused (logged), and the instance reconciled as usual;
// - a state instance pending here but running there becomes running;
// - an inventory instance or spot request the state does not know is
//   adopted when its launch token names an outstanding launch that no call
//   is in flight for (a crash between the cloud call and its record), and
//   is otherwise unknown (the actor terminates it after a grace period);
// - an open spot request that is active with an instance is fulfilled, one
//   that is cancelled/closed/failed or missing is closed;
// - an outstanding launch with no call in flight and nothing adopted for it
//   is re-issued with the same client token (which makes the cloud call
//   idempotent).
// Outstanding launches and open spot requests count as starting instances
// in the scale decision, so nothing is bought twice.

#include "core/instance_provider.hpp"
#include "policy/backoff.hpp"
#include "policy/scale_decision.hpp"
#include "state/cluster_state.hpp"

#include <chrono>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace det {

policy::scale_config scale_config_of(const state::pool_info& p);

/// The pool's demand, agents and instances; outstanding launches (their
/// remaining count) and open spot requests count as starting instances.
policy::scale_input scale_input_of(const state::cluster_state& s,
                                   const std::string& pool, int64_t now_us);

struct provisioning_input {
  /// Unset: the provider could not be listed; no reconciliation then.
  std::optional<provider_inventory> inventory;
  /// launch_seq of the provider calls in flight.
  std::set<int64_t> in_flight;
  int64_t consistency_grace_us = 0;
};

struct adoption {
  std::string id;
  int64_t launch_seq = 0;
  bool running = false;
};

struct reissue {
  int64_t launch_seq = 0;
  std::string client_token;
  int count = 0;
  bool spot = false;
};

struct provisioning_plan {
  int launch = 0;
  /// Of `launch`, the instances min_instances asks for.
  int launch_for_minimum = 0;
  /// The launch_seq of the next launch (next_launch_seq).
  int64_t next_seq = 0;
  /// Instances the demand wants before max_instances caps it.
  int wanted = 0;
  /// Pending trials no set of instances can hold.
  int never_fit = 0;
  /// State instances to terminate, with the reason ("idle", ...).
  std::vector<std::pair<std::string, std::string>> terminate;
  /// Terminating instances the provider still has (ask again).
  std::vector<std::string> still_terminating;
  /// State instances the provider no longer has, with the reason.
  std::vector<std::pair<std::string, std::string>> gone;
  /// Exits read from gone instances' tags and verified: instance id,
  /// exit. Recorded (allocation_exited) before anything else of the plan.
  std::vector<std::pair<std::string, agent::exit_report>> tagged_exits;
  /// Exit tags not recorded, one line each (logged).
  std::vector<std::string> refused_exit_tags;
  /// Agents to record lost as spot_reclaimed.
  std::vector<std::string> reclaimed_agents;
  std::vector<std::string> now_running;
  std::vector<adoption> adopt;
  std::vector<adoption> adopt_spot;
  /// Open spot requests fulfilled: request id, instance id.
  std::vector<std::pair<std::string, std::string>> fulfilled;
  /// Open spot requests the provider closed: request id, reason.
  std::vector<std::pair<std::string, std::string>> spot_closed;
  /// Open spot requests to cancel (demand dropped or starting too long).
  std::vector<std::string> cancel_spot;
  /// Tagged instances and spot requests the state does not know.
  std::vector<std::string> unknown_instances;
  std::vector<std::string> unknown_spot_requests;
  std::vector<reissue> reissues;
  /// Outstanding launches of which some instances are known and the rest
  /// (launch_seq, how many) never appeared: closed as partial, not
  /// re-issued.
  std::vector<std::pair<int64_t, int>> partial_launches;
  /// The pool's consecutive failed launches and when the last one failed
  /// (from the log: a restarted provisioner resumes its backoff).
  int launch_failures = 0;
  int64_t last_launch_error_at_us = 0;
};

provisioning_plan plan_provisioning(const state::cluster_state& s,
                                    const std::string& pool, int64_t now_us,
                                    const provisioning_input& in);

/// How one pool's provisioner runs (actors/provisioner_actor.hpp).
struct provisioner_options {
  std::string pool;
  std::string cluster_id;
  int64_t slots_per_instance = 1;
  /// Zero: ticks only when sent (tests). With wake_on_change the tick is
  /// the safety net for what only time changes.
  std::chrono::milliseconds tick_interval{1000};
  /// Decide as soon as the master reports a change of the pool's demand or
  /// capacity (core/provisioning_wake.hpp), not only on the tick.
  bool wake_on_change = true;
  /// Wakes during a cycle are coalesced into one more cycle after it; at
  /// most decision_burst cycles start per decision_burst * min_decision_gap
  /// (on average one per gap however fast the pool changes; a burst of a
  /// few decides at once). Zero: no limit but one cycle at a time.
  std::chrono::milliseconds min_decision_gap{20};
  int decision_burst = 8;
  std::function<int64_t()> now_us;
  /// Per instance type, after a failed launch.
  policy::backoff_config launch_backoff = [] {
    policy::backoff_config c;
    c.initial = std::chrono::seconds{5};
    c.max_delay = std::chrono::minutes{5};
    return c;
  }();
  /// How long pending demand must stay unmet before the provisioner
  /// launches for it (instances min_instances asks for never wait): a burst
  /// of submissions is bought in one launch, and a flap (an agent disabled
  /// and enabled again, a trial that restarts at once) buys nothing.
  std::chrono::milliseconds scale_up_delay{0};
  /// At most this many launch calls in flight.
  int max_launches_in_flight = 4;
  /// At most this many instances per launch call.
  int max_per_launch = 1000;
};

/// The instance id (= agent id) of instance `k` of launch `seq` of `pool`
/// on the local provider.
std::string local_instance_id(const std::string& pool, int64_t seq);

} // namespace det
