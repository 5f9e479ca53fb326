#include "conf/kubernetes_config.hpp"

#include "util/text.hpp"

namespace det::conf {

std::string kubernetes_rm_config::task_master_url(uint16_t master_port) const {
  std::string host =
      determined_master_host.empty()
          ? master_service_name + "." + default_namespace + ".svc.cluster.local"
          : determined_master_host;
  uint16_t port =
      determined_master_port != 0 ? determined_master_port : master_port;
  return determined_master_scheme + "://" + host + ":" + std::to_string(port);
}

void read_kubernetes_rm(object_reader& rm, kubernetes_rm_config& out) {
  rm.alias("namespace", "default_namespace");
  out.default_namespace = rm.str("default_namespace", out.default_namespace);
  if (!util::dns_label_problem(out.default_namespace).empty())
    rm.fail("default_namespace", "not a Kubernetes namespace name: \""
                                     + out.default_namespace + "\"");
  auto max = rm.opt_integer("max_slots_per_pod", 0, 1'000'000);
  if (!max)
    rm.fail("max_slots_per_pod",
            "required with type kubernetes (the most slots one pod asks "
            "for, e.g. the GPUs of the largest node)");
  else
    out.max_slots_per_pod = *max;
  out.slot_type = rm.choice("slot_type", out.slot_type, {"gpu", "cpu"});
  {
    auto req = rm.child("slot_resource_requests");
    out.cpu_per_slot = req.number("cpu", out.cpu_per_slot);
    if (!(out.cpu_per_slot > 0) || out.cpu_per_slot > 1'000'000)
      req.fail("cpu", "must be a positive number of cores");
    req.finish();
  }
  out.master_service_name =
      rm.str("master_service_name", out.master_service_name);
  out.default_scheduler = rm.str("default_scheduler", "");
  if (!out.default_scheduler.empty() && out.default_scheduler != "coscheduler"
      && out.default_scheduler != "default-scheduler")
    rm.fail("default_scheduler",
            "expected coscheduler or default-scheduler, got \""
                + out.default_scheduler + "\"");
  if (out.default_scheduler == "default-scheduler")
    out.default_scheduler.clear();
  out.kubeconfig_path = rm.str("kubeconfig_path", "");
  out.determined_master_host = rm.str("determined_master_host", "");
  out.determined_master_port =
      static_cast<uint16_t>(rm.integer("determined_master_port", 0, 0, 65535));
  out.determined_master_scheme =
      rm.choice("determined_master_scheme", out.determined_master_scheme,
                {"http", "https"});
  out.leave_kubernetes_resources =
      rm.boolean("leave_kubernetes_resources", false);
  out.cluster_name = rm.str("cluster_name", "");
  // Upstream keys kept but not acted on.
  rm.allow({"fluent", "determined_master_ip", "name", "metadata", "credentials",
            "default_aux_resource_pool", "default_compute_resource_pool"});
}

nlohmann::json pod_spec_of(const nlohmann::json* tcd,
                           const std::string& slot_type,
                           const std::string& path, diagnostics& diag) {
  if (tcd == nullptr || !tcd->is_object())
    return nullptr;
  const char* key = slot_type == "cpu" ? "cpu_pod_spec" : "gpu_pod_spec";
  auto it = tcd->find(key);
  if (it == tcd->end() || it->is_null())
    return nullptr;
  if (!it->is_object()) {
    diag.error(join_path(path, key),
               "expected a pod spec (an object), got " + describe(*it));
    return nullptr;
  }
  return *it;
}

} // namespace det::conf
