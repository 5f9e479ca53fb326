#include "core/config_policies.hpp"

#include "core/record_args.hpp"
#include "messages/errc.hpp"
#include "messages/json_fields.hpp"
#include "state/records_queries.hpp"

#include <map>
#include <optional>

namespace det {

namespace {

using namespace det::record_args;
using nlohmann::json;
using state::cluster_state;

/// The policies of a scope (0: global), or null when the workspace is
/// unknown.
const std::map<std::string, state::config_policy_info>*
policy_scope(const cluster_state& s, int64_t workspace_id) {
  if (workspace_id == 0)
    return &s.global_config_policies;
  auto w = s.workspaces.find(workspace_id);
  if (w != s.workspaces.end())
    return &w->second.config_policies;
  static const std::map<std::string, state::config_policy_info> none;
  return state::find_workspace(s, workspace_id) ? &none : nullptr;
}

const state::config_policy_info* policy_of(const cluster_state& s,
                                           int64_t workspace_id,
                                           const std::string& type) {
  const auto* scope = policy_scope(s, workspace_id);
  if (scope == nullptr)
    return nullptr;
  auto i = scope->find(type);
  return i == scope->end() ? nullptr : &i->second;
}

/// "experiment" / "ntsc", as the refusals name the policy.
std::string policy_kind(const std::string& type) {
  return type == "NTSC" ? "ntsc" : "experiment";
}

/// The scope the command names, once the user may change it.
int64_t writable_scope(const cluster_state& s, int64_t id,
                       const std::string& username) {
  auto u = s.users.find(username);
  bool admin = u != s.users.end() && u->second.admin && u->second.active;
  if (id == 0) {
    if (!admin)
      refuse(errc::permission_denied,
             "only admins may change the global config policies");
    return 0;
  }
  auto w = state::find_workspace(s, id);
  if (!w)
    refuse(errc::not_found,
           "workspaceId: workspace " + std::to_string(id) + " not found");
  if (!admin && w->username != username)
    refuse(errc::permission_denied,
           "only admins and the workspace's owner may change the config "
           "policies of workspace '"
               + w->name + "'");
  return id;
}

/// Integer `key` of `obj` (field `path`), or nothing when absent or null.
std::optional<int64_t> whole_number(const json& obj, const char* key,
                                    const std::string& path, int64_t min) {
  if (!obj.is_object())
    return std::nullopt;
  auto i = obj.find(key);
  if (i == obj.end() || i->is_null())
    return std::nullopt;
  if (!i->is_number_integer() || i->get<int64_t>() < min
      || i->get<int64_t>() > INT32_MAX)
    refuse(errc::invalid_argument,
           path + ": expected a whole number of at least "
               + std::to_string(min));
  return i->get<int64_t>();
}

/// Refuses any key of `obj` outside `known` (named under `path`).
void only_keys(const json& obj, const std::string& path,
               std::initializer_list<const char*> known,
               const std::string& prefix) {
  for (const auto& [k, v] : obj.items()) {
    bool ok = false;
    for (const char* name : known)
      ok = ok || k == name;
    if (!ok)
      refuse(errc::invalid_argument,
             prefix + "unknown field '" + path + k + "'");
  }
}

struct policy_limits {
  std::optional<int64_t> priority_limit;
  std::optional<int64_t> max_slots;
};

/// A constraints object, checked: {priority_limit, resources: {max_slots}}.
policy_limits checked_constraints(const json& c, const std::string& prefix) {
  policy_limits out;
  if (c.is_null())
    return out;
  if (!c.is_object())
    refuse(errc::invalid_argument, prefix + "constraints: expected a mapping");
  only_keys(c, "constraints.", {"priority_limit", "resources"}, prefix);
  out.priority_limit = whole_number(
      c, "priority_limit", prefix + "constraints.priority_limit", INT32_MIN);
  if (c.contains("resources") && !c["resources"].is_null()) {
    const auto& r = c["resources"];
    if (!r.is_object())
      refuse(errc::invalid_argument,
             prefix + "constraints.resources: expected a mapping");
    only_keys(r, "constraints.resources.", {"max_slots"}, prefix);
    out.max_slots = whole_number(r, "max_slots",
                                 prefix + "constraints.resources.max_slots", 0);
  }
  return out;
}

/// What an invariant config fixes that constraints also bound.
struct invariant_resources {
  std::optional<int64_t> priority;
  std::optional<int64_t> max_slots;
  std::optional<int64_t> slots_per_trial;
};

invariant_resources checked_invariant(const json& inv,
                                      const std::string& prefix) {
  invariant_resources out;
  auto r = inv.find("resources");
  if (r == inv.end() || r->is_null())
    return out;
  if (!r->is_object())
    refuse(errc::invalid_argument,
           prefix + "invariant_config.resources: expected a mapping");
  out.priority =
      whole_number(*r, "priority",
                   prefix + "invariant_config.resources.priority", INT32_MIN);
  out.max_slots = whole_number(
      *r, "max_slots", prefix + "invariant_config.resources.max_slots", 0);
  out.slots_per_trial =
      whole_number(*r, "slots_per_trial",
                   prefix + "invariant_config.resources.slots_per_trial", 0);
  return out;
}

/// Refuses an invariant config that constraints (`whose`) would refuse.
void refuse_conflicts(const invariant_resources& inv, const policy_limits& lim,
                      const std::string& prefix, const std::string& whose) {
  if (inv.priority && lim.priority_limit
      && *inv.priority != *lim.priority_limit)
    refuse(errc::invalid_argument,
           prefix + "invariant_config.resources.priority ("
               + std::to_string(*inv.priority) + ") differs from " + whose
               + "constraints.priority_limit ("
               + std::to_string(*lim.priority_limit)
               + "): set the priority in one of them");
  if (inv.max_slots && lim.max_slots && *inv.max_slots != *lim.max_slots)
    refuse(errc::invalid_argument,
           prefix + "invariant_config.resources.max_slots ("
               + std::to_string(*inv.max_slots) + ") differs from " + whose
               + "constraints.resources.max_slots ("
               + std::to_string(*lim.max_slots)
               + "): set max_slots in one of them");
  if (inv.slots_per_trial && lim.max_slots
      && *inv.slots_per_trial > *lim.max_slots)
    refuse(errc::invalid_argument,
           prefix + "invariant_config.resources.slots_per_trial ("
               + std::to_string(*inv.slots_per_trial) + ") is above " + whose
               + "constraints.resources.max_slots ("
               + std::to_string(*lim.max_slots) + ")");
}

/// max_slots and priority_limit of one scope, unchecked values skipped
/// (the log only holds checked ones).
policy_limits limits_of(const state::config_policy_info* p) {
  policy_limits out;
  if (p == nullptr || !p->constraints.is_object())
    return out;
  const auto& c = p->constraints;
  if (auto i = c.find("priority_limit"); i != c.end() && i->is_number_integer())
    out.priority_limit = i->get<int64_t>();
  auto r = c.find("resources");
  if (r != c.end() && r->is_object())
    if (auto m = r->find("max_slots"); m != r->end() && m->is_number_integer())
      out.max_slots = m->get<int64_t>();
  return out;
}

std::optional<int64_t> resource_of(const json& config, const char* key) {
  auto r = config.find("resources");
  if (r == config.end() || !r->is_object())
    return std::nullopt;
  auto v = r->find(key);
  if (v == r->end() || !v->is_number_integer())
    return std::nullopt;
  return v->get<int64_t>();
}

} // namespace

bool valid_workload_type(const std::string& type) {
  return type == "EXPERIMENT" || type == "NTSC";
}

record_outcome decide_record(const cluster_state& s,
                             const set_config_policies& c, int64_t now) {
  return decided([&](record_outcome& o) {
    const auto& type = c.workload_type;
    auto scope = writable_scope(s, c.workspace_id, c.username);
    auto prefix = "invalid " + policy_kind(type) + " config policy: ";
    const auto& doc = c.policies;
    if (!doc.is_object())
      refuse(errc::invalid_argument,
             "configPolicies: expected a mapping of invariant_config and "
             "constraints");
    if (auto why = json_problem(doc, "configPolicies"); !why.empty())
      refuse(errc::invalid_argument, why);
    if (doc.dump().size() > 256 * 1024)
      refuse(errc::invalid_argument, "configPolicies: more than 256 KiB");
    only_keys(doc, "", {"invariant_config", "constraints"}, prefix);
    json inv = doc.value("invariant_config", json());
    json cons = doc.value("constraints", json());
    auto limits = checked_constraints(cons, prefix);
    if (!inv.is_null()) {
      if (type == "NTSC")
        refuse(errc::invalid_argument,
               "invariant_config: not supported for tasks (NTSC) yet; remove "
               "the invariant_config section");
      if (!inv.is_object())
        refuse(errc::invalid_argument,
               prefix + "invariant_config: expected a mapping");
      auto fixed = checked_invariant(inv, prefix);
      refuse_conflicts(fixed, limits, prefix, "");
      if (scope != 0)
        if (const auto* g = policy_of(s, 0, type))
          refuse_conflicts(fixed, checked_constraints(g->constraints, prefix),
                           prefix, "the global ");
    }
    json reply = json::object();
    if (!inv.is_null())
      reply["invariant_config"] = inv;
    if (!cons.is_null())
      reply["constraints"] = cons;
    o.reply = {{"configPolicies", reply}};
    const auto* before = policy_of(s, scope, type);
    bool same = before != nullptr ? before->invariant_config == inv
                                        && before->constraints == cons
                                  : inv.is_null() && cons.is_null();
    if (same)
      return;
    o.events.push_back(
        config_policies_set{scope, type, inv, cons, c.username, now});
  });
}

record_outcome decide_record(const cluster_state& s,
                             const delete_config_policies& c, int64_t now) {
  return decided([&](record_outcome& o) {
    auto scope = writable_scope(s, c.workspace_id, c.username);
    if (policy_of(s, scope, c.workload_type) == nullptr)
      return;
    o.events.push_back(config_policies_set{scope, c.workload_type, json(),
                                           json(), c.username, now});
  });
}

json config_policies_view(const cluster_state& s, int64_t workspace_id,
                          const std::string& workload_type) {
  if (policy_scope(s, workspace_id) == nullptr)
    return nullptr;
  json out = json::object();
  if (const auto* p = policy_of(s, workspace_id, workload_type)) {
    if (!p->invariant_config.is_null())
      out["invariant_config"] = p->invariant_config;
    if (!p->constraints.is_null())
      out["constraints"] = p->constraints;
  }
  return out;
}

json merge_invariant(json config, const json& invariant) {
  if (!config.is_object() || !invariant.is_object())
    return invariant;
  for (const auto& [k, v] : invariant.items()) {
    auto i = config.find(k);
    if (i != config.end() && i->is_object() && v.is_object())
      *i = merge_invariant(std::move(*i), v);
    else
      config[k] = v;
  }
  return config;
}

json invariant_experiment_config(const cluster_state& s, int64_t workspace_id) {
  json out = json::object();
  for (int64_t scope : {workspace_id, int64_t{0}})
    if (const auto* p = policy_of(s, scope, "EXPERIMENT"))
      if (p->invariant_config.is_object())
        out = merge_invariant(std::move(out), p->invariant_config);
  return out;
}

std::string experiment_constraint_problem(const cluster_state& s,
                                          int64_t workspace_id,
                                          const json& config,
                                          bool smaller_is_higher) {
  // Global constraints win over the workspace's, field by field.
  auto lim = limits_of(policy_of(s, workspace_id, "EXPERIMENT"));
  auto global = limits_of(policy_of(s, 0, "EXPERIMENT"));
  if (global.priority_limit)
    lim.priority_limit = global.priority_limit;
  if (global.max_slots)
    lim.max_slots = global.max_slots;
  if (lim.max_slots)
    for (const char* key : {"slots_per_trial", "max_slots"}) {
      auto asked = resource_of(config, key);
      if (asked && *asked > *lim.max_slots)
        return "resources." + std::string{key} + ": " + std::to_string(*asked)
               + " slots exceed the limit of " + std::to_string(*lim.max_slots)
               + " set by a config policy (constraints.resources.max_slots)";
    }
  auto priority = resource_of(config, "priority");
  if (lim.priority_limit && priority) {
    bool within = smaller_is_higher ? *priority >= *lim.priority_limit
                                    : *priority <= *lim.priority_limit;
    if (!within)
      return "resources.priority: " + std::to_string(*priority)
             + " is more urgent than the limit of "
             + std::to_string(*lim.priority_limit)
             + " set by a config policy (constraints.priority_limit)";
  }
  return {};
}

} // namespace det
