// The snapshot codec: cluster_state <-> JSON. The form is flat:
// {"snapshot_version", "position", "applied_by_type", "cluster_id",
//  "masters_started", "pools": [...], "agents": [...], "instances": [...],
//  "spot_requests": [...], "experiments": [...], "trials": [...],
//  "users": [...], "sessions": [{"token_hash", "username"}]}
// (maps as lists of records, each carrying its key). Pool configurations use
// their pool_configured payload form. The allocation index is rebuilt, not
// stored. Reading checks every field's type, names the path of the first bad
// one, and then checks the invariants, so a snapshot that decodes but does
// not hold together is refused too.

#include "state/cluster_state.hpp"

#include "messages/errc.hpp"
#include "messages/json_fields.hpp"

namespace det::state {

using nlohmann::json;

namespace {

json opt_us(const std::optional<int64_t>& x) {
  return x ? json(*x) : json(nullptr);
}

std::optional<int64_t> read_opt_us(const json& j, const char* key) {
  auto i = j.find(key);
  if (i == j.end() || i->is_null())
    return std::nullopt;
  return get_field<int64_t>(j, key);
}

json write_assignments(const std::vector<slot_assignment>& xs) {
  json out = json::array();
  for (const auto& a : xs)
    out.push_back({{"agent_id", a.agent_id}, {"slots", a.slots}});
  return out;
}

std::vector<slot_assignment> read_assignments(const json& j) {
  std::vector<slot_assignment> out;
  for (const auto& a : get_field<json>(j, "assignments")) {
    require_object(a, "assignments[]");
    out.push_back({get_field<std::string>(a, "agent_id"),
                   get_field<std::vector<int64_t>>(a, "slots")});
  }
  return out;
}

template <class Enum> Enum read_status(const json& j) {
  auto name = get_field<std::string>(j, "status");
  Enum out{};
  if (!from_string(name, out))
    throw field_error("field 'status': unknown status '" + name + "'");
  return out;
}

/// Calls f(element) for each element of list `key`, naming the element in
/// any error.
template <class F> void each(const json& j, const char* key, F f) {
  auto list = get_field<json>(j, key);
  if (!list.is_array())
    throw field_error(std::string{"field '"} + key + "': expected a list");
  for (size_t n = 0; n < list.size(); ++n) {
    try {
      require_object(list[n], "element");
      f(list[n]);
    } catch (const field_error& e) {
      throw field_error(std::string{key} + "[" + std::to_string(n)
                        + "]: " + e.what());
    } catch (const json::exception& e) {
      throw field_error(std::string{key} + "[" + std::to_string(n)
                        + "]: " + e.what());
    }
  }
}

// -- pools --------------------------------------------------------------------

json write(const pool_info& p) {
  json launches = json::array();
  for (const auto& [seq, l] : p.launches)
    launches.push_back({{"seq", l.seq},
                        {"client_token", l.client_token},
                        {"count", l.count},
                        {"spot", l.spot},
                        {"seen", l.seen},
                        {"requested_at_us", l.requested_at_us}});
  return {{"config", json::parse(to_envelope(p.config).payload)},
          {"launches_requested", p.launches_requested},
          {"consecutive_launch_failures", p.consecutive_launch_failures},
          {"last_launch_error_kind", p.last_launch_error_kind},
          {"last_launch_error", p.last_launch_error},
          {"last_launch_error_at_us", p.last_launch_error_at_us},
          {"launches", std::move(launches)}};
}

pool_info read_pool(const json& j) {
  pool_info p;
  auto config = get_field<json>(j, "config");
  auto ev = decode(event_envelope{pool_configured::type_name,
                                  pool_configured::version, config.dump()},
                   "pool config");
  if (!ev)
    throw field_error("field 'config': " + render(ev.error()));
  p.config = std::get<pool_configured>(*ev);
  p.launches_requested = get_field<int64_t>(j, "launches_requested");
  p.consecutive_launch_failures =
      get_field<int32_t>(j, "consecutive_launch_failures");
  p.last_launch_error_kind =
      get_field<std::string>(j, "last_launch_error_kind");
  p.last_launch_error = get_field<std::string>(j, "last_launch_error");
  p.last_launch_error_at_us = get_field<int64_t>(j, "last_launch_error_at_us");
  each(j, "launches", [&](const json& l) {
    launch_info x{get_field<int64_t>(l, "seq"),
                  get_field<std::string>(l, "client_token"),
                  get_field<int32_t>(l, "count"),
                  get_field<bool>(l, "spot"),
                  get_field<int32_t>(l, "seen"),
                  get_field<int64_t>(l, "requested_at_us")};
    p.launches.emplace(x.seq, std::move(x));
  });
  return p;
}

// -- agents, instances, spot requests -----------------------------------------

json write(const agent_info& a) {
  return {{"id", a.id},
          {"pool", a.pool},
          {"slot_type", a.slot_type},
          {"instance_id", a.instance_id},
          {"status", to_string(a.status)},
          {"enabled", a.enabled},
          {"draining", a.draining},
          {"slots", a.slots},
          {"connected_at_us", a.connected_at_us},
          {"idle_since_us", opt_us(a.idle_since_us)},
          {"disconnected_at_us", a.disconnected_at_us},
          {"reconnect_deadline_us", a.reconnect_deadline_us}};
}

agent_info read_agent(const json& j) {
  agent_info a;
  a.id = get_field<std::string>(j, "id");
  a.pool = get_field<std::string>(j, "pool");
  a.slot_type = get_field<std::string>(j, "slot_type");
  a.instance_id = get_field<std::string>(j, "instance_id");
  a.status = read_status<agent_status>(j);
  a.enabled = get_field<bool>(j, "enabled");
  a.draining = get_field<bool>(j, "draining");
  a.slots = get_field<std::vector<std::string>>(j, "slots");
  a.connected_at_us = get_field<int64_t>(j, "connected_at_us");
  a.idle_since_us = read_opt_us(j, "idle_since_us");
  a.disconnected_at_us = get_field<int64_t>(j, "disconnected_at_us");
  a.reconnect_deadline_us = get_field<int64_t>(j, "reconnect_deadline_us");
  return a;
}

json write(const instance_info& i) {
  return {{"id", i.id},
          {"pool", i.pool},
          {"launch_seq", i.launch_seq},
          {"spot_request_id", i.spot_request_id},
          {"status", to_string(i.status)},
          {"agent_id", i.agent_id},
          {"launched_at_us", i.launched_at_us},
          {"running_at_us", i.running_at_us},
          {"agent_gone_since_us", opt_us(i.agent_gone_since_us)},
          {"terminate_reason", i.terminate_reason},
          {"terminate_requested_at_us", i.terminate_requested_at_us}};
}

instance_info read_instance(const json& j) {
  instance_info i;
  i.id = get_field<std::string>(j, "id");
  i.pool = get_field<std::string>(j, "pool");
  i.launch_seq = get_field<int64_t>(j, "launch_seq");
  i.spot_request_id = get_field<std::string>(j, "spot_request_id");
  i.status = read_status<instance_status>(j);
  i.agent_id = get_field<std::string>(j, "agent_id");
  i.launched_at_us = get_field<int64_t>(j, "launched_at_us");
  i.running_at_us = get_field<int64_t>(j, "running_at_us");
  i.agent_gone_since_us = read_opt_us(j, "agent_gone_since_us");
  i.terminate_reason = get_field<std::string>(j, "terminate_reason");
  i.terminate_requested_at_us =
      get_field<int64_t>(j, "terminate_requested_at_us");
  return i;
}

json write(const spot_request_info& r) {
  return {{"id", r.id},
          {"pool", r.pool},
          {"launch_seq", r.launch_seq},
          {"opened_at_us", r.opened_at_us}};
}

spot_request_info read_spot_request(const json& j) {
  return {get_field<std::string>(j, "id"), get_field<std::string>(j, "pool"),
          get_field<int64_t>(j, "launch_seq"),
          get_field<int64_t>(j, "opened_at_us")};
}

// -- experiments and trials ---------------------------------------------------

json write_inbox(const std::vector<searcher_input>& xs) {
  json out = json::array();
  for (const auto& x : xs)
    out.push_back({{"seq", x.seq},
                   {"trial_id", x.trial_id},
                   {"request_id", x.request_id},
                   {"kind", x.kind},
                   {"steps", x.steps},
                   {"metrics", x.metrics},
                   {"trial_status", x.trial_status}});
  return out;
}

std::vector<searcher_input> read_inbox(const json& j) {
  std::vector<searcher_input> out;
  for (const auto& x : j)
    out.push_back(
        {get_field<int64_t>(x, "seq"), get_field<int64_t>(x, "trial_id"),
         get_field<std::string>(x, "request_id"),
         get_field<std::string>(x, "kind"), get_field<int64_t>(x, "steps"),
         get_field<json>(x, "metrics"),
         get_field<std::string>(x, "trial_status")});
  return out;
}

json write(const experiment_info& e) {
  return {{"id", e.id},
          {"pool", e.pool},
          {"owner", e.owner},
          {"config", e.config},
          {"priority", e.priority},
          {"weight", e.weight},
          {"max_restarts", e.max_restarts},
          {"slots_per_trial", e.slots_per_trial},
          {"status", to_string(e.status)},
          {"status_reason", e.status_reason},
          {"searcher_state", e.searcher_state},
          {"progress", e.progress},
          {"trial_ids", e.trial_ids},
          {"submitted_at_us", e.submitted_at_us},
          {"state_changed_at_us", e.state_changed_at_us},
          {"searcher_inbox", write_inbox(e.searcher_inbox)},
          {"searcher_inputs_queued", e.searcher_inputs_queued},
          {"model_definition_pending", e.model_definition_pending}};
}

experiment_info read_experiment(const json& j) {
  experiment_info e;
  e.id = get_field<int64_t>(j, "id");
  e.pool = get_field<std::string>(j, "pool");
  e.owner = get_field<std::string>(j, "owner");
  e.config = get_field<json>(j, "config");
  e.priority = get_field<int32_t>(j, "priority");
  e.weight = get_field<double>(j, "weight");
  e.max_restarts = get_field<int32_t>(j, "max_restarts");
  e.slots_per_trial = get_field<int32_t>(j, "slots_per_trial");
  e.status = read_status<experiment_status>(j);
  e.status_reason = get_field<std::string>(j, "status_reason");
  e.searcher_state = get_field<json>(j, "searcher_state");
  e.progress = get_field<double>(j, "progress");
  e.trial_ids = get_field<std::vector<int64_t>>(j, "trial_ids");
  e.submitted_at_us = get_field<int64_t>(j, "submitted_at_us");
  e.state_changed_at_us = get_field<int64_t>(j, "state_changed_at_us");
  // Absent in snapshots of masters that fed their searchers inline.
  if (j.contains("searcher_inbox")) {
    e.searcher_inbox = read_inbox(get_field<json>(j, "searcher_inbox"));
    e.searcher_inputs_queued = get_field<int64_t>(j, "searcher_inputs_queued");
  }
  // Absent in snapshots of older masters.
  if (j.contains("model_definition_pending"))
    e.model_definition_pending = get_field<bool>(j, "model_definition_pending");
  return e;
}

json write(const trial_info& t) {
  json alloc = nullptr;
  if (t.allocation)
    alloc = {{"id", t.allocation->id},
             {"assignments", write_assignments(t.allocation->assignments)},
             {"placed_at_us", t.allocation->placed_at_us},
             {"running_at_us", t.allocation->running_at_us},
             {"preemption_requested", t.allocation->preemption_requested},
             {"preemption_reason", t.allocation->preemption_reason},
             {"preemption_requested_at_us",
              t.allocation->preemption_requested_at_us}};
  json all_ckpts = json::array();
  for (const auto& c : t.checkpoints)
    all_ckpts.push_back({{"uuid", c.uuid},
                         {"steps_completed", c.steps_completed},
                         {"metadata", c.metadata},
                         {"at_us", c.at_us}});
  json ckpt = nullptr;
  if (t.latest_checkpoint)
    ckpt = {{"uuid", t.latest_checkpoint->uuid},
            {"steps_completed", t.latest_checkpoint->steps_completed},
            {"metadata", t.latest_checkpoint->metadata},
            {"at_us", t.latest_checkpoint->at_us}};
  const auto& m = t.metrics;
  json metrics{{"steps_completed", m.steps_completed},
               {"training_reports", m.training_reports},
               {"validation_reports", m.validation_reports},
               {"latest_training", m.latest_training},
               {"latest_validation", m.latest_validation},
               {"best_validation",
                m.best_validation ? json(*m.best_validation) : json(nullptr)},
               {"best_validation_steps", m.best_validation_steps}};
  return {{"id", t.id},
          {"experiment_id", t.experiment_id},
          {"request_id", t.request_id},
          {"hparams", t.hparams},
          {"status", to_string(t.status)},
          {"restarts", t.restarts},
          {"runs", t.runs},
          {"allocation", std::move(alloc)},
          {"last_exit_reason", t.last_exit_reason},
          {"last_exit_code", t.last_exit_code},
          {"end_reason", t.end_reason},
          {"latest_checkpoint", std::move(ckpt)},
          {"metrics", std::move(metrics)},
          {"created_at_us", t.created_at_us},
          {"checkpoints", std::move(all_ckpts)}};
}

trial_info read_trial(const json& j) {
  trial_info t;
  t.id = get_field<int64_t>(j, "id");
  t.experiment_id = get_field<int64_t>(j, "experiment_id");
  t.request_id = get_field<std::string>(j, "request_id");
  t.hparams = get_field<json>(j, "hparams");
  t.status = read_status<trial_status>(j);
  t.restarts = get_field<int32_t>(j, "restarts");
  t.runs = get_field<int64_t>(j, "runs");
  auto alloc = get_field<json>(j, "allocation");
  if (!alloc.is_null()) {
    require_object(alloc, "field 'allocation'");
    t.allocation = allocation_info{
        get_field<std::string>(alloc, "id"),
        read_assignments(alloc),
        get_field<int64_t>(alloc, "placed_at_us"),
        get_field<int64_t>(alloc, "running_at_us"),
        get_field<bool>(alloc, "preemption_requested"),
        get_field<std::string>(alloc, "preemption_reason"),
        get_field_or<int64_t>(alloc, "preemption_requested_at_us", 0)};
  }
  t.last_exit_reason = get_field<std::string>(j, "last_exit_reason");
  t.last_exit_code = get_field<int32_t>(j, "last_exit_code");
  t.end_reason = get_field<std::string>(j, "end_reason");
  auto ckpt = get_field<json>(j, "latest_checkpoint");
  if (!ckpt.is_null()) {
    require_object(ckpt, "field 'latest_checkpoint'");
    t.latest_checkpoint = checkpoint_info{
        get_field<std::string>(ckpt, "uuid"),
        get_field<int64_t>(ckpt, "steps_completed"),
        get_field<json>(ckpt, "metadata"), get_field<int64_t>(ckpt, "at_us")};
  }
  // Older snapshots kept only the latest checkpoint.
  if (j.contains("checkpoints"))
    each(j, "checkpoints", [&](const json& c) {
      t.checkpoints.push_back(checkpoint_info{
          get_field<std::string>(c, "uuid"),
          get_field<int64_t>(c, "steps_completed"),
          get_field<json>(c, "metadata"), get_field<int64_t>(c, "at_us")});
    });
  else if (t.latest_checkpoint)
    t.checkpoints.push_back(*t.latest_checkpoint);
  auto m = get_field<json>(j, "metrics");
  require_object(m, "field 'metrics'");
  t.metrics.steps_completed = get_field<int64_t>(m, "steps_completed");
  t.metrics.training_reports = get_field<int64_t>(m, "training_reports");
  t.metrics.validation_reports = get_field<int64_t>(m, "validation_reports");
  t.metrics.latest_training = get_field<json>(m, "latest_training");
  t.metrics.latest_validation = get_field<json>(m, "latest_validation");
  auto best = get_field<json>(m, "best_validation");
  if (!best.is_null())
    t.metrics.best_validation = get_field<double>(m, "best_validation");
  t.metrics.best_validation_steps =
      get_field<int64_t>(m, "best_validation_steps");
  t.created_at_us = get_field<int64_t>(j, "created_at_us");
  return t;
}

json write(const user_info& u) {
  return {{"id", u.id},
          {"username", u.username},
          {"admin", u.admin},
          {"active", u.active},
          {"password_hash", u.password_hash},
          {"created_at_us", u.created_at_us},
          {"modified_at_us", u.modified_at_us}};
}

user_info read_user(const json& j) {
  user_info u;
  u.id = get_field<int64_t>(j, "id");
  u.username = get_field<std::string>(j, "username");
  u.admin = get_field<bool>(j, "admin");
  u.active = get_field<bool>(j, "active");
  u.password_hash = get_field<std::string>(j, "password_hash");
  u.created_at_us = get_field<int64_t>(j, "created_at_us");
  u.modified_at_us = get_field<int64_t>(j, "modified_at_us");
  return u;
}

template <class Map> json write_all(const Map& m) {
  json out = json::array();
  for (const auto& kv : m)
    out.push_back(write(kv.second));
  return out;
}

/// Files `x` under `key`, refusing a duplicate.
template <class Map, class Key, class T>
void file(Map& m, const Key& key, T x) {
  if (!m.emplace(key, std::move(x)).second)
    throw field_error("duplicate entry");
}

cluster_state read_state(const json& j) {
  cluster_state s;
  s.position = get_field<int64_t>(j, "position");
  s.cluster_id = get_field<std::string>(j, "cluster_id");
  s.masters_started = get_field<int64_t>(j, "masters_started");
  auto counts = get_field<json>(j, "applied_by_type");
  require_object(counts, "field 'applied_by_type'");
  for (const auto& [type, n] : counts.items()) {
    if (!n.is_number_integer())
      throw field_error("field 'applied_by_type." + type
                        + "': expected an integer");
    s.applied_by_type[type] = n.get<int64_t>();
  }
  each(j, "pools", [&](const json& x) {
    auto p = read_pool(x);
    auto name = p.config.pool;
    file(s.pools, name, std::move(p));
  });
  each(j, "agents", [&](const json& x) {
    auto a = read_agent(x);
    file(s.agents, a.id, a);
  });
  each(j, "instances", [&](const json& x) {
    auto i = read_instance(x);
    file(s.instances, i.id, i);
  });
  each(j, "spot_requests", [&](const json& x) {
    auto r = read_spot_request(x);
    file(s.spot_requests, r.id, r);
  });
  each(j, "experiments", [&](const json& x) {
    auto e = read_experiment(x);
    file(s.experiments, e.id, e);
  });
  each(j, "trials", [&](const json& x) {
    auto t = read_trial(x);
    if (t.allocation)
      file(s.allocations, t.allocation->id, t.id);
    file(s.trials, t.id, std::move(t));
  });
  // Snapshots older than the user events have neither key.
  if (j.contains("users"))
    each(j, "users", [&](const json& x) {
      auto u = read_user(x);
      file(s.users, u.username, u);
    });
  if (j.contains("sessions"))
    each(j, "sessions", [&](const json& x) {
      require_object(x, "session");
      file(s.sessions, get_field<std::string>(x, "token_hash"),
           get_field<std::string>(x, "username"));
    });
  return s;
}

json write_sessions(const std::map<std::string, std::string>& xs) {
  json out = json::array();
  for (const auto& [hash, name] : xs)
    out.push_back({{"token_hash", hash}, {"username", name}});
  return out;
}

} // namespace

nlohmann::json to_snapshot(const cluster_state& s) {
  return {{"snapshot_version", snapshot_version},
          {"position", s.position},
          {"applied_by_type", s.applied_by_type},
          {"cluster_id", s.cluster_id},
          {"masters_started", s.masters_started},
          {"pools", write_all(s.pools)},
          {"agents", write_all(s.agents)},
          {"instances", write_all(s.instances)},
          {"spot_requests", write_all(s.spot_requests)},
          {"experiments", write_all(s.experiments)},
          {"trials", write_all(s.trials)},
          {"users", write_all(s.users)},
          {"sessions", write_sessions(s.sessions)}};
}

caf::expected<cluster_state> from_snapshot(const nlohmann::json& j) {
  auto corrupt = [](const std::string& why) {
    return make_error(errc::corrupt_snapshot, "snapshot: " + why);
  };
  cluster_state s;
  try {
    require_object(j, "snapshot");
    auto version = get_field<int32_t>(j, "snapshot_version");
    if (version != snapshot_version)
      return corrupt("snapshot_version " + std::to_string(version)
                     + " is not supported (this binary reads "
                     + std::to_string(snapshot_version) + ")");
    s = read_state(j);
  } catch (const field_error& e) {
    return corrupt(e.what());
  } catch (const json::exception& e) {
    return corrupt(e.what());
  }
  auto broken = check_invariants(s);
  if (!broken.empty())
    return corrupt(
        "broken invariant: " + broken.front()
        + (broken.size() > 1
               ? " (and " + std::to_string(broken.size() - 1) + " more)"
               : ""));
  return s;
}

} // namespace det::state
