#include "read/fragments.hpp"

#include "state/queries.hpp"

#include <type_traits>
#include <utility>

namespace det::read {

namespace {

template <class T, class = void> struct has_experiment_id : std::false_type {};
template <class T>
struct has_experiment_id<T,
                         std::void_t<decltype(std::declval<T>().experiment_id)>>
    : std::true_type {};

template <class T, class = void> struct has_trial_id : std::false_type {};
template <class T>
struct has_trial_id<T, std::void_t<decltype(std::declval<T>().trial_id)>>
    : std::true_type {};

template <class T, class = void> struct has_agent_id : std::false_type {};
template <class T>
struct has_agent_id<T, std::void_t<decltype(std::declval<T>().agent_id)>>
    : std::true_type {};

template <class T, class = void> struct has_allocation_id : std::false_type {};
template <class T>
struct has_allocation_id<T,
                         std::void_t<decltype(std::declval<T>().allocation_id)>>
    : std::true_type {};

template <class T, class = void> struct has_task_id : std::false_type {};
template <class T>
struct has_task_id<T, std::void_t<decltype(std::declval<T>().task_id)>>
    : std::true_type {};

template <class T, class = void> struct has_assignments : std::false_type {};
template <class T>
struct has_assignments<T, std::void_t<decltype(std::declval<T>().assignments)>>
    : std::true_type {};

/// Users and sessions, a trial's metrics: no experiment or agent row shows
/// them (a row counts its trials' checkpoints: trial_checkpointed touches it)
/// (a row that starts showing one must leave this list; read_model_test
/// compares rows with fresh renders after random events of every type). Metrics
/// are most of a busy cluster's events: kept rows and answers outlive them.
template <class T>
constexpr bool touches_no_row = std::disjunction_v<
    std::is_same<T, user_created>, std::is_same<T, user_password_changed>,
    std::is_same<T, session_started>, std::is_same<T, session_ended>,
    std::is_same<T, access_token_created>,
    std::is_same<T, access_token_changed>, std::is_same<T, cluster_message_set>,
    std::is_same<T, trial_metrics_reported>, std::is_same<T, template_saved>,
    std::is_same<T, template_deleted>, std::is_same<T, pool_bindings_set>,
    std::is_same<T, workspace_namespace_bound>,
    std::is_same<T, config_policies_set>, std::is_same<T, model_saved>,
    std::is_same<T, model_deleted>, std::is_same<T, model_version_saved>,
    std::is_same<T, model_version_deleted>>;

/// A trial's experiment and the agents holding its allocation.
void add_trial(const state::cluster_state& s, int64_t trial_id, touched& out) {
  auto t = state::find_trial(s, trial_id);
  if (t == nullptr)
    return;
  out.experiments.insert(t->experiment_id);
  if (t->allocation)
    for (const auto& a : t->allocation->assignments)
      out.agents.insert(a.agent_id);
}

/// An agent and the trials in its slots (their experiments and agents).
void add_agent(const state::cluster_state& s, const std::string& id,
               touched& out) {
  out.agents.insert(id);
  auto a = s.agents.find(id);
  if (a == s.agents.end())
    return;
  // Its trials' experiments, and every agent of their allocations (an
  // agent lost ends an allocation on all its agents).
  for (const auto& alloc : a->second.slots)
    if (!alloc.empty())
      if (auto t = state::trial_of_allocation(s, alloc))
        add_trial(s, t->id, out);
}

} // namespace

void touched_records(const state::cluster_state& s, const domain_event& ev,
                     touched& out) {
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (touches_no_row<T>) {
          return;
        } else {
          bool named = false;
          if constexpr (has_experiment_id<T>::value) {
            out.experiments.insert(x.experiment_id);
            // An experiment's event may change its trials' allocations
            // (a kill, a delete): the agents holding them are touched too.
            for (auto t : state::trials_of_experiment(s, x.experiment_id))
              if (t->allocation)
                for (const auto& a : t->allocation->assignments)
                  out.agents.insert(a.agent_id);
            named = true;
          }
          if constexpr (has_trial_id<T>::value) {
            add_trial(s, x.trial_id, out);
            named = true;
          }
          if constexpr (has_allocation_id<T>::value) {
            if (auto t = state::trial_of_allocation(s, x.allocation_id))
              add_trial(s, t->id, out);
            named = true;
          }
          if constexpr (has_agent_id<T>::value) {
            add_agent(s, x.agent_id, out);
            named = true;
          }
          if constexpr (has_task_id<T>::value) {
            // A task's events change the agent row its allocation is on
            // (the task keeps its agent after it ends).
            if (auto t = s.tasks.find(x.task_id);
                t != s.tasks.end() && !t->second.agent_id.empty())
              add_agent(s, t->second.agent_id, out);
            named = true;
          }
          if constexpr (has_assignments<T>::value)
            for (const auto& a : x.assignments)
              out.agents.insert(a.agent_id);
          if (!named)
            out.everything = true;
        }
      },
      ev);
}

row& fragments::experiment(int64_t id,
                           const std::function<std::string()>& render) {
  auto i = experiments_.find(id);
  if (i == experiments_.end())
    i = experiments_.emplace(id, row{render(), std::nullopt}).first;
  return i->second;
}

row& fragments::agent(const std::string& id,
                      const std::function<std::string()>& render) {
  auto i = agents_.find(id);
  if (i == agents_.end())
    i = agents_.emplace(id, row{render(), std::nullopt}).first;
  return i->second;
}

std::shared_ptr<const std::string>
fragments::answer(rows_of kind, const std::string& key,
                  const std::function<std::string()>& build) {
  // Kept answers are few (a page size or filter a client repeats) and
  // bounded in bytes: past the bound they are all dropped and kept anew.
  constexpr size_t max_bytes = 64 << 20;
  constexpr size_t max_answers = 256;
  auto k = static_cast<size_t>(kind);
  auto& kept = answers_[k];
  if (auto i = kept.find(key); i != kept.end())
    return i->second;
  auto text = std::make_shared<const std::string>(build());
  if (answer_bytes_[k] + text->size() > max_bytes
      || kept.size() >= max_answers) {
    kept.clear();
    answer_bytes_[k] = 0;
  }
  answer_bytes_[k] += text->size();
  kept.emplace(key, text);
  return text;
}

void fragments::drop(const touched& t) {
  auto forget_answers = [this](rows_of kind) {
    answers_[static_cast<size_t>(kind)].clear();
    answer_bytes_[static_cast<size_t>(kind)] = 0;
  };
  if (t.everything) {
    experiments_.clear();
    agents_.clear();
    forget_answers(rows_of::experiments);
    forget_answers(rows_of::agents);
    return;
  }
  for (auto id : t.experiments)
    experiments_.erase(id);
  for (const auto& id : t.agents)
    agents_.erase(id);
  if (!t.experiments.empty())
    forget_answers(rows_of::experiments);
  if (!t.agents.empty())
    forget_answers(rows_of::agents);
}

} // namespace det::read
