#pragma once

// Every metric report of a trial, for learning curves and the SDK's metric
// streams. The event log holds them all (trial_metrics_reported); the
// replicas keep only each trial's latest. A trial created while the
// master runs is held from its creation; one from before is read from the
// log on first use (by a loader the caller gives, on the caller's thread).
// Both are then followed: the master hands over each durable batch, and
// reports of trials being loaded meanwhile wait beside the load, so none
// is missed or counted twice (each is known by its log position).
//
// Held compactly: a report's metrics stay JSON text; an answer that shows
// values parses only the reports it shows. Bounded: past `max_reports` in all,
// the trials used longest ago are forgotten (and read again when asked for).
//
// Thread-safety: every member may be called from any thread; observe()
// never waits on a load.

#include "messages/events.hpp"

#include <caf/expected.hpp>

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace det::read {

struct metric_report {
  /// Its event's log position.
  int64_t position = 0;
  int64_t trial_id = 0;
  /// Its metric group: "training", "validation" or any other name.
  std::string group;
  int64_t steps = 0;
  std::string allocation_id;
  int64_t at_us = 0;
  /// The avgMetrics object as JSON text.
  std::string metrics;
};

/// The report an event is, if it is one.
std::optional<metric_report> report_of(int64_t position,
                                       const domain_event& ev);

/// A trial's reports at one moment: immutable blocks and a copied tail, in
/// log order.
class report_list {
public:
  /// Reports per immutable block.
  static constexpr size_t block_size = 4096;

  [[nodiscard]] size_t size() const { return size_; }
  [[nodiscard]] const metric_report& operator[](size_t i) const;

private:
  friend class metrics_history;
  std::vector<std::shared_ptr<const std::vector<metric_report>>> blocks_;
  std::vector<metric_report> tail_;
  size_t size_ = 0;
};

/// Which reports of `l` a later run of the trial rolled back, as upstream
/// archives them: a report is rolled back when a report of the same group
/// from a later allocation (the trial restarted, resumed or was continued
/// from an earlier checkpoint) is at the same or fewer steps. What a
/// restarted trial trains again is shown once, from the run that counts.
std::vector<bool> rolled_back(const report_list& l);

/// Which reports of `l` a chart of at most `max_points` shows: those of
/// `group` with steps in [min_steps, max_steps], not rolled back, evenly spaced
/// by index, the first and the last of them always included; all of them when
/// they are no more than `max_points`.
std::vector<size_t> sample_reports(const report_list& l,
                                   const std::string& group, int64_t min_steps,
                                   int64_t max_steps, size_t max_points);

class metrics_history {
public:
  /// Reads one trial's reports from the log, in log order.
  using loader =
      std::function<caf::expected<std::vector<metric_report>>(int64_t)>;

  explicit metrics_history(size_t max_reports = 4'000'000);

  /// Durable events in log order, the last at `last_position`.
  void observe(const std::vector<domain_event>& events, int64_t last_position);

  /// Trial `trial_id`'s reports, loading them with `load` first when they
  /// are not held. Blocks for the load: call it off the I/O threads.
  caf::expected<report_list> reports(int64_t trial_id, const loader& load);

  /// Reports held, in all (tests, metrics).
  [[nodiscard]] size_t held() const;

private:
  struct trial_entry {
    bool loaded = false;
    std::vector<std::shared_ptr<const std::vector<metric_report>>> blocks;
    std::vector<metric_report> tail;
    size_t size = 0;
    /// Reports seen while a load runs (merged into it by position).
    std::vector<metric_report> pending;
    int64_t last_position = 0;
    std::list<int64_t>::iterator lru;
  };

  void append_locked(trial_entry& e, metric_report r);
  void evict_locked(int64_t keep);

  mutable std::mutex mu_;
  std::map<int64_t, trial_entry> trials_;
  /// Loaded trials, used most recently first.
  std::list<int64_t> lru_;
  size_t held_ = 0;
  size_t max_reports_;
};

} // namespace det::read
