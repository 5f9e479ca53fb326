#include "inspect/views.hpp"

#include "inspect/records_rows.hpp"
#include "state/queries.hpp"

#include <ctime>

namespace det::inspection {

using nlohmann::json;

namespace {

constexpr view_kind all_kinds[] = {view_kind::pools,     view_kind::agents,
                                   view_kind::instances, view_kind::experiments,
                                   view_kind::trials,    view_kind::checkpoints,
                                   view_kind::records};

json opt_time(const std::optional<int64_t>& at_us) {
  return at_us ? time_json(*at_us) : json{};
}

json text_or_null(const std::string& s) {
  return s.empty() ? json{} : json(s);
}

json pool_rows(const state::cluster_state& s) {
  json rows = json::array();
  for (const auto& [name, p] : s.pools) {
    int64_t total = 0, used = 0, agents = 0;
    for (const auto* a : state::agents_of_pool(s, name)) {
      ++agents;
      total += static_cast<int64_t>(a->slots.size());
      used += state::used_slots(*a);
    }
    auto instances = state::instances_of_pool(s, name);
    rows.push_back(
        {{"name", name},
         {"provider", text_or_null(p.config.provider)},
         {"scheduler", p.config.scheduler},
         {"agents", agents},
         {"slots", total},
         {"slots_used", used},
         {"slots_free", state::free_slots_of_pool(s, name)},
         {"instances", static_cast<int64_t>(instances.size())},
         {"min_instances", p.config.min_instances},
         {"max_instances", p.config.max_instances},
         {"pending_trials",
          static_cast<int64_t>(state::pending_trials(s, name).size())},
         {"launch_failures", p.consecutive_launch_failures},
         {"last_launch_error", text_or_null(p.last_launch_error)}});
  }
  return rows;
}

json agent_rows(const state::cluster_state& s) {
  json rows = json::array();
  for (const auto& [id, a] : s.agents)
    rows.push_back({{"id", id},
                    {"pool", a.pool},
                    {"status", state::to_string(a.status)},
                    {"enabled", a.enabled},
                    {"draining", a.draining},
                    {"retiring", a.retiring},
                    {"slot_type", a.slot_type},
                    {"slots", static_cast<int64_t>(a.slots.size())},
                    {"slots_used", state::used_slots(a)},
                    {"instance_id", text_or_null(a.instance_id)},
                    {"connected_at", time_json(a.connected_at_us)},
                    {"idle_since", opt_time(a.idle_since_us)}});
  return rows;
}

json instance_rows(const state::cluster_state& s) {
  json rows = json::array();
  for (const auto& [id, i] : s.instances)
    rows.push_back({{"id", id},
                    {"pool", i.pool},
                    {"state", state::to_string(i.status)},
                    {"agent", text_or_null(i.agent_id)},
                    {"spot_request", text_or_null(i.spot_request_id)},
                    {"launch_seq", i.launch_seq},
                    {"launched_at", time_json(i.launched_at_us)},
                    {"running_at", time_json(i.running_at_us)},
                    {"idle_since", opt_time(state::instance_idle_since(s, i))},
                    {"terminate_reason", text_or_null(i.terminate_reason)}});
  return rows;
}

json launch_error_rows(const state::cluster_state& s) {
  json rows = json::array();
  for (const auto& [name, p] : s.pools)
    if (!p.last_launch_error.empty() || p.consecutive_launch_failures > 0)
      rows.push_back({{"pool", name},
                      {"consecutive_failures", p.consecutive_launch_failures},
                      {"kind", text_or_null(p.last_launch_error_kind)},
                      {"error", text_or_null(p.last_launch_error)},
                      {"at", time_json(p.last_launch_error_at_us)}});
  return rows;
}

json experiment_rows(const state::cluster_state& s) {
  json rows = json::array();
  for (const auto& [id, e] : s.experiments) {
    auto searcher = e.config.value("searcher", json::object());
    rows.push_back({{"id", id},
                    {"name", e.config.value("name", std::string{})},
                    {"state", state::to_string(e.status)},
                    {"pool", e.pool},
                    {"owner", e.owner},
                    {"searcher", searcher.value("name", std::string{})},
                    {"trials", static_cast<int64_t>(e.trial_ids.size())},
                    {"live_trials", state::live_trial_count(s, id)},
                    {"progress", e.progress},
                    {"priority", e.priority},
                    {"submitted_at", time_json(e.submitted_at_us)}});
  }
  return rows;
}

json trial_rows(const state::cluster_state& s) {
  json rows = json::array();
  for (const auto& [id, t] : s.trials) {
    std::string agents;
    if (t.allocation)
      for (const auto& a : t.allocation->assignments)
        agents += (agents.empty() ? "" : ",") + a.agent_id;
    const auto& m = t.metrics;
    rows.push_back(
        {{"id", id},
         {"experiment_id", t.experiment_id},
         {"state", state::to_string(t.status)},
         {"restarts", t.restarts},
         {"runs", t.runs},
         {"allocation", t.allocation ? json(t.allocation->id) : json{}},
         {"agents", text_or_null(agents)},
         {"steps_completed", m.steps_completed},
         {"best_validation",
          m.best_validation ? json(*m.best_validation) : json{}},
         {"latest_checkpoint",
          t.latest_checkpoint ? json(t.latest_checkpoint->uuid) : json{}},
         {"end_reason", text_or_null(t.end_reason)}});
  }
  return rows;
}

json checkpoint_rows(const state::cluster_state& s) {
  json rows = json::array();
  for (const auto& [id, t] : s.trials)
    if (t.latest_checkpoint)
      rows.push_back({{"uuid", t.latest_checkpoint->uuid},
                      {"trial_id", id},
                      {"experiment_id", t.experiment_id},
                      {"steps_completed", t.latest_checkpoint->steps_completed},
                      {"state", t.latest_checkpoint->state},
                      {"at", time_json(t.latest_checkpoint->at_us)},
                      {"metadata", t.latest_checkpoint->metadata}});
  return rows;
}

} // namespace

const char* to_string(view_kind k) {
  switch (k) {
  case view_kind::pools:
    return "pools";
  case view_kind::agents:
    return "agents";
  case view_kind::instances:
    return "instances";
  case view_kind::experiments:
    return "experiments";
  case view_kind::trials:
    return "trials";
  case view_kind::checkpoints:
    return "checkpoints";
  case view_kind::records:
    return "records";
  }
  return "?";
}

std::optional<view_kind> view_kind_from(const std::string& name) {
  for (auto k : all_kinds)
    if (name == to_string(k))
      return k;
  return std::nullopt;
}

std::string view_kind_names() {
  std::string out;
  for (auto k : all_kinds)
    out += (out.empty() ? "" : ", ") + std::string{to_string(k)};
  return out;
}

json time_json(int64_t at_us) {
  if (at_us <= 0)
    return nullptr;
  auto secs = static_cast<std::time_t>(at_us / 1000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

json view(const state::cluster_state& s, view_kind k) {
  switch (k) {
  case view_kind::pools:
    return {{"pools", pool_rows(s)}};
  case view_kind::agents:
    return {{"agents", agent_rows(s)}};
  case view_kind::instances:
    return {{"instances", instance_rows(s)},
            {"launch_errors", launch_error_rows(s)}};
  case view_kind::experiments:
    return {{"experiments", experiment_rows(s)}};
  case view_kind::trials:
    return {{"trials", trial_rows(s)}};
  case view_kind::checkpoints:
    return {{"checkpoints", checkpoint_rows(s)}};
  case view_kind::records:
    return record_rows(s);
  }
  return json::object();
}

std::vector<std::pair<std::string, std::vector<column>>>
view_tables(view_kind k) {
  switch (k) {
  case view_kind::pools:
    return {{"pools",
             {{"name", "POOL"},
              {"provider", "PROVIDER"},
              {"agents", "AGENTS"},
              {"slots", "SLOTS"},
              {"slots_used", "USED"},
              {"slots_free", "FREE"},
              {"instances", "INSTANCES"},
              {"max_instances", "MAX"},
              {"pending_trials", "PENDING TRIALS"},
              {"launch_failures", "LAUNCH FAILURES"},
              {"last_launch_error", "LAST LAUNCH ERROR"}}}};
  case view_kind::agents:
    return {{"agents",
             {{"id", "AGENT"},
              {"pool", "POOL"},
              {"status", "STATUS"},
              {"enabled", "ENABLED"},
              {"slots", "SLOTS"},
              {"slots_used", "USED"},
              {"instance_id", "INSTANCE"},
              {"connected_at", "CONNECTED"},
              {"idle_since", "IDLE SINCE"}}}};
  case view_kind::instances:
    return {{"instances",
             {{"id", "INSTANCE"},
              {"pool", "POOL"},
              {"state", "STATE"},
              {"agent", "AGENT"},
              {"launched_at", "LAUNCHED"},
              {"idle_since", "IDLE SINCE"},
              {"terminate_reason", "TERMINATE REASON"}}},
            {"launch_errors",
             {{"pool", "POOL"},
              {"consecutive_failures", "FAILURES"},
              {"kind", "KIND"},
              {"error", "LAUNCH ERROR"},
              {"at", "AT"}}}};
  case view_kind::experiments:
    return {{"experiments",
             {{"id", "ID"},
              {"name", "NAME"},
              {"state", "STATE"},
              {"pool", "POOL"},
              {"owner", "OWNER"},
              {"searcher", "SEARCHER"},
              {"trials", "TRIALS"},
              {"live_trials", "LIVE"},
              {"progress", "PROGRESS"},
              {"submitted_at", "SUBMITTED"}}}};
  case view_kind::trials:
    return {{"trials",
             {{"id", "ID"},
              {"experiment_id", "EXPERIMENT"},
              {"state", "STATE"},
              {"restarts", "RESTARTS"},
              {"allocation", "ALLOCATION"},
              {"agents", "AGENTS"},
              {"steps_completed", "STEPS"},
              {"best_validation", "BEST VALIDATION"},
              {"latest_checkpoint", "LATEST CHECKPOINT"},
              {"end_reason", "END REASON"}}}};
  case view_kind::checkpoints:
    return {{"checkpoints",
             {{"uuid", "UUID"},
              {"trial_id", "TRIAL"},
              {"experiment_id", "EXPERIMENT"},
              {"steps_completed", "STEPS"},
              {"at", "AT"}}}};
  case view_kind::records:
    return record_tables();
  }
  return {};
}

json summary(const state::cluster_state& s) {
  auto count = [](auto&& items, auto&& status_of) {
    json j{{"total", 0}};
    for (const auto& [id, x] : items) {
      j["total"] = j["total"].template get<int64_t>() + 1;
      std::string st = status_of(x);
      j[st] = j.value(st, int64_t{0}) + 1;
    }
    return j;
  };
  return {{"position", s.position},
          {"cluster_id", s.cluster_id},
          {"masters_started", s.masters_started},
          {"pools", count(s.pools, [](const auto&) { return "configured"; })},
          {"agents",
           count(s.agents,
                 [](const auto& a) { return state::to_string(a.status); })},
          {"instances",
           count(s.instances,
                 [](const auto& i) { return state::to_string(i.status); })},
          {"experiments",
           count(s.experiments,
                 [](const auto& e) { return state::to_string(e.status); })},
          {"trials", count(s.trials, [](const auto& t) {
             return state::to_string(t.status);
           })}};
}

} // namespace det::inspection
