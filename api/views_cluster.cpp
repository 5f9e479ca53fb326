#include "api/views_cluster.hpp"

#include "api/pool_views.hpp"
#include "api/task_views.hpp"
#include "api/views.hpp"
#include "conf/redact.hpp"
#include "messages/priority.hpp"
#include "state/queries.hpp"

#include <algorithm>

namespace det::api {

using nlohmann::json;

namespace {

std::string device_type(const std::string& slot_type) {
  if (slot_type == "cuda")
    return "TYPE_CUDA";
  if (slot_type == "rocm")
    return "TYPE_ROCM";
  return "TYPE_CPU";
}

} // namespace

json agent_json(const state::cluster_state& s, const state::agent_info& a) {
  json slots = json::object();
  json containers = json::object();
  int64_t disabled = 0;
  int64_t used = 0;
  for (size_t i = 0; i < a.slots.size(); ++i) {
    auto id = std::to_string(i);
    bool slot_on =
        a.enabled
        && !std::binary_search(a.disabled_slots.begin(), a.disabled_slots.end(),
                               static_cast<int64_t>(i));
    json slot{{"id", id},
              {"enabled", slot_on},
              {"draining", a.draining || (!slot_on && !a.slots[i].empty())},
              {"device",
               {{"id", static_cast<int64_t>(i)},
                {"brand", a.slot_type},
                {"uuid", a.id + "-" + id},
                {"type", device_type(a.slot_type)}}}};
    if (!a.slots[i].empty()) {
      ++used;
      auto t = state::trial_of_allocation(s, a.slots[i]);
      bool running = t != nullptr && t->status != state::trial_status::assigned;
      if (auto task = state::task_of_allocation(s, a.slots[i]))
        running = task->state != state::task_state::starting;
      json c{{"id", a.slots[i]},
             {"state", running ? "STATE_RUNNING" : "STATE_STARTING"},
             {"permissionDenied", false},
             {"devices", json::array()}};
      slot["container"] = c;
      containers[a.slots[i]] = c;
    } else {
      slot["container"] = nullptr; // upstream's free slot
    }
    if (!slot_on)
      ++disabled;
    slots[id] = std::move(slot);
  }
  auto n = static_cast<int64_t>(a.slots.size());
  json stats{{"total", n},
             {"disabled", disabled},
             {"draining", a.draining ? n : 0},
             {"states", {{"STATE_RUNNING", used}}}};
  return {{"id", a.id},
          {"version", "0.38.1"},
          {"registeredTime", rfc3339(a.connected_at_us)},
          {"slots", std::move(slots)},
          {"containers", std::move(containers)},
          {"resourcePools", json::array({a.pool})},
          {"enabled", a.enabled},
          {"draining", a.draining},
          {"addresses", json::array()},
          {"slotStats",
           {{"typeStats", {{device_type(a.slot_type), stats}}},
            {"brandStats", {{a.slot_type, stats}}}}}};
}

namespace {

/// The id of a checkpoint storage: the same for every experiment that
/// saves to the same place (its config), positive, stable across restarts
/// (FNV-1a of the config's text, in 31 bits; upstream numbers them in a
/// table of its own).
int64_t storage_id_of(const json& storage) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char ch : storage.dump()) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return static_cast<int64_t>(h & 0x7fffffffu) + 1;
}

/// A checkpoint's metadata as its trial and users wrote it: its files are
/// shown apart, as `resources`.
json user_metadata(const state::checkpoint_info& c) {
  if (!c.metadata.is_object() || !c.metadata.contains("resources"))
    return c.metadata;
  auto out = c.metadata;
  out.erase("resources");
  return out;
}

json checkpoint_json(const state::cluster_state& s, const state::trial_info& t,
                     const state::checkpoint_info& c) {
  json resources = json::object();
  if (auto r = c.metadata.find("resources");
      r != c.metadata.end() && r->is_object())
    for (const auto& [path, size] : r->items())
      resources[path] =
          size.is_string() ? size.get<std::string>() : size.dump();
  json training{{"trialId", t.id},
                {"experimentId", t.experiment_id},
                {"hparams", t.hparams},
                {"trainingMetrics", nullptr},
                {"validationMetrics", nullptr}};
  json storage_id = nullptr;
  if (auto e = state::find_experiment(s, t.experiment_id)) {
    // Anyone who may list the checkpoint sees this: the storage's keys
    // stay with the trials (conf/redact.hpp).
    training["experimentConfig"] = conf::without_secrets(e->config);
    storage_id =
        storage_id_of(e->config.value("checkpoint_storage", json::object()));
    auto metric =
        e->config.value("searcher", json::object()).value("metric", "");
    // The validation reported at this checkpoint's step.
    const auto& v = c.validation_metrics;
    if (v.is_object()) {
      training["validationMetrics"] = {{"avgMetrics", v}};
      if (auto m = v.find(metric); m != v.end() && m->is_number())
        training["searcherMetric"] = m->get<double>();
    }
  }
  return {{"uuid", c.uuid},
          {"taskId", state::task_id_of(t.experiment_id, t.id)},
          {"allocationId", ""},
          {"reportTime", rfc3339(c.at_us)},
          {"state", checkpoint_state_name(c)},
          {"resources", std::move(resources)},
          {"metadata", user_metadata(c)},
          {"training", std::move(training)},
          {"storageId", storage_id}};
}

} // namespace

const char* checkpoint_state_name(const state::checkpoint_info& c) {
  return c.state == "deleted"             ? "STATE_DELETED"
         : c.state == "partially_deleted" ? "STATE_PARTIALLY_DELETED"
                                          : "STATE_COMPLETED";
}

json metrics_workload(const json& metrics, int64_t steps, int64_t at_us) {
  return {{"metrics", {{"avgMetrics", metrics}, {"batchMetrics", nullptr}}},
          {"numInputs", 0},
          {"totalBatches", steps},
          {"endTime", rfc3339(at_us)}};
}

std::pair<int64_t, int64_t> page_bounds(int64_t total, page p) {
  auto start = std::clamp<int64_t>(p.offset, 0, total);
  auto end = p.limit > 0 ? std::min(total, start + p.limit) : total;
  return {start, end};
}

json pagination_of(page p, int64_t total) {
  auto [start, end] = page_bounds(total, p);
  return {{"offset", p.offset},
          {"limit", p.limit},
          {"startIndex", start},
          {"endIndex", end},
          {"total", total}};
}

namespace {

json page_envelope(const char* key, json items, page p, int64_t total) {
  return {{key, std::move(items)}, {"pagination", pagination_of(p, total)}};
}

/// What a kept list answer depends on besides its rows: the page, the
/// coding and the filter (each name length-prefixed: names may hold any
/// byte but NUL).
std::string answer_key(page p, body_coding coding,
                       const std::vector<std::string>& users) {
  auto key = std::to_string(p.offset) + ' ' + std::to_string(p.limit) + ' '
             + (coding == body_coding::gzip ? "gzip" : "identity");
  for (const auto& u : users)
    key += ' ' + std::to_string(u.size()) + ':' + u;
  return key;
}

/// {"<key>":[rows...],"pagination":{...}} as json::dump() writes it (keys
/// in order: both keys here sort before "pagination"), or that text as one
/// gzip member joined from the rows' compressed bytes.
template <class T, class Row>
std::string page_text(const char* key, const std::vector<const T*>& items,
                      page p, body_coding coding, Row row) {
  auto total = static_cast<int64_t>(items.size());
  auto [start, end] = page_bounds(total, p);
  std::string head = "{\"";
  head += key;
  head += "\":[";
  auto tail = "],\"pagination\":" + pagination_of(p, total).dump() + '}';
  if (coding == body_coding::gzip) {
    gzip::writer w;
    w.text(head);
    for (auto i = start; i < end; ++i) {
      if (i != start)
        w.text(",");
      w.add(row(*items[static_cast<size_t>(i)]).compressed());
    }
    w.text(tail);
    return w.finish();
  }
  std::string out = std::move(head);
  for (auto i = start; i < end; ++i) {
    if (i != start)
      out += ',';
    out += row(*items[static_cast<size_t>(i)]).text;
  }
  out += tail;
  return out;
}

/// Renders only the items on the page (rendering is the costly part:
/// a page of 100 out of 10,000 experiments renders 100).
template <class T, class Render>
json render_page(const char* key, const std::vector<const T*>& items, page p,
                 Render render) {
  auto total = static_cast<int64_t>(items.size());
  auto [start, end] = page_bounds(total, p);
  json out = json::array();
  for (auto i = start; i < end; ++i)
    out.push_back(render(*items[static_cast<size_t>(i)]));
  return page_envelope(key, std::move(out), p, total);
}

} // namespace

json paginate(const char* key, json list, page p) {
  auto total = static_cast<int64_t>(list.size());
  auto [start, end] = page_bounds(total, p);
  json items(list.begin() + start, list.begin() + end);
  return page_envelope(key, std::move(items), p, total);
}

namespace {

std::vector<const state::agent_info*>
all_agents(const state::cluster_state& s) {
  std::vector<const state::agent_info*> all;
  all.reserve(s.agents.size());
  for (const auto& [id, a] : s.agents)
    all.push_back(&a);
  return all;
}

} // namespace

json agents_response(const state::cluster_state& s, page p) {
  return render_page(
      "agents", all_agents(s), p,
      [&s](const state::agent_info& a) { return agent_json(s, a); });
}

std::shared_ptr<const std::string>
agents_page_text(const read::read_view& v, page p, body_coding coding) {
  const auto& s = v.state;
  auto key = answer_key(p, coding, {});
  return v.rows.answer(read::fragments::rows_of::agents, key, [&] {
    return page_text("agents", all_agents(s), p, coding,
                     [&](const state::agent_info& a) -> read::row& {
                       return v.rows.agent(
                           a.id, [&] { return agent_json(s, a).dump(); });
                     });
  });
}

json tasks_response(const state::cluster_state& s) {
  json out = json::object();
  for (const auto& [alloc, trial_id] : s.allocations) {
    auto t = state::find_listed_trial(s, trial_id);
    if (t == nullptr || !t->allocation)
      continue;
    auto e = state::find_experiment(s, t->experiment_id);
    json resources = json::array();
    int64_t slots = 0;
    for (const auto& as : t->allocation->assignments) {
      slots += static_cast<int64_t>(as.slots.size());
      json devices = json::array();
      for (auto slot : as.slots)
        devices.push_back({{"id", slot}, {"type", "TYPE_CPU"}});
      resources.push_back(
          {{"allocationId", alloc},
           {"resourcesId", alloc + "." + as.agent_id},
           {"resourcesType", "RESOURCES_TYPE_DOCKER_CONTAINER"},
           {"containerId", alloc},
           {"agentDevices", {{as.agent_id, {{"devices", devices}}}}}});
    }
    std::string name = "Trial " + std::to_string(t->id);
    if (e != nullptr)
      name += " (Experiment " + std::to_string(e->id) + ")";
    out[alloc] = {{"taskId", state::task_id_of(t->experiment_id, t->id)},
                  {"allocationId", alloc},
                  {"name", name},
                  {"registeredTime", rfc3339(t->allocation->placed_at_us)},
                  {"resourcePool", e != nullptr ? e->pool : ""},
                  {"slotsNeeded", slots},
                  {"resources", std::move(resources)},
                  {"schedulerType", "priority"},
                  {"priority", e != nullptr ? e->priority : default_priority},
                  {"proxyPorts", json::array()}};
  }
  // Commands, notebooks, shells, TensorBoards holding their allocation.
  for (const auto& [id, t] : s.tasks)
    if (state::holds_allocation(t))
      out[t.allocation_id] = task_summary_json(t);
  // The checkpoint collector at work for an experiment (checkpoints being
  // deleted, files being removed), as upstream lists its GC tasks.
  std::map<int64_t, int64_t> collecting; // experiment -> since
  for (const auto& [id, t] : s.trials)
    for (const auto& c : t.checkpoints)
      if (c.state == "deleting" || c.removing_files)
        collecting.emplace(t.experiment_id, c.at_us);
  for (const auto& [id, o] : s.orphan_checkpoints)
    collecting.emplace(o.experiment_id, 0);
  for (const auto& [exp, since] : collecting) {
    auto e = state::find_experiment(s, exp);
    auto key = "gc-" + std::to_string(exp);
    out[key] = {
        {"taskId", key},
        {"allocationId", key},
        {"name", "Checkpoint GC (Experiment " + std::to_string(exp) + ")"},
        {"registeredTime", rfc3339(since)},
        {"resourcePool", e != nullptr ? e->pool : ""},
        {"slotsNeeded", 0},
        {"resources", json::array()},
        {"schedulerType", "priority"},
        {"priority", default_priority},
        {"proxyPorts", json::array()}};
  }
  return {{"allocationIdToSummary", std::move(out)}};
}

json trial_response(const state::cluster_state& s, int64_t id) {
  auto t = state::find_listed_trial(s, id);
  if (t == nullptr)
    return nullptr;
  return {{"trial", trial_json(s, *t)}};
}

namespace {

/// The sort key of checkpoint JSON `c` under `o` (null: it has none).
json checkpoint_key(const json& c, const checkpoint_order& o) {
  auto at = [&c](std::initializer_list<const char*> path) -> json {
    const json* j = &c;
    for (auto k : path) {
      if (!j->is_object() || !j->contains(k))
        return nullptr;
      j = &(*j)[k];
    }
    return *j;
  };
  if (!o.metric.empty())
    return at(
        {"training", "validationMetrics", "avgMetrics", o.metric.c_str()});
  if (o.attr == "SORT_BY_BATCH_NUMBER")
    return at({"metadata", "steps_completed"});
  if (o.attr == "SORT_BY_UUID")
    return c["uuid"];
  if (o.attr == "SORT_BY_TRIAL_ID")
    return at({"training", "trialId"});
  if (o.attr == "SORT_BY_END_TIME")
    return c["reportTime"];
  if (o.attr == "SORT_BY_STATE") {
    // checkpointv1.State's numbers: COMPLETED 2, DELETED 4, PARTIALLY 5.
    auto st = c["state"].get<std::string>();
    return st == "STATE_COMPLETED" ? 2 : st == "STATE_DELETED" ? 4 : 5;
  }
  if (o.attr == "SORT_BY_SEARCHER_METRIC")
    return at({"training", "searcherMetric"});
  return at({"training", "trialId"}); // upstream's unspecified order
}

/// The checkpoints of `trials` in order `o`, one page of them.
json checkpoints_of(const state::cluster_state& s,
                    const std::vector<const state::trial_info*>& trials, page p,
                    const checkpoint_order& o) {
  std::vector<std::pair<int64_t, json>> all;
  for (auto t : trials)
    for (const auto& c : t->checkpoints) {
      auto j = checkpoint_json(s, *t, c);
      if (!o.states.empty()
          && std::find(o.states.begin(), o.states.end(),
                       j["state"].get<std::string>())
                 == o.states.end())
        continue;
      all.emplace_back(c.at_us, std::move(j));
    }
  if (o.attr.empty() && o.metric.empty()) {
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
      return a.first > b.first;
    });
  } else {
    // Oldest first among equal keys, whatever the order.
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
      return a.first < b.first;
    });
    std::vector<std::pair<json, json>> keyed;
    for (auto& [at, c] : all)
      keyed.emplace_back(checkpoint_key(c, o), std::move(c));
    std::stable_sort(
        keyed.begin(), keyed.end(), [&o](const auto& a, const auto& b) {
          if (a.first.is_null() || b.first.is_null())
            return !a.first.is_null() && b.first.is_null();
          return o.descending ? b.first < a.first : a.first < b.first;
        });
    all.clear();
    for (auto& [k, c] : keyed)
      all.emplace_back(0, std::move(c));
  }
  json list = json::array();
  for (auto& [at, c] : all)
    list.push_back(std::move(c));
  return paginate("checkpoints", std::move(list), p);
}

} // namespace

json experiment_checkpoints_response(const state::cluster_state& s, int64_t id,
                                     page p, const checkpoint_order& o) {
  if (state::find_experiment(s, id) == nullptr)
    return nullptr;
  return checkpoints_of(s, state::listed_trials_of(s, id), p, o);
}

json trial_checkpoints_response(const state::cluster_state& s, int64_t id,
                                page p, const checkpoint_order& o) {
  auto t = state::find_listed_trial(s, id);
  if (t == nullptr)
    return nullptr;
  return checkpoints_of(s, {t}, p, o);
}

json checkpoint_response(const state::cluster_state& s,
                         const std::string& uuid) {
  for (const auto& [id, t] : s.trials)
    for (const auto& c : t.checkpoints)
      if (c.uuid == uuid)
        return {{"checkpoint", checkpoint_json(s, t, c)}};
  return nullptr;
}

json resource_pools_response(const state::cluster_state& s,
                             const std::string& default_pool, page p) {
  json list = json::array();
  for (const auto& [name, pool] : s.pools) {
    const auto& c = pool.config;
    int64_t slots = 0;
    int64_t used = 0;
    int64_t agents = 0;
    std::string slot_type = "cpu";
    for (auto a : state::agents_of_pool(s, name)) {
      if (a->status != state::agent_status::connected)
        continue;
      ++agents;
      slots += state::slot_capacity(*a);
      used += state::used_slots(*a);
      slot_type = a->slot_type;
    }
    json by_state{{"pending", 0}, {"running", 0}, {"terminating", 0}};
    for (auto i : state::instances_of_pool(s, name))
      by_state[state::to_string(i->status)] =
          by_state[state::to_string(i->status)].get<int64_t>() + 1;
    auto type = c.provider == "aws"     ? "RESOURCE_POOL_TYPE_AWS"
                : c.provider == "local" ? "RESOURCE_POOL_TYPE_UNSPECIFIED"
                                        : "RESOURCE_POOL_TYPE_STATIC";
    list.push_back(
        {{"name", name},
         {"description", ""},
         {"type", type},
         {"provider", c.provider.empty() ? "static" : c.provider},
         {"numAgents", agents},
         {"slotsAvailable", slots},
         {"slotsUsed", used},
         {"slotType", device_type(slot_type)},
         {"slotsPerAgent", c.slots_per_instance},
         {"auxContainerCapacity", 0},
         {"auxContainersRunning", 0},
         {"defaultComputePool", name == default_pool},
         {"defaultAuxPool", name == default_pool},
         {"preemptible", c.scheduler == "priority"},
         {"minAgents", c.min_instances},
         {"maxAgents", c.max_instances},
         {"instanceType", c.instance_type},
         {"instancesByState", by_state},
         {"instancesTotal", state::instances_of_pool(s, name).size()},
         {"spot", c.spot},
         {"masterUrl", ""},
         {"masterCertName", ""},
         {"startupScript", ""},
         {"containerStartupScript", ""},
         {"agentDockerNetwork", ""},
         {"agentDockerRuntime", ""},
         {"agentDockerImage", ""},
         {"agentFluentImage", ""},
         {"maxIdleAgentPeriod", static_cast<double>(c.max_idle_agent_period_s)},
         {"maxAgentStartingPeriod",
          static_cast<double>(c.max_agent_starting_period_s)},
         {"details", json::object()},
         {"imageId", ""},
         {"location", ""},
         {"clusterName", ""},
         {"schedulerType", c.scheduler == "fair_share"
                               ? "SCHEDULER_TYPE_FAIR_SHARE"
                               : "SCHEDULER_TYPE_PRIORITY"},
         {"schedulerFittingPolicy", "FITTING_POLICY_BEST"},
         {"auxContainerCapacityPerAgent", 0},
         {"resourceManagerMetadata", json::object()}});
    list.back().update(pool_provisioning_json(s, name));
  }
  return paginate("resourcePools", std::move(list), p);
}

namespace {

std::vector<const state::experiment_info*>
experiments_of(const state::cluster_state& s, const experiment_filter& f) {
  std::vector<const state::experiment_info*> matching;
  matching.reserve(s.experiments.size());
  for (const auto& [id, e] : s.experiments)
    if ((f.users.empty()
         || std::find(f.users.begin(), f.users.end(), e.owner) != f.users.end())
        && (!f.archived
            || *f.archived
                   == (*f.archived ? e.archived
                                   : listed_as_archived(s, e, false))))
      matching.push_back(&e);
  return matching;
}

} // namespace

std::string
experiment_rows_text(const read::read_view& v,
                     const std::vector<const state::experiment_info*>& items,
                     page p, body_coding coding) {
  const auto& s = v.state;
  return page_text(
      "experiments", items, p, coding,
      [&](const state::experiment_info& e) -> read::row& {
        return v.rows.experiment(e.id, [&] {
          return experiment_json(s, e, experiment_detail::row).dump();
        });
      });
}

std::shared_ptr<const std::string>
experiments_page_text(const read::read_view& v, const experiment_filter& f,
                      page p, body_coding coding) {
  auto key = answer_key(p, coding, f.users)
             + (f.archived ? *f.archived ? " archived" : " live" : "");
  return v.rows.answer(read::fragments::rows_of::experiments, key, [&] {
    return experiment_rows_text(v, experiments_of(v.state, f), p, coding);
  });
}

json experiments_page(const state::cluster_state& s, const experiment_filter& f,
                      page p) {
  auto matching = experiments_of(s, f);
  return render_page("experiments", matching, p,
                     [&s](const state::experiment_info& e) {
                       return experiment_json(s, e, experiment_detail::row);
                     });
}

} // namespace det::api
