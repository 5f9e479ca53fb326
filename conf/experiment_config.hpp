#pragma once

// An experiment config (what `det experiment create CONFIG DIR` posts, as
// YAML text) -> experiment_config plus the config with every default filled
// in, as JSON: the master stores that in the experiment_created event and
// hands it to trials as DET_EXPERIMENT_CONFIG.
//
// Strictness follows upstream's schema: the top level and the blocks the
// master acts on (resources, searcher, hyperparameters, checkpoint_storage,
// bind_mounts, lengths) refuse unknown fields, wrong types and missing
// required fields with a message naming the field path. Blocks the master
// only passes on to the harness (environment, data, optimizations,
// profiling, reproducibility, ...) are accepted as written; so is
// log_policies, which the master checks when it creates the experiment
// (policy/log_policies.hpp).

#include "conf/checkpoint_storage.hpp"
#include "conf/hyperparameters.hpp"
#include "conf/searcher_config.hpp"
#include "conf/task_env.hpp"
#include "messages/errc.hpp"
#include "messages/priority.hpp"

#include <caf/expected.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace det::conf {

struct master_config;

struct entrypoint_config {
  enum class kind {
    shell,       ///< a string, run with sh -c
    argv,        ///< a list, exec'd as is
    trial_class, ///< legacy "module:TrialClass"
  };
  kind type = kind::shell;
  std::string command;           ///< shell and trial_class
  std::vector<std::string> argv; ///< argv
};

struct resources_config {
  int64_t slots_per_trial = 1;
  std::string resource_pool; ///< filled with the master's default pool
  int64_t priority = default_priority; ///< 1 (highest) .. 99; from the pool
  double weight = 1;
  std::optional<int64_t> max_slots;
  bool is_single_node = false;
};

struct bind_mount {
  std::string host_path;
  std::string container_path;
  bool read_only = false;
  std::string propagation = "rprivate";
};

struct experiment_config {
  std::string name;
  std::string description;
  std::vector<std::string> labels;
  entrypoint_config entrypoint;
  resources_config resources;
  std::vector<named_hyperparameter> hyperparameters;
  searcher_config searcher;
  int64_t max_restarts = 5;
  length min_validation_period;
  length min_checkpoint_period;
  checkpoint_storage_config checkpoint_storage;
  int64_t records_per_epoch = 0;
  int64_t scheduling_unit = 100;
  bool perform_initial_validation = false;
  bool debug = false;
  std::chrono::seconds preemption_timeout{3600};
  std::vector<bind_mount> bind_mounts;
  std::string workspace;
  std::string project;
  int64_t experiment_seed = 0;
  /// The config as given, with aliases normalised and defaults filled in.
  nlohmann::json filled;
};

/// What an experiment's defaults come from outside its own text.
struct experiment_defaults {
  std::string compute_pool = "default"; ///< for slots_per_trial > 0
  std::string aux_pool = "default";     ///< for slots_per_trial == 0
  /// Pool name -> its scheduler's default priority. When not empty, a
  /// resources.resource_pool outside it is refused.
  std::map<std::string, int64_t> pool_priorities;
  /// The master's checkpoint_storage; the experiment's is merged over it.
  nlohmann::json checkpoint_storage;
  /// Written as reproducibility.experiment_seed when the config has none
  /// (upstream uses the submission time).
  int64_t experiment_seed = 0;
  /// Name for an experiment that has none.
  std::string name = "Experiment";
  /// Pool name -> its task_container_defaults.environment_variables (the
  /// pool's, else the master's): merged before the experiment's own.
  std::map<std::string, env_by_slot_type> pool_env;
  /// The config of an unmanaged experiment (its trials run outside the
  /// cluster): `entrypoint` is not required.
  bool unmanaged = false;
};

/// Defaults from the master's config: its default pools, each pool's
/// default priority, its checkpoint_storage.
experiment_defaults experiment_defaults_from(const master_config& master);

/// Parses and validates an experiment config given as YAML or JSON text.
/// Fails with errc::invalid_argument listing every problem, one per line,
/// each naming its field ("searcher.metric: required for adaptive_asha",
/// "unknown field 'hyperparamters' (did you mean 'hyperparameters'?)",
/// "entrypoint: required").
[[nodiscard]] caf::expected<experiment_config>
parse_experiment_config(std::string_view text,
                        const experiment_defaults& defaults = {});

/// The same for a config that is already a tree.
[[nodiscard]] caf::expected<experiment_config>
parse_experiment_tree(nlohmann::json tree,
                      const experiment_defaults& defaults = {});

} // namespace det::conf
