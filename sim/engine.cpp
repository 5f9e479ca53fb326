#include "sim/engine.hpp"

#include "sim/engine_state.hpp"
#include "sim/self_stop.hpp"

#include "policy/pool_scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <queue>
#include <set>

namespace det::sim {

namespace {

using detail::job_phase;
using detail::sim_state;

enum class ev_kind {
  outage_end,
  submit,
  ready,
  finish,
  reclaim,
  outage_start,
  wake,
  self_check,
  drained
};

struct sim_event {
  int64_t t_ms = 0;
  uint64_t seq = 0;
  ev_kind kind = ev_kind::wake;
  size_t index = 0;
  uint64_t generation = 0;
  bool operator>(const sim_event& o) const {
    return t_ms != o.t_ms ? t_ms > o.t_ms : seq > o.seq;
  }
};

class engine {
public:
  engine(const std::vector<job>& jobs, const sim_config& c,
         const policy_spec& p) {
    s_.jobs = &jobs;
    s_.config = &c;
    s_.policy = &p;
    s_.rng = policy::rng{c.seed};
    s_.result.policy = p.name;
    s_.state.resize(jobs.size());
    for (size_t i = 0; i < jobs.size(); ++i) {
      s_.state[i].id = "j" + std::to_string(i);
      s_.state[i].remaining_ms = jobs[i].duration_s * 1000;
      push(jobs[i].submit_s * 1000, ev_kind::submit, i);
    }
    int64_t last_submit = jobs.empty() ? 0 : jobs.back().submit_s;
    auto outages = c.outages;
    for (int k = 0; k < c.random_outages; ++k)
      outages.push_back({s_.rng.between(0, last_submit), c.random_outage_s});
    for (const auto& o : outages) {
      push(o.start_s * 1000, ev_kind::outage_start, 0);
      push((o.start_s + o.length_s) * 1000, ev_kind::outage_end, 0);
    }
    period_ms_ = detail::decision_period_ms(p.rule);
    consolidation_ = detail::consolidation_config_of(s_);
    int64_t horizon = last_submit;
    for (const auto& j : jobs)
      horizon = std::max(horizon, j.submit_s + j.duration_s);
    horizon_ms_ = horizon * 1000;
    int64_t longest = 0;
    for (const auto& j : jobs)
      longest = std::max(longest, j.duration_s);
    no_progress_ms_ = stall_without_progress_ms + longest * 1000;
    sample_every_ms_ =
        std::max<int64_t>(1000, horizon * 1000 / std::max(1, c.series_points));
  }

  run_result run() {
    while (!queue_.empty()) {
      int64_t t = queue_.top().t_ms;
      // A policy that never settles (work that never ends, decisions that
      // undo each other at one instant, or jobs waiting while nothing
      // starts or ends for longer than the longest job plus 30 days)
      // stops the run, reported.
      same_time_ = t == s_.now_ms ? same_time_ + 1 : 0;
      bool stuck = !s_.waiting.empty() && t - progress_ms_ > no_progress_ms_;
      if (t > horizon_ms_ + stall_after_ms || same_time_ > 100000 || stuck) {
        s_.result.stalled = true;
        break;
      }
      sample_until(t);
      s_.now_ms = t;
      while (!queue_.empty() && queue_.top().t_ms == t) {
        auto e = queue_.top();
        queue_.pop();
        handle(e);
      }
      if (down_ > 0)
        continue;
      for (int k = 0; k < 2 && schedule_wanted_; ++k)
        schedule(); // twice: slots that preemptions freed
      if (decide_wanted_)
        maybe_decide();
    }
    return finish_run();
  }

private:
  void push(int64_t t_ms, ev_kind k, size_t index, uint64_t gen = 0) {
    queue_.push({t_ms, seq_++, k, index, gen});
  }

  void wake_at(int64_t t_ms) {
    if (wakes_.insert(t_ms).second)
      push(t_ms, ev_kind::wake, 0);
  }

  void changed() {
    schedule_wanted_ = true;
    decide_wanted_ = true;
  }

  void handle(const sim_event& e) {
    switch (e.kind) {
    case ev_kind::submit:
      s_.state[e.index].phase = job_phase::waiting;
      s_.waiting.push_back(e.index);
      submitted_ = true;
      progress_ms_ = s_.now_ms;
      changed();
      break;
    case ev_kind::ready: {
      auto& x = s_.instances[e.index];
      if (x.gone)
        break;
      x.booted = true;
      if (down_ == 0) {
        connect(x);
      } else {
        x.leak_since_ms = s_.now_ms;
        x.idle_since_ms = s_.now_ms;
        arm_self_check(e.index);
      }
      break;
    }
    case ev_kind::finish: {
      auto& j = s_.state[e.index];
      if (j.phase != job_phase::running || j.generation != e.generation)
        break;
      running_.erase(e.index);
      release(e.index);
      j.phase = job_phase::done;
      j.remaining_ms = 0;
      progress_ms_ = s_.now_ms;
      break;
    }
    case ev_kind::reclaim:
      if (!s_.instances[e.index].gone) {
        ++s_.result.reclaims;
        terminate(e.index);
      }
      break;
    case ev_kind::outage_start:
      if (down_++ == 0) {
        outage_start_ms_ = s_.now_ms;
        for (auto i : s_.live) {
          auto& x = s_.instances[i];
          if (x.connected && x.idle_since_ms >= 0) {
            x.leak_since_ms = s_.now_ms;
            arm_self_check(i);
          }
        }
      }
      break;
    case ev_kind::self_check:
      self_check(e.index);
      break;
    case ev_kind::outage_end:
      if (--down_ == 0)
        restart_master();
      break;
    case ev_kind::wake:
      wakes_.erase(e.t_ms);
      decide_wanted_ = true;
      break;
    case ev_kind::drained:
      if (!s_.instances[e.index].gone)
        terminate(e.index);
      break;
    }
  }

  // The agent connects: all its slots free, idle from now on.
  void connect(detail::sim_instance& x) {
    x.connected = true;
    x.free.clear();
    for (int k = 0; k < s_.config->gpus_per_instance; ++k)
      x.free.push_back(k);
    note_use(x);
    became_idle(x);
  }

  // Keeps when the instance turned under-used; with consolidation, a pass
  // looks at it again once it has been so for consolidate_after.
  void note_use(detail::sim_instance& x) {
    int free = static_cast<int>(x.free.size());
    if (x.draining
        || !policy::is_underused(s_.config->gpus_per_instance, free,
                                 consolidation_)) {
      x.underused_since_ms = -1;
    } else if (x.underused_since_ms < 0) {
      x.underused_since_ms = s_.now_ms;
      if (s_.policy->consolidate)
        wake_at(s_.now_ms + s_.policy->consolidate_after_s * 1000);
    }
  }

  detail::outage outage_now() const { return {down_ > 0, outage_start_ms_}; }

  // While the master is down, an idle agent may stop its own instance.
  void arm_self_check(size_t i) {
    if (auto due = detail::self_check_due_ms(s_, outage_now(), i))
      push(*due, ev_kind::self_check, i);
  }

  void self_check(size_t i) {
    auto r = detail::self_check(s_, outage_now(), i);
    if (r.stop)
      terminate(i);
    else if (r.again_at_ms)
      push(*r.again_at_ms, ev_kind::self_check, i);
  }

  void became_idle(detail::sim_instance& x) {
    x.idle_since_ms = s_.now_ms;
    if (down_ > 0 && x.leak_since_ms < 0)
      x.leak_since_ms = s_.now_ms;
    if (down_ > 0)
      arm_self_check(std::stoul(x.id.substr(2)));
    wake_at(s_.now_ms + s_.policy->idle_s * 1000);
    changed();
  }

  // A restarted master replays its log; agents reconnect and report what
  // they hold. Ours keeps an agent's idle_since through the restart (it is
  // in the log, and a reconnection keeps it): an agent idle since before
  // the outage stays idle since then; one whose jobs ended meanwhile is
  // idle from its reconnection (its exits come with it). Determined keeps
  // idle times in memory only, and the Kubernetes-like ones are not
  // modelled further: for them every agent is idle from its reconnection.
  void restart_master() {
    bool keeps = s_.policy->rule == fleet_rule::ours;
    for (auto i : s_.live) {
      auto& x = s_.instances[i];
      x.holds_exit = false; // acknowledged after the welcome
      if (x.booted && !x.connected) {
        connect(x);
      } else if (x.connected
                 && static_cast<int>(x.free.size())
                        == s_.config->gpus_per_instance) {
        if (keeps && x.idle_since_ms >= 0 && x.idle_since_ms < outage_start_ms_)
          wake_at(
              std::max(s_.now_ms, x.idle_since_ms + s_.policy->idle_s * 1000));
        else
          became_idle(x);
      }
    }
    changed();
  }

  // The job stops running: its slots go back to their agents.
  void release(size_t j) {
    auto& sj = s_.state[j];
    s_.result.busy_gpu_hours += static_cast<double>(s_.now_ms - sj.started_ms)
                                / 3.6e6 * (*s_.jobs)[j].gpus;
    for (const auto& r : sj.resources) {
      auto& x = s_.instances[std::stoul(r.agent_id.substr(2))];
      if (x.gone)
        continue;
      if (down_ > 0)
        x.holds_exit = true;
      x.free.insert(x.free.end(), r.slots.begin(), r.slots.end());
      note_use(x);
      if (static_cast<int>(x.free.size()) == s_.config->gpus_per_instance)
        became_idle(x);
      else
        changed();
    }
    sj.resources.clear();
  }

  // A running job is stopped early; it keeps the work up to `kept_ms`
  // of this run and waits again.
  void interrupt(size_t j, int64_t kept_ms) {
    auto& sj = s_.state[j];
    int64_t ran = s_.now_ms - sj.started_ms;
    double lost_gpu_s =
        static_cast<double>(ran - kept_ms) / 1000.0 * (*s_.jobs)[j].gpus;
    s_.result.gpu_hours_lost += lost_gpu_s / 3600.0;
    sj.remaining_ms -= kept_ms;
    ++sj.generation;
    ++s_.result.restarts;
    running_.erase(j);
    release(j);
    sj.phase = job_phase::waiting;
    auto pos = std::lower_bound(s_.waiting.begin(), s_.waiting.end(), j);
    s_.waiting.insert(pos, j);
    changed();
  }

  void terminate(size_t i) {
    auto& x = s_.instances[i];
    x.ended_ms = s_.now_ms;
    detail::end_leak(s_, x);
    std::vector<size_t> hit;
    for (auto j : running_)
      for (const auto& r : s_.state[j].resources)
        if (r.agent_id == x.id)
          hit.push_back(j);
    // Its jobs go back to the queue from their last checkpoint; a gang's
    // slots on other instances are released with them.
    for (auto j : hit) {
      int64_t ran = s_.now_ms - s_.state[j].started_ms;
      int64_t ck = s_.config->checkpoint_s * 1000;
      int64_t kept = ck > 0 ? ran / ck * ck : 0;
      interrupt(j, kept);
    }
    x.gone = true;
    s_.live.erase(std::lower_bound(s_.live.begin(), s_.live.end(), i));
    x.free.clear();
    x.idle_since_ms = -1;
    changed();
  }

  // One pass of the real pool scheduler over the pool as it is now.
  void schedule() {
    schedule_wanted_ = false;
    const auto& c = *s_.config;
    if (s_.waiting.empty())
      return;
    bool can_preempt =
        c.scheduler.policy == policy::scheduling_policy::fair_share
        || c.scheduler.preemption;
    size_t free_total = 0;
    auto snap = detail::pool_snapshot_of(s_, running_, free_total);
    // Exact shortcut: with no free slot and no preemption no pass can
    // place anything; new jobs still get one (it reports never-fits).
    if (free_total == 0 && !can_preempt && !submitted_)
      return;
    submitted_ = false;
    ++s_.result.scheduler_passes;
    auto r = policy::schedule_pool(snap, c.scheduler);
    for (const auto& p : r.placements)
      start(std::stoul(p.allocation_id.substr(1)), p.resources);
    for (const auto& id : r.preemptions) {
      auto j = std::stoul(id.substr(1));
      interrupt(j, s_.now_ms - s_.state[j].started_ms); // checkpoints
    }
    for (const auto& n : r.unschedulable)
      s_.state[std::stoul(n.allocation_id.substr(1))].phase = job_phase::never;
    s_.waiting.erase(std::remove_if(s_.waiting.begin(), s_.waiting.end(),
                                    [this](size_t j) {
                                      return s_.state[j].phase
                                             != job_phase::waiting;
                                    }),
                     s_.waiting.end());
  }

  void start(size_t j, const std::vector<policy::agent_slots>& where) {
    auto& sj = s_.state[j];
    for (const auto& r : where) {
      auto& x = s_.instances[std::stoul(r.agent_id.substr(2))];
      for (int slot : r.slots)
        x.free.erase(std::find(x.free.begin(), x.free.end(), slot));
      note_use(x);
      x.idle_since_ms = -1;
      detail::end_leak(s_, x);
    }
    sj.resources = where;
    sj.phase = job_phase::running;
    sj.started_ms = s_.now_ms;
    if (sj.first_start_ms < 0) {
      sj.first_start_ms = s_.now_ms;
      progress_ms_ = s_.now_ms;
    }
    running_.insert(j);
    push(s_.now_ms + sj.remaining_ms, ev_kind::finish, j, sj.generation);
  }

  // The fleet rule, at its loop's next tick.
  void maybe_decide() {
    decide_wanted_ = false;
    if (period_ms_ > 0) {
      int64_t due = (s_.now_ms + period_ms_ - 1) / period_ms_ * period_ms_;
      if (due != s_.now_ms) {
        wake_at(due);
        return;
      }
    }
    if (s_.policy->consolidate)
      consolidate();
    ++s_.result.scale_decisions;
    auto change = detail::decide_fleet(s_);
    for (auto i : change.terminate)
      if (!s_.instances[i].gone)
        terminate(i);
    launch(change.launch);
  }

  // Moves jobs off under-used instances: each checkpoints and restarts at
  // once on its new slots, move_cost_s later than it would have ended; the
  // instances left empty drain for move_cost_s (billed), then go.
  void consolidate() {
    const int64_t after_ms = s_.policy->consolidate_after_s * 1000;
    if (!s_.waiting.empty()
        || std::none_of(s_.live.begin(), s_.live.end(), [&](size_t i) {
             auto since = s_.instances[i].underused_since_ms;
             return since >= 0 && s_.now_ms - since >= after_ms;
           }))
      return;
    auto plan = detail::consolidation_of(s_, running_);
    const int64_t cost_ms = s_.config->move_cost_s * 1000;
    for (const auto& id : plan.emptied_agents) {
      auto i = std::stoul(id.substr(2));
      s_.instances[i].draining = true;
      s_.instances[i].underused_since_ms = -1;
      push(s_.now_ms + cost_ms, ev_kind::drained, i);
      ++s_.result.consolidated_instances;
    }
    for (const auto& m : plan.moves) {
      auto j = std::stoul(m.allocation_id.substr(1));
      auto& sj = s_.state[j];
      sj.remaining_ms += cost_ms - (s_.now_ms - sj.started_ms);
      ++sj.generation;
      running_.erase(j);
      release(j);
      start(j, m.to);
      ++s_.result.moves;
      s_.result.jobs_moved += sj.moves == 0 ? 1 : 0;
      s_.result.most_moves_of_a_job =
          std::max(s_.result.most_moves_of_a_job, ++sj.moves);
      s_.result.move_gpu_hours +=
          static_cast<double>(cost_ms) / 3.6e6 * (*s_.jobs)[j].gpus;
    }
  }

  void launch(int n) {
    const auto& c = *s_.config;
    for (int k = 0; k < n; ++k) {
      size_t i = s_.instances.size();
      detail::sim_instance x;
      x.id = "i-" + std::to_string(i);
      x.launched_ms = s_.now_ms;
      x.fails_boot =
          c.boot_failure_rate > 0 && s_.rng.uniform() < c.boot_failure_rate;
      double boot = c.boot_s + c.boot_jitter_s * (2 * s_.rng.uniform() - 1);
      s_.instances.push_back(std::move(x));
      s_.live.push_back(i);
      if (s_.instances[i].fails_boot) {
        ++s_.result.boot_failures;
        wake_at(s_.now_ms + c.max_agent_starting_s * 1000);
        wake_at(s_.now_ms + 15 * 60 * 1000);
      } else {
        push(s_.now_ms + std::llround(std::max(0.0, boot) * 1000),
             ev_kind::ready, i);
      }
      if (c.reclaims_per_instance_hour > 0) {
        double hours =
            -std::log(1 - s_.rng.uniform()) / c.reclaims_per_instance_hour;
        push(s_.now_ms + std::llround(hours * 3.6e6), ev_kind::reclaim, i);
      }
      ++s_.result.launched;
    }
    if (n > 0) {
      s_.last_launch_ms = s_.now_ms;
      wake_at(s_.now_ms + 10 * 60 * 1000); // cluster-autoscaler's delay
      s_.result.peak_instances = std::max(s_.result.peak_instances, s_.alive());
    }
  }

  void sample_until(int64_t t_ms) {
    while (next_sample_ms_ < t_ms
           && s_.result.series.size()
                  < static_cast<size_t>(s_.config->series_points) * 2) {
      series_point p;
      p.t_s = next_sample_ms_ / 1000;
      p.instances = s_.alive();
      for (auto j : running_)
        p.busy_gpus += (*s_.jobs)[j].gpus;
      p.queued = static_cast<int>(s_.waiting.size());
      s_.result.series.push_back(p);
      next_sample_ms_ += sample_every_ms_;
    }
  }

  run_result finish_run() {
    for (auto& x : s_.instances)
      if (!x.gone) {
        ++s_.result.instances_at_end;
        x.ended_ms = s_.now_ms;
        detail::end_leak(s_, x);
      }
    detail::total_up(s_);
    return std::move(s_.result);
  }

  sim_state s_;
  std::priority_queue<sim_event, std::vector<sim_event>,
                      std::greater<sim_event>>
      queue_;
  std::set<int64_t> wakes_;
  std::set<size_t> running_;
  uint64_t seq_ = 0;
  int down_ = 0;
  bool schedule_wanted_ = false;
  bool decide_wanted_ = false;
  bool submitted_ = false;
  int64_t period_ms_ = 0;
  policy::consolidation_config consolidation_;
  int64_t outage_start_ms_ = 0;
  int64_t horizon_ms_ = 0;
  long long same_time_ = 0;
  int64_t progress_ms_ = 0; ///< last submission, first start or finish
  int64_t no_progress_ms_ = 0;
  static constexpr int64_t stall_after_ms = 365LL * 86400 * 1000;
  static constexpr int64_t stall_without_progress_ms = 30LL * 86400 * 1000;
  int64_t sample_every_ms_ = 1000;
  int64_t next_sample_ms_ = 0;
};

} // namespace

} // namespace det::sim

namespace det::sim {

run_result simulate(const std::vector<job>& jobs, const sim_config& config,
                    const policy_spec& policy) {
  engine e{jobs, config, policy};
  return e.run();
}

} // namespace det::sim
