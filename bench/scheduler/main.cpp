// Scheduling-pass benchmark: agents x pending trials at three scales, for
// each policy. Prints one JSON line per result. The reference is the floor
// no pass can beat on the same input in the same run: sorting the queue's
// (priority, order) keys plus one read of every agent's free slots.
//
// Then the incremental scheduler on a pool that changes between passes
// (incremental_history.cpp), with the full pass on the same view as its
// reference.
//
//   bench_scheduler [--quick] [--incremental-only] [--policy NAME]

#include "incremental_history.hpp"

#include "policy/pool_scheduler.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace det::policy;
using clock_type = std::chrono::steady_clock;

struct scale {
  const char* name;
  int agents;
  int pending;
  int runs;
};

/// Agents of 1, 4 or 8 slots, about a third of the slots held by running
/// 1-slot trials of random priority; pending trials of 1-16 slots with
/// random priorities over 20 experiments.
pool_snapshot make_pool(int n_agents, int n_pending, uint32_t seed) {
  std::mt19937_64 rng{seed};
  const int sizes[] = {1, 4, 8};
  const int needs[] = {1, 2, 4, 8, 16};
  pool_snapshot s;
  s.agents.reserve(static_cast<size_t>(n_agents));
  uint64_t order = 0;
  for (int i = 0; i < n_agents; ++i) {
    agent_view a;
    a.id = "i-" + std::to_string(i);
    a.total_slots = sizes[rng() % 3];
    for (int slot = 0; slot < a.total_slots; ++slot) {
      if (rng() % 3 == 0) {
        running_allocation r;
        r.id = "run-" + std::to_string(s.running.size());
        r.experiment_id = "exp-" + std::to_string(rng() % 20);
        r.priority = 1 + static_cast<int>(rng() % 99);
        r.order = order++;
        r.resources.push_back(agent_slots{a.id, {slot}});
        s.running.push_back(std::move(r));
      } else {
        a.free_slots.push_back(slot);
      }
    }
    s.capacity.max_slots += a.total_slots;
    s.agents.push_back(std::move(a));
  }
  s.pending.reserve(static_cast<size_t>(n_pending));
  for (int i = 0; i < n_pending; ++i) {
    pending_allocation p;
    p.id = "alloc-" + std::to_string(i);
    p.experiment_id = "exp-" + std::to_string(rng() % 20);
    p.slots = needs[rng() % 5];
    p.priority = 1 + static_cast<int>(rng() % 99);
    p.order = order++;
    p.weight = 1.0 + static_cast<double>(rng() % 3);
    s.pending.push_back(std::move(p));
  }
  return s;
}

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0)
      .count();
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  auto i =
      static_cast<size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1;
  return v[std::min(i, v.size() - 1)];
}

/// The floor: sort the queue keys and read every agent once.
double reference_ms(const pool_snapshot& s) {
  auto t0 = clock_type::now();
  std::vector<std::pair<uint64_t, uint32_t>> keys(s.pending.size());
  for (size_t i = 0; i < s.pending.size(); ++i)
    keys[i] = {(static_cast<uint64_t>(s.pending[i].priority) << 56)
                   | s.pending[i].order,
               static_cast<uint32_t>(i)};
  std::sort(keys.begin(), keys.end());
  size_t free_slots = 0;
  for (const auto& a : s.agents)
    free_slots += a.free_slots.size();
  volatile size_t sink = free_slots + keys.front().second;
  (void)sink;
  return ms_since(t0);
}

void emit(nlohmann::json j) {
  std::cout << j.dump() << "\n";
}

} // namespace

int main(int argc, char** argv) {
  bool quick = false;
  bool incremental_only = false;
  std::string only_policy;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--policy") == 0 && i + 1 < argc)
      only_policy = argv[++i];
    quick = quick || std::strcmp(argv[i], "--quick") == 0;
    incremental_only =
        incremental_only || std::strcmp(argv[i], "--incremental-only") == 0;
  }
  std::vector<scale> scales{{"100x1k", 100, 1000, quick ? 20 : 200},
                            {"1kx10k", 1000, 10000, quick ? 10 : 60},
                            {"10kx100k", 10000, 100000, quick ? 5 : 25}};
  struct policy_case {
    const char* name;
    scheduler_config config;
  };
  scheduler_config pre;
  pre.preemption = true;
  scheduler_config fair;
  fair.policy = scheduling_policy::fair_share;
  std::vector<policy_case> policies{{"priority", scheduler_config{}},
                                    {"priority_preemption", pre},
                                    {"fair_share", fair}};
  std::vector<det::bench::history_scale> history_scales;
  std::vector<det::bench::history_policy> history_policies;
  for (const auto& sc : scales)
    history_scales.push_back(
        {sc.name, sc.agents, sc.pending, sc.runs, make_pool});
  if (!only_policy.empty())
    policies.erase(std::remove_if(policies.begin(), policies.end(),
                                  [&](const policy_case& pc) {
                                    return pc.name != only_policy;
                                  }),
                   policies.end());
  for (const auto& pc : policies)
    history_policies.push_back({pc.name, pc.config});
  for (const auto& pc : policies) {
    if (incremental_only)
      break;
    std::vector<double> xs, ys;
    for (const auto& sc : scales) {
      auto snap = make_pool(sc.agents, sc.pending, 42);
      std::vector<double> times, refs;
      size_t placed = 0, preempted = 0;
      for (int r = 0; r < sc.runs; ++r) {
        auto t0 = clock_type::now();
        auto result = schedule_pool(snap, pc.config);
        times.push_back(ms_since(t0));
        placed = result.placements.size();
        preempted = result.preemptions.size();
        refs.push_back(reference_ms(snap));
      }
      double p50 = percentile(times, 0.5);
      double ref = percentile(refs, 0.5);
      for (auto [metric, v] : {std::pair{"pass_p50", p50},
                               std::pair{"pass_p99", percentile(times, 0.99)}})
        emit({{"bench", "scheduler"},
              {"policy", pc.name},
              {"scale", sc.name},
              {"metric", metric},
              {"value", v},
              {"unit", "ms"},
              {"reference", ref},
              {"ratio", v / ref},
              {"agents", sc.agents},
              {"pending", sc.pending},
              {"running", snap.running.size()},
              {"placed", placed},
              {"preempted", preempted},
              {"runs", sc.runs}});
      xs.push_back(std::log(static_cast<double>(sc.agents + sc.pending)));
      ys.push_back(std::log(p50));
    }
    // Least-squares slope of log(time) against log(input size).
    double mx = 0, my = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      mx += xs[i];
      my += ys[i];
    }
    mx /= static_cast<double>(xs.size());
    my /= static_cast<double>(xs.size());
    double num = 0, den = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      num += (xs[i] - mx) * (ys[i] - my);
      den += (xs[i] - mx) * (xs[i] - mx);
    }
    emit({{"bench", "scheduler"},
          {"policy", pc.name},
          {"metric", "growth_exponent"},
          {"value", num / den},
          {"unit", "1"},
          {"note", "slope of log(p50) vs log(agents + pending); 1 = linear"}});
  }
  det::bench::run_incremental_history(history_scales, history_policies);
  return 0;
}
