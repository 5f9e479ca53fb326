#pragma once

// What the core's decisions ask the outside world to do once their events
// are durable (decision::effects): start, preempt or kill an allocation on
// its agent. The master actor carries them out after the event writer's
// acknowledgement (core/master_core.hpp, the write-ahead rule).

#include "state/model.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace det {

/// Start allocation `allocation_id` of a trial on the agent's slots.
struct start_order {
  std::string agent_id;
  int64_t trial_id = 0;
  int64_t experiment_id = 0;
  std::string allocation_id;
  std::vector<int64_t> slots;
  nlohmann::json hparams;
  /// Batches to train in total (the searcher's latest train op).
  int64_t target_length = 0;
  /// The checkpoint to resume from, if any.
  std::optional<state::checkpoint_info> resume_from;
};

/// Ask allocation `allocation_id` to checkpoint and exit.
struct preempt_order {
  std::string agent_id;
  std::string allocation_id;
  std::string reason;
};

/// Kill allocation `allocation_id` now.
struct kill_order {
  std::string agent_id;
  std::string allocation_id;
};

/// Start task `task_id`'s allocation on the agent: its process (the
/// command's entrypoint, a notebook's server ...) with the task's config.
struct task_start_order {
  std::string agent_id;
  std::string task_id;
  std::string allocation_id;
  std::string task_type;
  std::vector<int64_t> slots;
  nlohmann::json config = nlohmann::json::object();
  std::string owner;
  /// A TensorBoard's storage, experiments and trials (null otherwise).
  nlohmann::json tensorboard;
};

using effect =
    std::variant<start_order, preempt_order, kill_order, task_start_order>;

} // namespace det
