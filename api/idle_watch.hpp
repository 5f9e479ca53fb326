#pragma once

// Notebooks' and TensorBoards' idle timeout, as upstream's idle watcher.
// A notebook (or TensorBoard) whose
// config has `idle_timeout` (a duration: "30m") is killed once that long
// has passed since its last activity: a request or connection through the
// master's proxy, or its launcher's report that Jupyter has kernels,
// terminals or sessions open (PUT /api/v1/notebooks/{id}/report_idle
// {"idle": false}). Activity is kept in memory only: a restarted master
// counts from its own first look, so a restart never kills a notebook
// early. A TensorBoard's only activity is its proxied traffic. Commands
// and shells never time out. Thread-safe; every method is
// quick, and the decision takes its clock as an argument.

#include "state/cluster_state.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace det::api {

/// A notebook to stop, and why ("idle for more than 30m: service is
/// inactive", upstream's words).
struct idle_kill {
  std::string task_id;
  std::string reason;
};

/// A task config's `idle_timeout` in microseconds; 0 when unset, null or
/// not a positive duration (the launch route refuses those).
int64_t idle_timeout_us(const nlohmann::json& config);

class idle_watch {
public:
  /// Task `task_id` was active at `at_us` (a later time wins).
  void record(const std::string& task_id, int64_t at_us);

  /// The running notebooks and TensorBoards of `s` idle for longer than their
  /// timeout at `now_us`: since the latest of their start, their last activity
  /// and this watch's first call. Each is returned once; tasks that hold no
  /// allocation any more are forgotten.
  std::vector<idle_kill> due(const state::cluster_state& s, int64_t now_us);

private:
  std::mutex mu_;
  int64_t first_look_us_ = 0;
  std::map<std::string, int64_t> last_;
  std::set<std::string> asked_;
};

} // namespace det::api
