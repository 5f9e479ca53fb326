#pragma once

// The provisioner of one pool: every tick it asks the master for a
// provisioning plan (actors/provisioning.hpp, computed on the master's state
// with the provider's live instances), then acts write-ahead through the
// master: instance_launch_requested before the provider launches, then
// instance_pending + instance_running (or instance_launch_failed);
// instance_terminate_requested before the provider terminates; and
// instance_terminated for instances the provider no longer has (which is
// also how a restarted master reconciles). One launch per tick; a tick
// that finds the previous one still in flight does nothing.

#include "actors/master_actor.hpp"

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <string>

namespace det {

/// The machines of a pool. Called on the provisioner's thread; must not
/// block for long (starting or signalling a process is fine).
class instance_provider {
public:
  virtual ~instance_provider();
  /// Starts instance `id` (its agent's id) with `slots` slots.
  [[nodiscard]] virtual caf::error launch(const std::string& id,
                                          int64_t slots) = 0;
  /// Asks instance `id` to stop; it leaves alive() once it has.
  virtual void terminate(const std::string& id) = 0;
  /// Ids of the instances that still exist.
  virtual std::set<std::string> alive() = 0;
};

struct provisioner_options {
  std::string pool;
  std::string cluster_id;
  int64_t slots_per_instance = 1;
  /// Zero: ticks only when sent (tests).
  std::chrono::milliseconds tick_interval{1000};
  std::function<int64_t()> now_us;
};

/// Handles tick_atom (and re-arms it when tick_interval > 0).
caf::actor spawn_provisioner(caf::actor_system& sys, master_actor master,
                             std::shared_ptr<instance_provider> provider,
                             provisioner_options opts);

/// The instance id (= agent id) of launch `seq` of `pool`.
std::string local_instance_id(const std::string& pool, int64_t seq);

} // namespace det
