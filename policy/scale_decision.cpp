#include "policy/scale_decision.hpp"

#include <algorithm>
#include <set>
#include <tuple>
#include <unordered_map>

namespace det::policy {

const char* to_string(termination_reason r) {
  switch (r) {
  case termination_reason::idle:
    return "idle";
  case termination_reason::never_connected:
    return "never_connected";
  case termination_reason::disconnected:
    return "disconnected";
  case termination_reason::stopped:
    return "stopped";
  case termination_reason::over_maximum:
    return "over_maximum";
  }
  return "unknown";
}

namespace {

/// Preference among bins with the same free slots: ready agents before
/// instances still starting; among idle agents the most recently idle first,
/// so that the long idle ones are the ones left over to terminate.
enum bin_rank : int {
  busy_agent,
  idle_agent,
  long_idle_agent,
  starting,
  fresh
};

struct bin {
  int free;
  int rank;
  long long tiebreak;
  size_t id; // index into bins
  friend bool operator<(const bin& a, const bin& b) {
    return std::tie(a.free, a.rank, a.tiebreak, a.id)
           < std::tie(b.free, b.rank, b.tiebreak, b.id);
  }
};

struct bin_info {
  int slots;
  long agent = -1; // index into in.agents, -1 for instances not connected
  bool used = false;
};

/// Packs demand into bins; counts the fresh instances it had to add.
class packer {
public:
  explicit packer(int slots_per_instance) : s_(slots_per_instance) {}

  void add(int free, int slots, int rank, long long tiebreak, long agent) {
    info_.push_back(bin_info{slots, agent, false});
    open_.insert(bin{free, rank, tiebreak, info_.size() - 1});
  }

  void place(int need) {
    if (need <= s_) {
      auto it = open_.lower_bound(bin{need, -1, 0, 0});
      if (it == open_.end()) {
        ++fresh_;
        add(s_ - need, s_, fresh, 0, -1);
        return;
      }
      auto b = *it;
      open_.erase(it);
      info_[b.id].used = true;
      b.free -= need;
      open_.insert(b);
      return;
    }
    // A gang: whole idle instances of this pool's size, fresh ones for the
    // rest.
    int n = need / s_;
    auto it = open_.lower_bound(bin{s_, -1, 0, 0});
    while (n > 0 && it != open_.end() && it->free == s_) {
      if (info_[it->id].slots != s_) {
        ++it;
        continue;
      }
      info_[it->id].used = true;
      auto b = *it;
      it = open_.erase(it);
      b.free = 0;
      open_.insert(b);
      --n;
    }
    fresh_ += n;
  }

  [[nodiscard]] int fresh_instances() const { return fresh_; }
  [[nodiscard]] const std::vector<bin_info>& bins() const { return info_; }

private:
  int s_;
  int fresh_ = 0;
  std::set<bin> open_;
  std::vector<bin_info> info_;
};

} // namespace

scale_decision decide_scale(const scale_input& in, const scale_config& config) {
  scale_decision out;
  const int s = std::max(config.slots_per_instance, 1);
  std::unordered_map<std::string, size_t> agent_of;
  for (size_t i = 0; i < in.agents.size(); ++i)
    agent_of.emplace(in.agents[i].id, i);

  // Sort instances into what they are now.
  std::vector<const instance_view*> starting, disconnected, connected;
  std::vector<bool> agent_is_instance(in.agents.size(), false);
  for (const auto& inst : in.instances) {
    if (inst.state == instance_state::stopped) {
      out.terminate.push_back({inst.id, termination_reason::stopped});
      continue;
    }
    if (inst.state != instance_state::starting
        && inst.state != instance_state::running)
      continue; // on its way out; not counted
    if (auto it = agent_of.find(inst.id); it != agent_of.end()) {
      agent_is_instance[it->second] = true;
      connected.push_back(&inst);
    } else if (inst.disconnected_since) {
      if (!inst.busy
          && in.now - *inst.disconnected_since
                 >= config.max_disconnected_period)
        out.terminate.push_back({inst.id, termination_reason::disconnected});
      else
        disconnected.push_back(&inst); // may come back; no capacity meanwhile
    } else if (in.now - inst.launched < config.max_agent_starting_period) {
      starting.push_back(&inst);
    } else {
      out.terminate.push_back({inst.id, termination_reason::never_connected});
    }
  }

  // Capacity we have or already wait for.
  packer pack{s};
  auto long_idle = [&](const scale_agent& a) {
    return a.idle_since && a.free_slots >= a.slots
           && in.now - *a.idle_since >= config.max_idle_agent_period;
  };
  for (size_t i = 0; i < in.agents.size(); ++i) {
    const auto& a = in.agents[i];
    if (!a.schedulable || a.free_slots <= 0)
      continue;
    int rank = !a.idle_since ? busy_agent
                             : (long_idle(a) ? long_idle_agent : idle_agent);
    // More recently idle first: a later idle_since sorts first.
    long long tiebreak =
        a.idle_since ? -a.idle_since->time_since_epoch().count() : 0;
    pack.add(std::min(a.free_slots, a.slots), a.slots, rank, tiebreak,
             static_cast<long>(i));
  }
  for (const auto* inst : starting)
    pack.add(s, s, bin_rank::starting,
             -inst->launched.time_since_epoch().count(), -1);

  // Demand, biggest first; what can never fit is reported, not bought.
  const long long max_slots = static_cast<long long>(config.max_instances) * s;
  std::vector<int> needs;
  for (size_t i = 0; i < in.pending_slots.size(); ++i) {
    int k = in.pending_slots[i];
    if (k <= 0)
      continue;
    if (k > max_slots || (k > s && k % s != 0)) {
      out.never_fit.push_back(i);
      continue;
    }
    needs.push_back(k);
  }
  std::sort(needs.begin(), needs.end(), std::greater<>{});
  for (int k : needs)
    pack.place(k);
  out.wanted = pack.fresh_instances();

  // Idle agents nobody needs, longest idle first, down to min_instances.
  int alive = static_cast<int>(connected.size() + starting.size()
                               + disconnected.size());
  std::vector<size_t> idle_unused;
  for (const auto& b : pack.bins())
    if (b.agent >= 0 && !b.used
        && agent_is_instance[static_cast<size_t>(b.agent)]
        && long_idle(in.agents[static_cast<size_t>(b.agent)]))
      idle_unused.push_back(static_cast<size_t>(b.agent));
  // Draining or disabled idle agents have no bin but may go as well; one
  // retiring goes as soon as it is idle.
  for (size_t i = 0; i < in.agents.size(); ++i) {
    const auto& a = in.agents[i];
    bool empty = a.idle_since && a.free_slots >= a.slots;
    if (agent_is_instance[i] && !a.schedulable
        && (long_idle(a) || (a.retiring && empty)))
      idle_unused.push_back(i);
  }
  std::sort(idle_unused.begin(), idle_unused.end(), [&](size_t x, size_t y) {
    return std::tie(*in.agents[x].idle_since, in.agents[x].id)
           < std::tie(*in.agents[y].idle_since, in.agents[y].id);
  });
  for (auto i : idle_unused) {
    if (alive <= config.min_instances)
      break;
    out.terminate.push_back({in.agents[i].id, termination_reason::idle});
    --alive;
  }

  // Over the maximum (it was lowered): starting ones first, newest first,
  // then the disconnected, then the newest connected.
  if (alive > config.max_instances) {
    auto newest_first = [](const instance_view* a, const instance_view* b) {
      return a->launched > b->launched;
    };
    std::vector<const instance_view*> order;
    for (auto* group : {&starting, &disconnected, &connected}) {
      auto v = *group;
      std::sort(v.begin(), v.end(), newest_first);
      order.insert(order.end(), v.begin(), v.end());
    }
    for (const auto* inst : order) {
      if (alive <= config.max_instances)
        break;
      bool already = std::any_of(
          out.terminate.begin(), out.terminate.end(),
          [&](const termination& t) { return t.instance_id == inst->id; });
      if (already)
        continue;
      out.terminate.push_back({inst->id, termination_reason::over_maximum});
      --alive;
    }
  }

  int lo = config.min_instances - alive;
  int hi = config.max_instances - alive;
  out.launch = std::max(0, std::min(std::max(lo, out.wanted), hi));
  out.for_minimum = std::max(0, std::min(lo, hi));
  return out;
}

} // namespace det::policy
