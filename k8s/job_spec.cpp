#include "k8s/job_spec.hpp"

#include <cstdio>

namespace det::k8s {

using nlohmann::json;

namespace {

std::string fnv_hex(const std::string& s, int digits) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return std::string(buf).substr(0, static_cast<size_t>(digits));
}

bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
         || (c >= '0' && c <= '9');
}

/// Merges lists of named objects (containers, volumes) by "name".
json merge_named(const json& base, const json& over) {
  json out = base.is_array() ? base : json::array();
  if (!over.is_array())
    return out;
  for (const auto& o : over) {
    bool merged = false;
    if (o.is_object() && o.contains("name"))
      for (auto& b : out)
        if (b.is_object() && b.value("name", json()) == o["name"]) {
          b = merge_pod_specs(b, o);
          merged = true;
          break;
        }
    if (!merged)
      out.push_back(o);
  }
  return out;
}

/// The PodSpec inside a Pod-shaped object ({spec: ...}) or the object.
json spec_of(const json& pod_or_spec) {
  if (!pod_or_spec.is_object())
    return json::object();
  if (pod_or_spec.contains("spec") && pod_or_spec["spec"].is_object())
    return pod_or_spec["spec"];
  return pod_or_spec;
}

json meta_of(const json& pod) {
  if (pod.is_object() && pod.contains("metadata")
      && pod["metadata"].is_object())
    return pod["metadata"];
  return json::object();
}

std::string millicores(double cpu) {
  return std::to_string(static_cast<int64_t>(cpu * 1000.0 + 0.5)) + "m";
}

} // namespace

caf::expected<int64_t> num_pods(int64_t slots, int64_t max_slots_per_pod) {
  if (max_slots_per_pod < 1)
    return make_error(errc::invalid_argument,
                      "resource_manager.max_slots_per_pod: must be at least 1");
  if (slots < 0)
    return make_error(errc::invalid_argument,
                      "resources.slots_per_trial: must not be negative");
  if (slots <= max_slots_per_pod)
    return int64_t{1};
  if (slots % max_slots_per_pod != 0)
    return make_error(errc::invalid_argument,
                      "resources.slots_per_trial: " + std::to_string(slots)
                          + " slots do not divide into pods of "
                            "max_slots_per_pod "
                          + std::to_string(max_slots_per_pod));
  return slots / max_slots_per_pod;
}

std::string label_value(const std::string& raw) {
  std::string out;
  bool changed = false;
  for (char c : raw) {
    if (alnum(c) || c == '.' || c == '_' || c == '-') {
      out += c;
    } else {
      out += '_';
      changed = true;
    }
  }
  while (!out.empty() && !alnum(out.front())) {
    out.erase(out.begin());
    changed = true;
  }
  while (!out.empty() && !alnum(out.back())) {
    out.pop_back();
    changed = true;
  }
  if (out.size() > 63) {
    out.resize(54);
    changed = true;
  }
  if (changed && !raw.empty())
    out = (out.empty() ? std::string{"x"} : out) + "-" + fnv_hex(raw, 8);
  return out;
}

std::string job_name(const std::string& cluster_id,
                     const std::string& allocation_id) {
  std::string s;
  for (char c : allocation_id) {
    if (alnum(c))
      s += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    else
      s += '-';
  }
  if (s.size() > 40)
    s.resize(40);
  // The hash keeps two clusters sharing a namespace and allocations that
  // lost characters apart.
  return "det-" + s + "-" + fnv_hex(cluster_id + "/" + allocation_id, 8);
}

std::string priority_class_name(int priority) {
  return "determined-priority-" + std::to_string(priority);
}

json priority_class(int priority) {
  return json{{"apiVersion", "scheduling.k8s.io/v1"},
              {"kind", "PriorityClass"},
              {"metadata", {{"name", priority_class_name(priority)}}},
              {"value", 100 - priority},
              {"preemptionPolicy", "PreemptLowerPriority"},
              {"description", "Determined priority " + std::to_string(priority)
                                  + " (1 is the highest)"}};
}

std::map<std::string, std::string> allocation_labels(const job_settings& s,
                                                     const job_request& r) {
  std::map<std::string, std::string> out{
      {"determined", label_value(r.allocation_id)},
      {cluster_label, label_value(s.cluster_id)},
      {allocation_label, label_value(r.allocation_id)},
      {trial_label, std::to_string(r.trial_id)},
      {experiment_label, std::to_string(r.experiment_id)},
      {user_label, label_value(r.user)},
      {pool_label, label_value(r.pool)},
      {task_type_label,
       r.task_type.empty() ? std::string{"TRIAL"} : label_value(r.task_type)}};
  if (!r.task_id.empty())
    out[task_id_label] = label_value(r.task_id);
  return out;
}

json merge_pod_specs(const json& base, const json& over) {
  if (!over.is_object())
    return base.is_null() ? json::object() : base;
  json out = base.is_object() ? base : json::object();
  for (auto it = over.begin(); it != over.end(); ++it) {
    const auto& k = it.key();
    if (k == "containers" || k == "initContainers" || k == "volumes"
        || k == "env" || k == "volumeMounts")
      out[k] = merge_named(out.value(k, json::array()), it.value());
    else if (it->is_object() && out.contains(k) && out[k].is_object())
      out[k] = merge_pod_specs(out[k], *it);
    else
      out[k] = *it;
  }
  return out;
}

std::string cluster_selector(const std::string& cluster_id) {
  return std::string{cluster_label} + "=" + label_value(cluster_id);
}

caf::expected<job_objects> render_job(const job_settings& s,
                                      const job_request& r) {
  auto pods = num_pods(r.slots, s.max_slots_per_pod);
  if (!pods)
    return pods.error();
  if (r.command.empty())
    return make_error(errc::invalid_argument, "command: must not be empty");
  if (r.image.empty())
    return make_error(errc::invalid_argument,
                      "environment.image: must not be empty");
  if (s.slot_type != "gpu" && s.slot_type != "cpu")
    return make_error(errc::invalid_argument,
                      "resource_manager.slot_type: expected gpu or cpu");
  const int64_t per_pod = r.slots / *pods;
  const auto name = job_name(s.cluster_id, r.allocation_id);
  json labels = json::object();
  for (const auto& [k, v] : allocation_labels(s, r))
    labels[k] = v;

  json env = json::array();
  for (const auto& [k, v] : r.env)
    env.push_back({{"name", k}, {"value", v}});
  env.push_back(
      {{"name", "DET_POD_NAME"},
       {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.name"}}}}}});
  // The pod's rank among the allocation's pods: an Indexed Job's completion
  // index, which the Job controller writes on each pod.
  env.push_back(
      {{"name", "DET_POD_RANK"},
       {"valueFrom",
        {{"fieldRef",
          {{"fieldPath", std::string{"metadata.annotations['"}
                             + completion_index_annotation + "']"}}}}}});
  env.push_back({{"name", "DET_NUM_PODS"}, {"value", std::to_string(*pods)}});
  json resources = json::object();
  if (per_pod > 0) {
    if (s.slot_type == "gpu") {
      resources = {{"requests", {{"nvidia.com/gpu", per_pod}}},
                   {"limits", {{"nvidia.com/gpu", per_pod}}}};
    } else {
      auto cpu = millicores(static_cast<double>(per_pod) * s.cpu_per_slot);
      resources = {{"requests", {{"cpu", cpu}}}, {"limits", {{"cpu", cpu}}}};
    }
  }
  json container{
      {"name", container_name},
      {"image", r.image},
      {"command", r.command},
      {"env", env},
      {"resources", resources},
      {"volumeMounts", json::array({{{"name", "det-config"},
                                     {"mountPath", "/run/determined/config"},
                                     {"readOnly", true}}})}};
  json spec{{"restartPolicy", "Never"},
            {"containers", json::array({container})},
            {"volumes", json::array({{{"name", "det-config"},
                                      {"configMap", {{"name", name}}}}})},
            {"priorityClassName", priority_class_name(r.priority)}};
  if (!s.tolerations.empty())
    spec["tolerations"] = s.tolerations;
  if (!s.node_selector.empty())
    spec["nodeSelector"] = s.node_selector;
  // A disabled node carries the label; pods stay off it.
  spec["affinity"] = {
      {"nodeAffinity",
       {{"requiredDuringSchedulingIgnoredDuringExecution",
         {{"nodeSelectorTerms",
           json::array(
               {{{"matchExpressions",
                  json::array({{{"key", disabled_node_label},
                                {"operator", "DoesNotExist"}}})}}})}}}}}};
  json pod_labels = labels;
  pod_labels[num_pods_label] = std::to_string(*pods);
  if (s.default_scheduler == "coscheduler") {
    spec["schedulerName"] = "coscheduler";
    pod_labels["pod-group.scheduling.sigs.k8s.io/name"] = name;
    pod_labels["pod-group.scheduling.sigs.k8s.io/min-available"] =
        std::to_string(*pods);
  }
  // Pool defaults first, then the user's: the user's win, by container name.
  json merged = merge_pod_specs(spec, spec_of(s.pool_pod_spec));
  merged = merge_pod_specs(merged, spec_of(r.user_pod_spec));
  // What the resource manager relies on is not overridable.
  merged["restartPolicy"] = "Never";
  json pod_meta =
      merge_pod_specs(meta_of(s.pool_pod_spec), meta_of(r.user_pod_spec));
  pod_meta["labels"] =
      merge_pod_specs(pod_meta.value("labels", json::object()), pod_labels);

  json job{
      {"apiVersion", "batch/v1"},
      {"kind", "Job"},
      {"metadata",
       {{"name", name}, {"namespace", namespace_of(s, r)}, {"labels", labels}}},
      {"spec",
       {{"parallelism", *pods},
        {"completions", *pods},
        {"completionMode", "Indexed"},
        {"backoffLimit", 0},
        {"ttlSecondsAfterFinished", 900},
        {"template", {{"metadata", pod_meta}, {"spec", merged}}}}}};
  json data = json::object();
  for (const auto& [k, v] : r.files)
    data[k] = v;
  json cm{
      {"apiVersion", "v1"},
      {"kind", "ConfigMap"},
      {"metadata",
       {{"name", name}, {"namespace", namespace_of(s, r)}, {"labels", labels}}},
      {"data", data}};
  return job_objects{std::move(job), std::move(cm), *pods};
}

} // namespace det::k8s
