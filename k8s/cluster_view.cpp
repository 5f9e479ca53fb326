#include "k8s/cluster_view.hpp"

#include "k8s/job_spec.hpp"

#include <cmath>
#include <cstdlib>

namespace det::k8s {

using nlohmann::json;

namespace {

std::string str_at(const json& j, const char* ptr) {
  auto p = json::json_pointer(ptr);
  if (!j.is_object() || !j.contains(p))
    return {};
  const auto& v = j.at(p);
  return v.is_string() ? v.get<std::string>() : std::string{};
}

const json& arr_at(const json& j, const char* ptr) {
  static const json empty = json::array();
  auto p = json::json_pointer(ptr);
  if (!j.is_object() || !j.contains(p) || !j.at(p).is_array())
    return empty;
  return j.at(p);
}

/// metadata.<map>[key] ("labels" or "annotations"); "" when absent.
std::string metadata_value(const json& obj, const char* map,
                           const std::string& key) {
  if (!obj.is_object() || !obj.contains("metadata"))
    return {};
  const auto& m = obj["metadata"];
  if (!m.is_object() || !m.contains(map) || !m[map].is_object())
    return {};
  auto it = m[map].find(key);
  return it != m[map].end() && it->is_string() ? it->get<std::string>()
                                               : std::string{};
}

std::string label_of(const json& obj, const std::string& key) {
  return metadata_value(obj, "labels", key);
}

} // namespace

std::optional<double> parse_quantity(const std::string& q) {
  if (q.empty() || q.size() > 64)
    return std::nullopt;
  const char* begin = q.c_str();
  char* end = nullptr;
  double v = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(v))
    return std::nullopt;
  std::string suffix(end);
  static const std::pair<const char*, double> units[] = {
      {"", 1},       {"m", 1e-3},           {"k", 1e3},          {"M", 1e6},
      {"G", 1e9},    {"T", 1e12},           {"P", 1e15},         {"E", 1e18},
      {"Ki", 1024.}, {"Mi", 1048576.},      {"Gi", 1073741824.}, {"n", 1e-9},
      {"u", 1e-6},   {"Ti", 1099511627776.}};
  for (const auto& [name, mult] : units)
    if (suffix == name)
      return v * mult;
  return std::nullopt;
}

node_agent node_as_agent(const json& node, const std::string& slot_type,
                         double cpu_per_slot) {
  node_agent a;
  a.name = str_at(node, "/metadata/name");
  json alloc = json::object();
  if (node.is_object()
      && node.contains(json::json_pointer("/status/allocatable")))
    alloc = node.at(json::json_pointer("/status/allocatable"));
  auto qty = [&](const char* key) -> double {
    if (!alloc.is_object() || !alloc.contains(key))
      return 0;
    const auto& v = alloc[key];
    if (v.is_number())
      return v.get<double>();
    if (!v.is_string())
      return 0;
    return parse_quantity(v.get<std::string>()).value_or(0);
  };
  if (slot_type == "cpu") {
    double per = cpu_per_slot > 0 ? cpu_per_slot : 1.0;
    a.slots = static_cast<int64_t>(std::floor(qty("cpu") / per + 1e-9));
  } else {
    a.slots = static_cast<int64_t>(std::floor(qty("nvidia.com/gpu") + 1e-9));
  }
  for (const auto& c : arr_at(node, "/status/conditions"))
    if (c.is_object() && c.value("type", json()) == "Ready")
      a.ready = c.value("status", json()) == "True";
  a.disabled = !label_of(node, disabled_node_label).empty();
  bool cordoned =
      node.is_object()
      && node.contains(json::json_pointer("/spec/unschedulable"))
      && node.at(json::json_pointer("/spec/unschedulable")) == json(true);
  a.schedulable = !cordoned && !a.disabled;
  return a;
}

bool tolerates(const json& tolerations, const json& node) {
  for (const auto& taint : arr_at(node, "/spec/taints")) {
    if (!taint.is_object())
      continue;
    auto effect = taint.value("effect", std::string{});
    if (effect != "NoSchedule" && effect != "NoExecute")
      continue;
    auto key = taint.value("key", std::string{});
    auto value = taint.value("value", std::string{});
    bool ok = false;
    if (tolerations.is_array())
      for (const auto& t : tolerations) {
        if (!t.is_object())
          continue;
        auto tkey = t.value("key", std::string{});
        auto op = t.value("operator", std::string{"Equal"});
        auto teff = t.value("effect", std::string{});
        if (!teff.empty() && teff != effect)
          continue;
        if (op == "Exists" && (tkey.empty() || tkey == key))
          ok = true;
        else if (op == "Equal" && tkey == key
                 && t.value("value", std::string{}) == value)
          ok = true;
      }
    if (!ok)
      return false;
  }
  return true;
}

pod_status read_pod(const json& pod) {
  pod_status s;
  s.node = str_at(pod, "/spec/nodeName");
  auto phase = str_at(pod, "/status/phase");
  for (const auto& c : arr_at(pod, "/status/conditions"))
    if (c.is_object() && c.value("type", json()) == "PodScheduled"
        && c.value("status", json()) == "False")
      s.reason = c.value("message", std::string{});
  bool any = false;
  bool all_running = true;
  for (const auto& cs : arr_at(pod, "/status/containerStatuses")) {
    if (!cs.is_object() || !cs.contains("state") || !cs["state"].is_object())
      continue;
    any = true;
    const auto& st = cs["state"];
    if (st.contains("terminated") && st["terminated"].is_object()) {
      const auto& t = st["terminated"];
      s.state = pod_state::terminated;
      s.exit_code = t.value("exitCode", json(1)).is_number_integer()
                        ? t["exitCode"].get<int>()
                        : 1;
      s.reason = str_at(t, "/reason");
      s.message = str_at(t, "/message").substr(0, 1024);
      return s;
    }
    if (!st.contains("running"))
      all_running = false;
    if (st.contains("waiting") && st["waiting"].is_object()) {
      auto why = st["waiting"].value("reason", std::string{});
      if (!why.empty())
        s.reason = why;
      if (why == "ImagePullBackOff" || why == "ErrImagePull"
          || why == "InvalidImageName" || why == "CreateContainerConfigError")
        s.fatal_wait = true;
    }
  }
  if (phase == "Succeeded" || phase == "Failed") {
    s.state = pod_state::terminated;
    s.exit_code = phase == "Succeeded" ? 0 : 1;
    auto why = str_at(pod, "/status/reason");
    if (!why.empty())
      s.reason = why;
    if (why == "Evicted" || why == "Preempting" || why == "DeadlineExceeded")
      s.exit_code = 137;
    return s;
  }
  if (s.node.empty())
    s.state = pod_state::assigned;
  else if (phase == "Running" && any && all_running)
    s.state = pod_state::running;
  else
    s.state = pod_state::starting;
  return s;
}

std::string job_outcome(const json& job) {
  for (const auto& c : arr_at(job, "/status/conditions")) {
    if (!c.is_object() || c.value("status", json()) != "True")
      continue;
    auto t = c.value("type", std::string{});
    if (t == "Complete" || t == "Failed")
      return t;
  }
  return {};
}

std::optional<pod_message> read_event(const json& ev) {
  if (str_at(ev, "/involvedObject/kind") != "Pod")
    return std::nullopt;
  pod_message m;
  m.pod = str_at(ev, "/involvedObject/name");
  auto reason = str_at(ev, "/reason");
  auto msg = str_at(ev, "/message");
  if (m.pod.empty() || msg.empty())
    return std::nullopt;
  m.text = reason.empty() ? msg : reason + ": " + msg;
  m.warning = str_at(ev, "/type") == "Warning";
  return m;
}

std::string allocation_of(const json& obj) {
  return label_of(obj, allocation_label);
}

std::vector<std::string> leftovers(const std::vector<json>& objects,
                                   const std::string& cluster_id,
                                   const std::set<std::string>& known) {
  std::vector<std::string> out;
  const auto ours = label_value(cluster_id);
  std::set<std::string> known_labels;
  for (const auto& k : known)
    known_labels.insert(label_value(k));
  for (const auto& o : objects) {
    if (ours.empty() || label_of(o, cluster_label) != ours)
      continue;
    if (known_labels.count(allocation_of(o)) != 0)
      continue;
    auto name = str_at(o, "/metadata/name");
    if (!name.empty())
      out.push_back(name);
  }
  return out;
}

namespace {

/// A decimal in [lo, hi], or nullopt (no sign, no spaces, at most 9 digits).
std::optional<int64_t> small_number(const std::string& t, int64_t lo,
                                    int64_t hi) {
  if (t.empty() || t.size() > 9)
    return std::nullopt;
  int64_t v = 0;
  for (char c : t) {
    if (c < '0' || c > '9')
      return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (v < lo || v > hi)
    return std::nullopt;
  return v;
}

} // namespace

int pod_rank(const json& pod, int fallback) {
  auto v = small_number(
      metadata_value(pod, "annotations", completion_index_annotation), 0, 1023);
  return v ? static_cast<int>(*v) : fallback;
}

int64_t pods_of(const json& pod) {
  return small_number(label_of(pod, num_pods_label), 1, 1024).value_or(1);
}

std::vector<std::pair<std::string, std::string>>
gone_pods(const std::map<std::string, std::map<std::string, pod_status>>& known,
          const std::vector<json>& listed) {
  std::set<std::string> names;
  for (const auto& p : listed)
    names.insert(str_at(p, "/metadata/name"));
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [alloc, pods] : known)
    for (const auto& [pod, st] : pods)
      if (st.state != pod_state::terminated && names.count(pod) == 0)
        out.emplace_back(alloc, pod);
  return out;
}

} // namespace det::k8s
