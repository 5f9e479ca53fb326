#include "k8s/node_capacity.hpp"

namespace det::k8s {

using nlohmann::json;

pool_placement placement_of(const std::string& pool, const json& pod_spec) {
  pool_placement p;
  p.pool = pool;
  const json* spec = &pod_spec;
  if (pod_spec.is_object() && pod_spec.contains("spec"))
    spec = &pod_spec["spec"];
  if (!spec->is_object())
    return p;
  auto t = spec->find("tolerations");
  if (t != spec->end() && t->is_array())
    p.tolerations = *t;
  auto s = spec->find("nodeSelector");
  if (s != spec->end() && s->is_object())
    p.node_selector = *s;
  return p;
}

bool pool_may_use(const pool_placement& p, const json& node) {
  if (!tolerates(p.tolerations, node))
    return false;
  if (p.node_selector.empty())
    return true;
  json labels = json::object();
  if (node.is_object() && node.contains(json::json_pointer("/metadata/labels")))
    labels = node.at(json::json_pointer("/metadata/labels"));
  if (!labels.is_object())
    return false;
  for (const auto& [key, want] : p.node_selector.items()) {
    auto have = labels.find(key);
    if (have == labels.end() || *have != want)
      return false;
  }
  return true;
}

std::vector<std::string> pools_of_node(const std::vector<pool_placement>& pools,
                                       const json& node) {
  std::vector<std::string> out;
  for (const auto& p : pools)
    if (pool_may_use(p, node))
      out.push_back(p.pool);
  return out;
}

namespace {

std::string name_of(const json& node) {
  auto p = json::json_pointer("/metadata/name");
  if (!node.is_object() || !node.contains(p) || !node.at(p).is_string())
    return {};
  return node.at(p).get<std::string>();
}

} // namespace

void node_table::sync(const std::vector<json>& nodes) {
  nodes_.clear();
  for (const auto& n : nodes)
    apply("ADDED", n);
}

void node_table::apply(const std::string& type, const json& node) {
  auto name = name_of(node);
  if (name.empty())
    return;
  if (type == "ADDED" || type == "MODIFIED")
    nodes_[name] = node;
  else if (type == "DELETED")
    nodes_.erase(name);
}

const json* node_table::find(const std::string& name) const {
  auto i = nodes_.find(name);
  return i == nodes_.end() ? nullptr : &i->second;
}

std::map<std::string, int64_t>
pool_capacities(const node_table& nodes,
                const std::vector<pool_placement>& pools,
                const std::string& slot_type, double cpu_per_slot) {
  std::map<std::string, int64_t> out;
  for (const auto& p : pools)
    out[p.pool] = 0;
  for (const auto& [name, n] : nodes.nodes()) {
    auto a = node_as_agent(n, slot_type, cpu_per_slot);
    if (!a.ready || !a.schedulable || a.disabled || a.slots <= 0)
      continue;
    for (const auto& p : pools)
      if (pool_may_use(p, n))
        out[p.pool] += a.slots;
  }
  return out;
}

void capacity_coalescer::written(const std::string& pool, int64_t slots) {
  auto& e = pools_[pool];
  e.written = slots;
  if (!e.seen) {
    e.observed = slots;
    e.seen = true;
  }
}

void capacity_coalescer::observe(const std::string& pool, int64_t slots,
                                 clock::time_point now) {
  auto& e = pools_[pool];
  bool was_pending = e.seen && (!e.written || e.observed != *e.written);
  e.observed = slots;
  e.seen = true;
  bool pending = !e.written || slots != *e.written;
  if (pending && !was_pending)
    e.differs_since = now;
}

std::map<std::string, int64_t>
capacity_coalescer::due(clock::time_point now) const {
  std::map<std::string, int64_t> out;
  for (const auto& [pool, e] : pools_)
    if (e.seen && (!e.written || e.observed != *e.written)
        && now - e.differs_since >= settle_)
      out[pool] = e.observed;
  return out;
}

void capacity_coalescer::retry_later(const std::string& pool,
                                     clock::time_point now) {
  pools_[pool].differs_since = now;
}

} // namespace det::k8s
