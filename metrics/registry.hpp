#pragma once

// A small thread-safe metrics registry: counters and histograms that code
// anywhere in the master updates (the event writer's append latency, the
// provisioners' cloud calls), collected by GET /metrics. One mutex per
// registry; an update is a map lookup and an add under it, cheap enough
// for every append and every cloud call, not for inner loops.
//
// Families are registered once (the first registration of a name wins; a
// later one with another type throws std::logic_error, a programming
// error). Handles stay valid as long as the registry.

#include "metrics/text_format.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace det::metrics {

class registry;

class counter {
public:
  /// Adds `v` (>= 0) to the series with `label_pairs`.
  void inc(const labels& label_pairs = {}, double v = 1) const;

private:
  friend class registry;
  counter(registry* r, std::string name) : reg_(r), name_(std::move(name)) {}
  registry* reg_;
  std::string name_;
};

class histogram {
public:
  /// Counts `v` in the series with `label_pairs`.
  void observe(double v, const labels& label_pairs = {}) const;

private:
  friend class registry;
  histogram(registry* r, std::string name) : reg_(r), name_(std::move(name)) {}
  registry* reg_;
  std::string name_;
};

class registry {
public:
  registry();
  ~registry();
  registry(const registry&) = delete;
  registry& operator=(const registry&) = delete;

  counter make_counter(const std::string& name, const std::string& help);

  /// `bounds`: the upper bounds of the buckets, ascending (+Inf is added).
  /// An unlabelled series exists from the start, so the family shows zeros
  /// before the first observation.
  histogram make_histogram(const std::string& name, const std::string& help,
                           std::vector<double> bounds);

  /// Every family with its series, in name order.
  std::vector<family> collect() const;

  /// collect(), encoded.
  std::string text() const;

private:
  friend class counter;
  friend class histogram;
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// The process-wide registry /metrics exposes.
registry& global_registry();

} // namespace det::metrics
