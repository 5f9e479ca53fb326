#include "state/queries.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>

namespace det::state {

namespace {

template <class Map, class Key>
auto find_in(const Map& m, const Key& k) -> decltype(&m.begin()->second) {
  auto i = m.find(k);
  return i == m.end() ? nullptr : &i->second;
}

constexpr int64_t us_per_s = 1'000'000;

/// FNV-1a, for shortening long client tokens deterministically.
uint64_t fnv1a(const std::string& x) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : x) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

} // namespace

std::string allocation_id_for(int64_t trial_id, int64_t run) {
  return std::to_string(trial_id) + "." + std::to_string(run);
}

namespace {
constexpr const char* task_uuid_prefix = "00000000-0000-4000-8000-";
constexpr size_t task_uuid_hex = 12;

std::optional<int64_t> digits(const std::string& text, size_t from, size_t to) {
  if (from >= to || to - from > 15)
    return std::nullopt;
  int64_t n = 0;
  for (size_t i = from; i < to; ++i) {
    if (text[i] < '0' || text[i] > '9')
      return std::nullopt;
    n = n * 10 + (text[i] - '0');
  }
  return n;
}
} // namespace

std::string task_id_of(int64_t experiment_id, int64_t trial_id) {
  char hex[task_uuid_hex + 1];
  std::snprintf(hex, sizeof hex, "%012llx",
                static_cast<unsigned long long>(trial_id) & 0xffffffffffffULL);
  return std::to_string(experiment_id) + "." + task_uuid_prefix + hex;
}

std::optional<int64_t> trial_of_task_id(const std::string& text) {
  auto dot = text.find('.');
  if (dot == std::string::npos) {
    auto n = digits(text, 0, text.size());
    return n && *n > 0 ? n : std::nullopt;
  }
  std::string prefix = task_uuid_prefix;
  if (!digits(text, 0, dot)
      || text.size() != dot + 1 + prefix.size() + task_uuid_hex
      || text.compare(dot + 1, prefix.size(), prefix) != 0)
    return std::nullopt;
  int64_t n = 0;
  for (size_t i = dot + 1 + prefix.size(); i < text.size(); ++i) {
    char c =
        static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
    int v = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                   : -1;
    if (v < 0)
      return std::nullopt;
    n = n * 16 + v;
  }
  if (n < 1)
    return std::nullopt;
  return n;
}

std::string next_allocation_id(const trial_info& t) {
  return allocation_id_for(t.id, t.runs + 1);
}

std::string make_client_token(const std::string& cluster_id,
                              const std::string& pool, int64_t launch_seq) {
  auto token =
      "det-" + cluster_id + "-" + pool + "-" + std::to_string(launch_seq);
  bool printable = std::all_of(token.begin(), token.end(),
                               [](char c) { return c > 32 && c < 127; });
  if (token.size() <= 64 && printable)
    return token;
  char hash[17];
  std::snprintf(
      hash, sizeof(hash), "%016llx",
      static_cast<unsigned long long>(fnv1a(cluster_id + "/" + pool)));
  return std::string{"det-"} + hash + "-" + std::to_string(launch_seq);
}

int64_t next_launch_seq(const cluster_state& s, const std::string& pool) {
  auto p = find_pool(s, pool);
  return p == nullptr ? 0 : p->launches_requested + 1;
}

int64_t next_experiment_id(const cluster_state& s) {
  return std::max(s.last_experiment_id,
                  s.experiments.empty() ? 0 : s.experiments.rbegin()->first)
         + 1;
}

int64_t next_trial_id(const cluster_state& s) {
  return std::max(s.last_trial_id,
                  s.trials.empty() ? 0 : s.trials.rbegin()->first)
         + 1;
}

const pool_info* find_pool(const cluster_state& s, const std::string& name) {
  return find_in(s.pools, name);
}
const agent_info* find_agent(const cluster_state& s, const std::string& id) {
  return find_in(s.agents, id);
}
const instance_info* find_instance(const cluster_state& s,
                                   const std::string& id) {
  return find_in(s.instances, id);
}
const experiment_info* find_experiment(const cluster_state& s, int64_t id) {
  return find_in(s.experiments, id);
}
const trial_info* find_trial(const cluster_state& s, int64_t id) {
  return find_in(s.trials, id);
}
bool on_terminating_instance(const cluster_state& s, const agent_info& a) {
  auto i = find_instance(s, a.instance_id.empty() ? a.id : a.instance_id);
  return i != nullptr && i->status == instance_status::terminating;
}

const trial_info* find_listed_trial(const cluster_state& s, int64_t id) {
  auto t = find_in(s.trials, id);
  return t != nullptr && !t->deleted ? t : nullptr;
}

const experiment_info*
find_unmanaged_experiment(const cluster_state& s,
                          const std::string& external_id) {
  if (external_id.empty())
    return nullptr;
  for (const auto& [id, e] : s.experiments)
    if (e.unmanaged && e.external_id == external_id)
      return &e;
  return nullptr;
}

const trial_info* find_unmanaged_trial(const cluster_state& s,
                                       const experiment_info& e,
                                       const std::string& external_id) {
  if (external_id.empty())
    return nullptr;
  for (auto id : e.trial_ids)
    if (auto t = find_trial(s, id);
        t != nullptr && t->external_id == external_id)
      return t;
  return nullptr;
}

const trial_info* trial_of_allocation(const cluster_state& s,
                                      const std::string& allocation_id) {
  auto i = s.allocations.find(allocation_id);
  return i == s.allocations.end() ? nullptr : find_trial(s, i->second);
}

const task_info* task_of_allocation(const cluster_state& s,
                                    const std::string& allocation_id) {
  auto dot = allocation_id.rfind('.');
  if (dot == std::string::npos)
    return nullptr;
  auto t = s.tasks.find(allocation_id.substr(0, dot));
  if (t == s.tasks.end() || !holds_allocation(t->second)
      || t->second.allocation_id != allocation_id)
    return nullptr;
  return &t->second;
}

int32_t used_slots(const agent_info& a) {
  return static_cast<int32_t>(
      std::count_if(a.slots.begin(), a.slots.end(),
                    [](const std::string& x) { return !x.empty(); }));
}

int32_t free_slots(const agent_info& a) {
  return static_cast<int32_t>(free_slot_ids(a).size());
}

int64_t slot_capacity(const agent_info& a) {
  auto n = static_cast<int64_t>(a.slots.size());
  return a.slot_limit ? std::min<int64_t>(n, *a.slot_limit) : n;
}

std::vector<int64_t> free_slot_ids(const agent_info& a) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < static_cast<size_t>(slot_capacity(a)); ++i)
    if (a.slots[i].empty()
        && !std::binary_search(a.disabled_slots.begin(), a.disabled_slots.end(),
                               static_cast<int64_t>(i)))
      out.push_back(static_cast<int64_t>(i));
  return out;
}

bool schedulable(const agent_info& a) {
  return a.status == agent_status::connected && a.enabled;
}

std::vector<const agent_info*> agents_of_pool(const cluster_state& s,
                                              const std::string& pool) {
  std::vector<const agent_info*> out;
  for (const auto& [id, a] : s.agents)
    if (a.pool == pool)
      out.push_back(&a);
  return out;
}

int64_t free_slots_of_pool(const cluster_state& s, const std::string& pool) {
  int64_t n = 0;
  for (const auto* a : agents_of_pool(s, pool))
    if (schedulable(*a))
      n += free_slots(*a);
  return n;
}

std::vector<std::string> agents_past_reconnect_deadline(const cluster_state& s,
                                                        int64_t now_us) {
  std::vector<std::string> out;
  for (const auto& [id, a] : s.agents)
    if (a.status == agent_status::disconnected
        && a.reconnect_deadline_us <= now_us)
      out.push_back(id);
  return out;
}

std::vector<std::string> allocations_on_agent(const cluster_state& s,
                                              const std::string& agent_id) {
  std::vector<std::string> out;
  if (auto a = find_agent(s, agent_id))
    for (const auto& x : a->slots)
      if (!x.empty() && std::find(out.begin(), out.end(), x) == out.end())
        out.push_back(x);
  return out;
}

std::vector<const trial_info*> trials_of_experiment(const cluster_state& s,
                                                    int64_t experiment_id) {
  std::vector<const trial_info*> out;
  if (auto e = find_experiment(s, experiment_id))
    for (auto id : e->trial_ids)
      if (auto t = find_trial(s, id))
        out.push_back(t);
  return out;
}

std::vector<int64_t> listed_trial_ids(const cluster_state& s,
                                      const experiment_info& e) {
  std::vector<int64_t> out;
  out.reserve(e.trial_ids.size());
  for (auto id : e.trial_ids)
    if (find_listed_trial(s, id) != nullptr)
      out.push_back(id);
  return out;
}

std::vector<const trial_info*> listed_trials_of(const cluster_state& s,
                                                int64_t experiment_id) {
  auto out = trials_of_experiment(s, experiment_id);
  out.erase(std::remove_if(out.begin(), out.end(),
                           [](const trial_info* t) { return t->deleted; }),
            out.end());
  return out;
}

std::vector<const trial_info*> offered_trials(const cluster_state& s,
                                              const experiment_info& e) {
  std::vector<const trial_info*> out;
  auto trials = trials_of_experiment(s, e.id);
  // With a max_slots limit, no more pending trials than fit under it
  // beside those holding slots.
  int64_t held = 0;
  if (e.max_slots > 0)
    for (const auto* t : trials)
      if (t->allocation)
        for (const auto& a : t->allocation->assignments)
          held += static_cast<int64_t>(a.slots.size());
  for (const auto* t : trials) {
    if (t->status != trial_status::pending)
      continue;
    if (e.max_slots > 0) {
      if (held + e.slots_per_trial > e.max_slots)
        break;
      held += e.slots_per_trial;
    }
    out.push_back(t);
  }
  return out;
}

std::vector<const trial_info*> pending_trials(const cluster_state& s,
                                              const std::string& pool) {
  std::vector<std::pair<int32_t, const trial_info*>> keyed;
  for (const auto& [id, e] : s.experiments) {
    if (e.pool != pool || e.status != experiment_status::active
        || e.model_definition_pending || e.unmanaged)
      continue;
    for (const auto* t : offered_trials(s, e))
      keyed.emplace_back(e.priority, t);
  }
  // Experiments and their trials are visited in id order already.
  std::stable_sort(
      keyed.begin(), keyed.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const trial_info*> out;
  for (const auto& k : keyed)
    out.push_back(k.second);
  return out;
}

std::vector<const trial_info*> allocated_trials(const cluster_state& s,
                                                const std::string& pool) {
  std::vector<const trial_info*> out;
  for (const auto& [id, t] : s.trials)
    if (auto e = find_experiment(s, t.experiment_id);
        t.allocation && e != nullptr && e->pool == pool)
      out.push_back(&t);
  return out;
}

int64_t live_trial_count(const cluster_state& s, int64_t experiment_id) {
  int64_t n = 0;
  for (const auto* t : trials_of_experiment(s, experiment_id))
    n += is_terminal(t->status) ? 0 : 1;
  return n;
}

std::vector<const instance_info*> instances_of_pool(const cluster_state& s,
                                                    const std::string& pool) {
  std::vector<const instance_info*> out;
  for (const auto& [id, i] : s.instances)
    if (i.pool == pool)
      out.push_back(&i);
  return out;
}

int64_t outstanding_launch_count(const cluster_state& s,
                                 const std::string& pool) {
  int64_t n = 0;
  if (auto p = find_pool(s, pool))
    for (const auto& [seq, l] : p->launches)
      n += l.count - l.seen;
  return n;
}

std::optional<int64_t> instance_idle_since(const cluster_state& s,
                                           const instance_info& i) {
  auto a = find_agent(s, i.agent_id);
  if (a == nullptr)
    return std::nullopt;
  return a->idle_since_us;
}

std::vector<const instance_info*> long_idle_instances(const cluster_state& s,
                                                      const std::string& pool,
                                                      int64_t now_us) {
  auto p = find_pool(s, pool);
  if (p == nullptr)
    return {};
  auto limit = p->config.max_idle_agent_period_s * us_per_s;
  std::vector<std::pair<int64_t, const instance_info*>> keyed;
  for (const auto* i : instances_of_pool(s, pool)) {
    auto since = instance_idle_since(s, *i);
    if (i->status != instance_status::terminating && since
        && now_us - *since > limit)
      keyed.emplace_back(*since, i);
  }
  std::stable_sort(
      keyed.begin(), keyed.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const instance_info*> out;
  for (const auto& k : keyed)
    out.push_back(k.second);
  return out;
}

std::vector<const instance_info*>
instances_past_starting_period(const cluster_state& s, const std::string& pool,
                               int64_t now_us) {
  auto p = find_pool(s, pool);
  if (p == nullptr)
    return {};
  auto limit = p->config.max_agent_starting_period_s * us_per_s;
  std::vector<const instance_info*> out;
  for (const auto* i : instances_of_pool(s, pool))
    if (i->status != instance_status::terminating && i->agent_id.empty()
        && !i->agent_gone_since_us && now_us - i->launched_at_us > limit)
      out.push_back(i);
  return out;
}

bool checkpoint_kept(const checkpoint_info& c) {
  return c.state != "deleted";
}

int64_t checkpoint_bytes(const checkpoint_info& c) {
  if (!checkpoint_kept(c))
    return 0;
  auto r = c.metadata.find("resources");
  if (r == c.metadata.end() || !r->is_object())
    return 0;
  int64_t total = 0;
  for (const auto& [path, size] : r->items()) {
    if (size.is_number_integer() && size.get<int64_t>() > 0) {
      total += size.get<int64_t>();
    } else if (size.is_string()) {
      const auto& text = size.get_ref<const std::string&>();
      if (text.empty() || text.size() > 18
          || !std::all_of(text.begin(), text.end(),
                          [](char ch) { return ch >= '0' && ch <= '9'; }))
        continue;
      total += std::stoll(text);
    }
  }
  return total;
}

std::vector<std::string> trial_task_ids(const trial_info& t) {
  std::vector<std::string> out{task_id_of(t.experiment_id, t.id)};
  for (size_t n = 1; n <= t.continued_at_us.size(); ++n)
    out.push_back(out.front() + "-" + std::to_string(n));
  return out;
}

std::optional<std::pair<int64_t, size_t>>
trial_run_of_task_id(const std::string& text) {
  if (auto id = trial_of_task_id(text))
    return std::pair<int64_t, size_t>{*id, 0};
  auto dash = text.rfind('-');
  if (dash == std::string::npos || dash + 1 >= text.size()
      || text.size() - dash > 10)
    return std::nullopt;
  auto n = digits(text, dash + 1, text.size());
  auto id = trial_of_task_id(text.substr(0, dash));
  if (!n || *n < 1 || !id)
    return std::nullopt;
  return std::pair<int64_t, size_t>{*id, static_cast<size_t>(*n)};
}

std::vector<std::string> task_subtree(const cluster_state& s,
                                      const std::string& id) {
  if (s.tasks.count(id) == 0)
    return {};
  // A child names a parent that existed when it was launched, so the links
  // hold no cycle; `seen` keeps even a bad log from looping.
  std::vector<std::string> out{id};
  std::set<std::string> seen{id};
  for (size_t i = 0; i < out.size(); ++i)
    for (const auto& [tid, t] : s.tasks)
      if (t.parent_id == out[i] && seen.insert(tid).second)
        out.push_back(tid);
  return out;
}

std::string task_root(const cluster_state& s, const std::string& id) {
  auto root = id;
  std::set<std::string> seen{id};
  for (auto t = s.tasks.find(root); t != s.tasks.end();
       t = s.tasks.find(root)) {
    const auto& parent = t->second.parent_id;
    if (parent.empty() || s.tasks.count(parent) == 0
        || !seen.insert(parent).second)
      break;
    root = parent;
  }
  return root;
}

} // namespace det::state
