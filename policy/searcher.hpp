#pragma once

// An experiment's hyperparameter search as a pure, deterministic state
// machine. The experiment actor owns one searcher; it feeds it what
// happened to the experiment's trials and carries out the operations it
// returns (after appending them as events). Given the same config, seed and
// sequence of inputs, a searcher returns the same operations; save() /
// load() round-trip its whole state (RNG included) through JSON, which the
// master stores in the experiment's snapshot.
//
// Inputs: start() once; trial_created(id) when the trial for a create op
// exists; validation_reported(id, length, value) with the searcher metric
// at a trained length (in batches); trial_exited_early(id) when a trial
// stopped for good without being closed (errored, killed, canceled).
// Stale inputs (unknown or already closed trials) are ignored.
//
// Outputs: create_trial, train_trial (train until the total length),
// close_trial (the searcher needs nothing more from it: checkpoint and
// stop), shutdown_experiment (once, after every trial was closed or exited;
// `failure` when none finished).

#include "policy/hyperparameters.hpp"
#include "policy/rng.hpp"

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace det::policy {

using request_id = uint64_t;

struct create_trial {
  request_id id;
  nlohmann::json hparams;
  uint32_t trial_seed;
};

struct train_trial {
  request_id id;
  uint64_t length; // total batches trained when done
};

struct close_trial {
  request_id id;
};

struct shutdown_experiment {
  bool failure = false;
};

using searcher_op =
    std::variant<create_trial, train_trial, close_trial, shutdown_experiment>;

bool operator==(const searcher_op& a, const searcher_op& b);
std::string to_string(const searcher_op& op);

enum class searcher_kind { single, grid, random, adaptive_asha };
enum class asha_mode { aggressive, standard, conservative };

/// The `searcher:` block of an experiment config, validated.
struct searcher_config {
  searcher_kind kind = searcher_kind::single;
  std::string metric;
  bool smaller_is_better = true;
  /// Batches (or max_time in time_metric units); 0 for single, grid and
  /// random without max_length: each trial decides its own length and
  /// ends by exiting.
  uint64_t max_length = 0;
  /// 0.38's adaptive_asha: rung lengths are values of this validation
  /// metric (max_time is the last); "" = steps completed (max_length).
  std::string time_metric;
  int max_trials = 1;
  int max_concurrent_trials = 16; // 0: no limit
  int max_rungs = 5;
  double divisor = 4;
  asha_mode mode = asha_mode::standard;
};

/// Reads a `searcher:` block in the upstream shape (name, metric,
/// smaller_is_better, max_length as N or {batches: N}, or 0.38's
/// time_metric + max_time, max_trials, ...).
/// errc::invalid_argument names the offending field.
[[nodiscard]] caf::expected<searcher_config>
parse_searcher_config(const nlohmann::json& j);

class searcher {
public:
  virtual ~searcher();

  [[nodiscard]] std::vector<searcher_op> start();
  [[nodiscard]] std::vector<searcher_op> trial_created(request_id id);
  [[nodiscard]] std::vector<searcher_op>
  validation_reported(request_id id, uint64_t length, double value);
  [[nodiscard]] std::vector<searcher_op> trial_exited_early(request_id id);
  /// A continued experiment: the trials `ids` (closed or exited) are open
  /// again and the search no longer shut down; ids it does not know, or
  /// that are open, are skipped. Returns what the method asks of them
  /// (single, grid, random: train each to max_length).
  [[nodiscard]] std::vector<searcher_op>
  reopen(const std::vector<request_id>& ids);

  /// Fraction of the search done, in [0, 1].
  [[nodiscard]] virtual double progress() const = 0;
  [[nodiscard]] bool shut_down() const { return shutdown_sent_; }

  [[nodiscard]] nlohmann::json save() const;
  /// Replaces the state with a saved one from a searcher of the same
  /// config; errc::corrupt_snapshot names what does not match.
  [[nodiscard]] caf::error load(const nlohmann::json& j);

protected:
  enum class trial_status { open, closed, exited };

  searcher(const hparam_space& space, uint64_t seed);

  /// Called by methods: record a new trial and emit its create op.
  request_id create(std::vector<searcher_op>& ops, nlohmann::json hparams);
  void train(std::vector<searcher_op>& ops, request_id id, uint64_t length);
  /// Emits close unless the trial is no longer open.
  void close(std::vector<searcher_op>& ops, request_id id);
  [[nodiscard]] nlohmann::json sample_hparams() { return sample(space_, rng_); }
  [[nodiscard]] bool is_open(request_id id) const;

  virtual void on_start(std::vector<searcher_op>& ops) = 0;
  virtual void on_validation(std::vector<searcher_op>& ops, request_id id,
                             uint64_t length, double value) = 0;
  virtual void on_exit(std::vector<searcher_op>& ops, request_id id) = 0;
  /// Trial `id` is open again (reopen()); the default asks nothing.
  virtual void on_reopen(std::vector<searcher_op>& ops, request_id id);
  /// True once the method will create no more trials.
  [[nodiscard]] virtual bool created_all() const = 0;
  virtual void save_method(nlohmann::json& j) const = 0;
  [[nodiscard]] virtual caf::error load_method(const nlohmann::json& j) = 0;
  [[nodiscard]] virtual const char* name() const = 0;

private:
  void maybe_shut_down(std::vector<searcher_op>& ops);

  hparam_space space_;
  rng rng_;
  request_id next_id_ = 1;
  bool started_ = false;
  bool shutdown_sent_ = false;
  std::map<request_id, trial_status> trials_;
};

/// Builds the searcher for a config. `hyperparameters` is the config's
/// `hyperparameters:` block; `seed` the experiment's seed. Fails with
/// errc::invalid_argument (e.g. a grid hyperparameter without count).
[[nodiscard]] caf::expected<std::unique_ptr<searcher>>
make_searcher(const searcher_config& config,
              const nlohmann::json& hyperparameters, uint64_t seed);

} // namespace det::policy
