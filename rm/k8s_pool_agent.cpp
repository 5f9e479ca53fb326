#include "rm/k8s_pool_agent.hpp"

#include "api/task_proxy.hpp"
#include "api/task_views.hpp"
#include "messages/priority.hpp"
#include "state/queries.hpp"
#include "state/records_queries.hpp"
#include "util/log.hpp"

#include <caf/send.hpp>

#include <chrono>

namespace det::rm {

using nlohmann::json;

int64_t slots_per_pod(int64_t slots, int64_t max_slots_per_pod) {
  auto pods = k8s::num_pods(slots, max_slots_per_pod);
  return pods && *pods > 0 ? slots / *pods : slots;
}

std::string task_of(const std::string& alloc) {
  auto dot = alloc.rfind('.');
  if (dot == std::string::npos || dot == 0)
    return {};
  auto id = alloc.substr(0, dot);
  if (id.find_first_not_of("0123456789") == std::string::npos)
    return {};
  return id;
}

namespace {

/// The image a trial's or task's pods name: environment.image (a string,
/// or {cpu, cuda} by slot type); a default otherwise.
std::string image_of(const json& config, const std::string& slot_type) {
  static const std::string fallback = "determinedai/det-task:0.38.1";
  auto env = config.value("environment", json::object());
  if (!env.is_object())
    return fallback;
  auto img = env.value("image", json());
  if (img.is_string())
    return img.get<std::string>();
  if (img.is_object()) {
    auto v = img.value(slot_type == "gpu" ? "cuda" : "cpu", json());
    if (v.is_string())
      return v.get<std::string>();
  }
  return fallback;
}

/// What every pod runs: det-agent's runner of the start frame in the
/// allocation's ConfigMap (agent/run_allocation.hpp).
std::vector<std::string> pod_command(const kubernetes_rm_options& opts) {
  return {"det-agent",
          "--run-allocation",
          "/run/determined/config/start.json",
          "--master-url",
          opts.start.master_url,
          "--checkpoint-dir",
          opts.start.checkpoint_dir.empty() ? "/tmp/determined-checkpoint"
                                            : opts.start.checkpoint_dir};
}

/// The pod spec environment.pod_spec of `config` names (null if none).
json user_pod_spec(const json& config) {
  auto env = config.value("environment", json::object());
  return env.is_object() ? env.value("pod_spec", json()) : json();
}

/// Fills in what every allocation's Job takes alike (the pool, the
/// priority and namespace the master's `view` gave, the image and pod spec
/// of `config`, det-agent's command, the start frame), remembers whose
/// allocation `r` is (for scheduler messages), tells the node watch its
/// slots and hands it to the runner.
void launch_job(pool_bridge& b, const kubernetes_rm_options& opts,
                const std::string& slot_type, k8s::job_request r,
                const json& config, const json& frame, const json& view) {
  r.pool = b.pool;
  r.priority = view.value("priority", default_priority);
  r.ns = view.value("namespace", std::string{});
  r.image = image_of(config, slot_type);
  r.user_pod_spec = user_pod_spec(config);
  r.command = pod_command(opts);
  r.files = {{"start.json", frame.dump()}};
  {
    std::lock_guard<std::mutex> g(b.mu);
    if (r.task_id.empty())
      b.trials[r.allocation_id] = r.trial_id;
    else
      b.tasks[r.allocation_id] = r.task_id;
  }
  if (auto nw = b.nodes.lock())
    nw->allocation_slots(r.allocation_id,
                         slots_per_pod(r.slots, b.max_slots_per_pod));
  log::info() << "kubernetes: starting allocation " << r.allocation_id << " ("
              << (r.task_id.empty() ? "trial " + std::to_string(r.trial_id)
                                    : "task " + r.task_id)
              << ", " << r.slots << " slots) as a Job"
              << (r.ns.empty() ? "" : " in namespace " + r.ns);
  b.runner->launch(r);
}

/// What a start whose state view failed leaves: a line in the log.
auto start_failed(std::string alloc) {
  return [alloc = std::move(alloc)](caf::error& err) {
    log::error() << "kubernetes: cannot start allocation " << alloc << ": "
                 << render(err);
  };
}

/// The namespace workspace `workspace_id` is bound to in cluster
/// `cluster_name` (det workspace bindings set), or "".
std::string bound_namespace(const state::cluster_state& s, int64_t workspace_id,
                            const std::string& cluster_name) {
  if (auto w = state::find_workspace(s, workspace_id))
    if (auto n = w->namespaces.find(cluster_name); n != w->namespaces.end())
      return n->second;
  return {};
}

} // namespace

caf::behavior pool_connection(caf::event_based_actor* self,
                              std::shared_ptr<pool_bridge> b,
                              kubernetes_rm_options opts, std::string slot_type,
                              std::string cluster_name) {
  return {
      [self, b, opts, slot_type, cluster_name](start_atom, start_order& o) {
        state_view v{[o, cluster_name](const state::cluster_state& s, int64_t) {
          json out{{"info", api::start_environment(s, o)}};
          if (const auto* t = state::find_trial(s, o.trial_id))
            if (const auto* e = state::find_experiment(s, t->experiment_id)) {
              out["priority"] = e->priority;
              out["owner"] = e->owner;
              out["config"] = e->config;
              // Its workspace's namespace binding, as it is at the start
              // of this allocation.
              if (auto p = state::find_project(s, e->project_id))
                out["namespace"] =
                    bound_namespace(s, p->workspace_id, cluster_name);
            }
          return out.dump();
        }};
        self->request(opts.rm.master, std::chrono::seconds{30},
                      view_atom::value, v)
            .await(
                [b, opts, o, slot_type](std::string& text) {
                  auto j = json::parse(text, nullptr, false);
                  if (j.is_discarded() || j["info"].is_null()) {
                    log::warn() << "kubernetes: allocation " << o.allocation_id
                                << ": its trial is gone; not started";
                    return;
                  }
                  auto token = opts.rm.tokens->token_for(o.allocation_id);
                  auto frame =
                      api::start_frame(o, j["info"], opts.start, token);
                  k8s::job_request r;
                  r.allocation_id = o.allocation_id;
                  r.trial_id = o.trial_id;
                  r.experiment_id = o.experiment_id;
                  r.user = j.value("owner", std::string{"admin"});
                  r.slots = static_cast<int64_t>(o.slots.size());
                  launch_job(*b, opts, slot_type, std::move(r),
                             j.value("config", json::object()), frame, j);
                },
                start_failed(o.allocation_id));
      },
      // A command, notebook, shell, TensorBoard or generic task: the same
      // Job, whose pod runs the task's start frame; its service reports
      // ready from the pod (POST /api/v1/allocations/{id}/ready), and the
      // master proxies to the pod's address.
      [self, b, opts, slot_type, cluster_name](start_atom,
                                               task_start_order& o) {
        state_view v{[id = o.task_id,
                      cluster_name](const state::cluster_state& s, int64_t) {
          auto t = s.tasks.find(id);
          if (t == s.tasks.end())
            return std::string{};
          return json{{"priority", t->second.priority},
                      {"namespace", bound_namespace(s, t->second.workspace_id,
                                                    cluster_name)}}
              .dump();
        }};
        self->request(opts.rm.master, std::chrono::seconds{30},
                      view_atom::value, v)
            .await(
                [b, opts, o, slot_type](std::string& text) {
                  auto j = json::parse(text, nullptr, false);
                  if (j.is_discarded() || !j.is_object()) {
                    log::warn() << "kubernetes: allocation " << o.allocation_id
                                << ": its task is gone; not started";
                    return;
                  }
                  auto frame = api::task_start_frame(
                      o, slot_type == "gpu" ? "cuda" : "cpu", opts.start,
                      api::task_secrets_for(*opts.rm.tokens, o));
                  k8s::job_request r;
                  r.allocation_id = o.allocation_id;
                  r.task_id = o.task_id;
                  r.task_type = o.task_type;
                  r.user = o.owner;
                  r.slots = static_cast<int64_t>(o.slots.size());
                  launch_job(*b, opts, slot_type, std::move(r), o.config, frame,
                             j);
                },
                start_failed(o.allocation_id));
      },
      [](preempt_atom, std::string&, std::string&) {
        // The trial learns of its preemption by polling the master.
      },
      [b](kill_atom, std::string& alloc) {
        log::info() << "kubernetes: deleting the Job of allocation " << alloc;
        b->runner->kill(alloc);
      },
      [](exitack_atom, std::string&) {},
  };
}

} // namespace det::rm
