#pragma once

// A seeded generator of random event sequences that are valid for the state
// they are applied to: each call looks at the current cluster_state and
// emits one event apply() must accept (submit experiment, create trial,
// agent join/leave, place, trial progress/checkpoint/fail/exit, kill, pause,
// activate, instance and spot lifecycle, ...). Deterministic for a seed on a
// given standard library: it draws from std::mt19937_64 directly, not
// through the (implementation-defined) distributions.

#include "state/cluster_state.hpp"

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

namespace det::state::test {

/// The records of map `m` that keep `p`.
template <class Map, class Pred> auto where(const Map& m, Pred p) {
  std::vector<const typename Map::mapped_type*> out;
  for (const auto& kv : m)
    if (p(kv.second))
      out.push_back(&kv.second);
  return out;
}

class command_generator {
public:
  explicit command_generator(uint64_t seed) : rng_(seed) {
    // nop
  }

  /// An event valid for `s`.
  domain_event next(const cluster_state& s);

private:
  uint64_t below(uint64_t n) { return n == 0 ? 0 : rng_() % n; }
  bool chance(int percent) {
    return below(100) < static_cast<uint64_t>(percent);
  }
  template <class C> auto& pick(C& xs) { return xs[below(xs.size())]; }
  int64_t tick() {
    now_ += 1 + static_cast<int64_t>(below(2'000'000));
    return now_;
  }

  std::optional<domain_event> try_kind(const cluster_state& s, int kind);
  std::optional<domain_event> place(const cluster_state& s);
  /// Experiments once submitted (command_generator_experiments.cpp): state
  /// changes; edits, archiving, continuing, deletion, log retention and GC
  /// policy; runs deleted, archived, matched by a log policy; unmanaged
  /// experiments' trials.
  std::optional<domain_event> change_experiment(const cluster_state& s);
  std::optional<domain_event> experiment_records(const cluster_state& s);
  std::optional<domain_event> runs(const cluster_state& s);
  std::optional<domain_event> unmanaged_trials(const cluster_state& s);
  /// Workspaces, projects, moves, templates, pool bindings, models.
  std::optional<domain_event> records(const cluster_state& s);
  /// Webhooks, their deliveries and outcomes.
  std::optional<domain_event> webhooks(const cluster_state& s);
  /// Tasks: launched, placed, running, ready, stopped, exited, forgotten.
  std::optional<domain_event> tasks(const cluster_state& s);

  std::mt19937_64 rng_;
  int64_t now_ = 1'000'000;
  int64_t next_agent_ = 1;
  int64_t next_instance_ = 1;
  int64_t next_request_ = 1;
  int64_t next_checkpoint_ = 1;
  int64_t next_task_ = 1;
};

} // namespace det::state::test
