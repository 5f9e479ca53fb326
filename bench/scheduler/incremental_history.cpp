// The incremental pass on a pool that lives: after a first pass over the
// whole pool, each round some running allocations finish, new ones arrive,
// the previous pass's placements start and its preemptions stop, and the
// incremental scheduler is told exactly that. Each round's pass is timed,
// and the full pass (schedule_pool) on the same view is timed beside it as
// the reference; both must decide the same (mismatches are counted).

#include "incremental_history.hpp"

#include "policy/incremental_scheduler.hpp"
#include "policy/pool_scheduler.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <unordered_map>

namespace det::bench {

namespace {

using namespace det::policy;
using clock_type = std::chrono::steady_clock;

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

/// The pool as the master would see it, kept in step with the scheduler.
class living_pool {
public:
  living_pool(const pool_snapshot& start, const scheduler_config& config,
              uint32_t seed)
      : rng_(seed), inc_(config) {
    inc_.sync(start);
    for (const auto& a : start.agents)
      agents_[a.id] = a;
    for (const auto& p : start.pending) {
      pending_[p.id] = p;
      next_order_ = std::max(next_order_, p.order + 1);
    }
    for (const auto& r : start.running) {
      running_[r.id] = r;
      next_order_ = std::max(next_order_, r.order + 1);
    }
  }

  incremental_scheduler& scheduler() { return inc_; }

  /// What happened since the last pass: `churn` allocations finish and as
  /// many arrive; the last pass's placements start, its preemptions are
  /// asked for, and those asked a round ago stop.
  void advance(const schedule_result& last, size_t churn) {
    for (const auto& id : stopping_)
      end(id);
    stopping_.clear();
    for (const auto& p : last.placements)
      start(p);
    for (const auto& id : last.preemptions) {
      auto it = running_.find(id);
      if (it == running_.end() || it->second.preempting)
        continue;
      it->second.preempting = true;
      inc_.upsert_running(it->second);
      stopping_.push_back(id);
    }
    for (size_t i = 0; i < churn && !running_.empty(); ++i) {
      auto it = running_.begin();
      std::advance(it, static_cast<long>(
                           rng_() % std::min<size_t>(running_.size(), 4096)));
      end(it->first);
    }
    const int needs[] = {1, 2, 4, 8, 16};
    for (size_t i = 0; i < churn; ++i) {
      pending_allocation p;
      p.id = "alloc-n" + std::to_string(next_order_);
      p.experiment_id = "exp-" + std::to_string(rng_() % 20);
      p.slots = needs[rng_() % 5];
      p.priority = 1 + static_cast<int>(rng_() % 99);
      p.order = next_order_++;
      p.weight = 1.0 + static_cast<double>(rng_() % 3);
      pending_[p.id] = p;
      inc_.upsert_pending(p);
    }
  }

private:
  void start(const placement& pl) {
    auto pit = pending_.find(pl.allocation_id);
    if (pit == pending_.end())
      return;
    running_allocation r;
    r.id = pit->second.id;
    r.experiment_id = pit->second.experiment_id;
    r.priority = pit->second.priority;
    r.order = pit->second.order;
    r.weight = pit->second.weight;
    r.resources = pl.resources;
    for (const auto& res : pl.resources) {
      auto& a = agents_.at(res.agent_id);
      for (int s : res.slots)
        a.free_slots.erase(
            std::find(a.free_slots.begin(), a.free_slots.end(), s));
      inc_.upsert_agent(a);
    }
    pending_.erase(pit);
    inc_.remove_pending(r.id);
    running_[r.id] = r;
    inc_.upsert_running(r);
  }

  void end(const std::string& id) {
    auto it = running_.find(id);
    if (it == running_.end())
      return;
    for (const auto& res : it->second.resources) {
      auto& a = agents_.at(res.agent_id);
      a.free_slots.insert(a.free_slots.end(), res.slots.begin(),
                          res.slots.end());
      std::sort(a.free_slots.begin(), a.free_slots.end());
      inc_.upsert_agent(a);
    }
    inc_.remove_running(id); // before `id` (maybe the key) is erased
    running_.erase(it);
  }

  std::mt19937_64 rng_;
  incremental_scheduler inc_;
  std::unordered_map<std::string, agent_view> agents_;
  std::unordered_map<std::string, pending_allocation> pending_;
  std::map<std::string, running_allocation> running_;
  std::vector<std::string> stopping_;
  uint64_t next_order_ = 0;
};

} // namespace

void run_incremental_history(const std::vector<history_scale>& scales,
                             const std::vector<history_policy>& policies) {
  for (const auto& pc : policies) {
    std::vector<double> xs, ys;
    for (const auto& sc : scales) {
      auto snap = sc.make(sc.agents, sc.pending, 42);
      living_pool pool{snap, pc.config, 7};
      // The first pass places a whole pool's worth: not the steady state.
      auto last = pool.scheduler().pass();
      size_t churn = std::max<size_t>(10, static_cast<size_t>(sc.agents) / 100);
      std::vector<double> inc_ms, full_ms;
      size_t placed = 0, preempted = 0, mismatches = 0;
      for (int r = 0; r < sc.runs; ++r) {
        pool.advance(last, churn);
        auto t0 = clock_type::now();
        last = pool.scheduler().pass();
        inc_ms.push_back(ms_since(t0));
        auto view = pool.scheduler().snapshot();
        auto t1 = clock_type::now();
        auto full = schedule_pool(view, pc.config);
        full_ms.push_back(ms_since(t1));
        mismatches += same_decisions(last, full) ? 0 : 1;
        placed += last.placements.size();
        preempted += last.preemptions.size();
      }
      double ref = percentile(full_ms, 0.5);
      for (auto [metric, v] :
           {std::pair{"incremental_pass_p50", percentile(inc_ms, 0.5)},
            std::pair{"incremental_pass_p99", percentile(inc_ms, 0.99)}})
        std::cout
            << nlohmann::json{{"bench", "scheduler"},
                              {"policy", pc.name},
                              {"scale", sc.name},
                              {"metric", metric},
                              {"value", v},
                              {"unit", "ms"},
                              {"reference", ref},
                              {"reference_is",
                               "full pass on the same view, p50"},
                              {"ratio", v / ref},
                              {"full_pass_p99", percentile(full_ms, 0.99)},
                              {"churn_per_pass", churn},
                              {"pending", pool.scheduler().pending_count()},
                              {"running", pool.scheduler().running_count()},
                              {"placed", placed},
                              {"preempted", preempted},
                              {"mismatches", mismatches},
                              {"runs", sc.runs}}
                   .dump()
            << "\n";
      xs.push_back(std::log(static_cast<double>(sc.agents + sc.pending)));
      ys.push_back(std::log(percentile(inc_ms, 0.5)));
    }
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
    std::cout << nlohmann::json{{"bench", "scheduler"},
                                {"policy", pc.name},
                                {"metric", "incremental_growth_exponent"},
                                {"value", num / den},
                                {"unit", "1"},
                                {"note",
                                 "slope of log(incremental p50) vs "
                                 "log(agents + pending); churn per pass "
                                 "grows with the pool (agents / 100)"}}
                     .dump()
              << "\n";
  }
}

} // namespace det::bench
