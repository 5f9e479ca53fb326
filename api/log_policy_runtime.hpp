#pragma once

// The experiments' log policies at run time (config `log_policies`,
// policy/log_policies.hpp). It follows the durable events (on_durable, on
// the master's thread: never blocks) to know each live experiment's
// compiled patterns and which experiment each trial belongs to. Trial log
// lines (scan_log, on the thread that received them) are matched with RE2
// (linear time, whatever a trial prints); a match not yet reported for
// that trial and policy is sent to the master as the record command
// trial.log_policy_matched, which decides once per trial and policy
// (core/runs.hpp). Lines that echo the experiment config (which holds the
// patterns) are skipped, as upstream skips them. Thread-safe.

#include "actors/master_actor.hpp"
#include "core/commands.hpp"
#include "state/cluster_state.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace re2 {
class RE2;
}

namespace det::api {

class log_policy_runtime {
public:
  /// Sends a command to the master (no answer awaited).
  using command_sink = std::function<void(command)>;

  void set_command_sink(command_sink sink);
  /// The live experiments' policies and their trials, from the recovered
  /// state.
  void load(const state::cluster_state& s);
  void on_durable(const std::vector<domain_event>& events);
  void scan_log(int64_t trial_id, const std::string& node,
                const std::vector<std::string>& lines);

private:
  struct compiled {
    /// The policy's key: its name, or its pattern when unnamed.
    std::string key;
    std::shared_ptr<re2::RE2> re;
  };
  void save(int64_t experiment_id, const nlohmann::json& config);

  std::mutex mu_;
  std::map<int64_t, std::vector<compiled>> policies_;
  std::map<int64_t, int64_t> experiment_of_;
  /// (trial, key) pairs already sent to the master.
  std::set<std::pair<int64_t, std::string>> reported_;
  command_sink sink_;
};

/// A runtime loaded from `st` that follows the master's durable events
/// (chained onto mo.on_durable, as follow_webhooks does).
std::shared_ptr<log_policy_runtime>
follow_log_policies(master_options& mo, const state::cluster_state& st);

} // namespace det::api
