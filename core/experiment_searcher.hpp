#pragma once

// An experiment's searcher as the experiment actor holds it, as plain code
// (no CAF): a policy::searcher plus its ledger (each request's target length
// and whether it was closed). It turns the experiment's queued searcher
// inputs (state::searcher_input) into a searcher_step: the operations to
// carry out and the state to save. The master validates a step and appends
// it as events (master_core::apply_searcher_step); until then nothing of it
// is visible. The same code runs inline in master_core for plain-code use.
//
// The saved form, kept in the experiment's searcher_state:
//   {"searcher": <policy::searcher::save()>,
//    "trials": [{"request", "target", "closed"}, ...], "shut_down": bool}
// (older masters also wrote "trial" in each row; it is ignored).

#include "policy/searcher.hpp"
#include "state/model.hpp"

#include <caf/expected.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace det {

/// What the searcher decided from one batch of inputs (or its start).
struct searcher_step {
  int64_t experiment_id = 0;
  /// True for the searcher's first step (start()).
  bool first = false;
  /// Seq of the last input consumed before this step (the state it builds
  /// on; the master refuses a step that does not follow the log's), and
  /// after it.
  int64_t inputs_after = 0;
  int64_t inputs_through = 0;
  /// In order; create ops carry the request id and hyperparameters.
  std::vector<policy::searcher_op> ops;
  /// Requests whose trial reached its target without being promoted
  /// (0.38 adaptive_asha): asked to checkpoint and stop.
  std::vector<uint64_t> stop;
  nlohmann::json saved = nlohmann::json::object();
  double progress = 0.0;
  /// Set when the searcher cannot be built or loaded from its saved state
  /// (a corrupt or incompatible state): the experiment stops in ERROR with
  /// this reason, and nothing else of the step counts.
  std::string failure;
};

/// A request's line in the ledger.
struct ledger_entry {
  int64_t target = 0;
  bool closed = false;
};

/// A trial's request id as the searcher's request number (decimal digits
/// only, at most 19), or nothing for a trial no searcher created.
std::optional<uint64_t> request_number(const std::string& text);

/// The ledger line of `request_id` in a saved searcher state.
std::optional<ledger_entry> ledger_line(const nlohmann::json& saved,
                                        const std::string& request_id);
/// True once the saved searcher sent shutdown_experiment.
bool searcher_shut_down(const nlohmann::json& saved);
/// True once the saved searcher was started.
bool searcher_started(const nlohmann::json& saved);

class experiment_searcher {
public:
  /// Builds the searcher of `config` (the experiment's), seeded with
  /// `seed`, from `saved` (empty object: not started). `fed_through` is the
  /// seq of the last input it consumed. errc::invalid_argument or
  /// errc::corrupt_snapshot say why not.
  static caf::expected<experiment_searcher> make(const nlohmann::json& config,
                                                 uint64_t seed,
                                                 const nlohmann::json& saved,
                                                 int64_t fed_through);

  /// For the state as it is: the searcher of experiment `e`.
  static caf::expected<experiment_searcher> of(const state::experiment_info& e,
                                               uint64_t base_seed);

  bool started() const { return started_; }
  int64_t fed_through() const { return fed_through_; }

  /// The first step. Call once, when !started().
  searcher_step start(int64_t experiment_id);
  /// The step for the inputs after fed_through() in `inbox` (seq order);
  /// nullopt when there is none.
  std::optional<searcher_step>
  feed(int64_t experiment_id, const std::vector<state::searcher_input>& inbox);

  /// A continued experiment: the requests `requests` open again (their
  /// ledger lines no longer closed) and trained to the config's length.
  /// The step's ops are the trains; `saved` and `progress` go in the
  /// experiment_continued event. Consumes no input.
  searcher_step reopen(int64_t experiment_id,
                       const std::vector<uint64_t>& requests);

private:
  experiment_searcher() = default;
  void run(searcher_step& step, std::vector<policy::searcher_op> ops);
  void take(searcher_step& step, const state::searcher_input& in);
  void finish(searcher_step& step) const;

  std::unique_ptr<policy::searcher> searcher_;
  std::map<uint64_t, ledger_entry> ledger_;
  std::string metric_;
  std::string time_metric_;
  bool started_ = false;
  int64_t fed_through_ = 0;
};

/// Seq of the last input consumed by the searcher of `e`.
int64_t searcher_fed_through(const state::experiment_info& e);

} // namespace det
