#pragma once

// The latest progress (0..1) each trial reported through
// POST /api/v1/trials/{id}/progress. In memory only, like trial_logs: not
// part of the event-sourced state, so a restarted master forgets it until
// the trial reports again. Written and read by REST handlers: thread-safe.

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>

namespace det::api {

class trial_progress {
public:
  void set(int64_t trial_id, double value) {
    std::lock_guard<std::mutex> guard{mu_};
    values_[trial_id] = value;
  }

  [[nodiscard]] std::optional<double> get(int64_t trial_id) const {
    std::lock_guard<std::mutex> guard{mu_};
    auto i = values_.find(trial_id);
    if (i == values_.end())
      return std::nullopt;
    return i->second;
  }

private:
  mutable std::mutex mu_;
  std::map<int64_t, double> values_;
};

} // namespace det::api
