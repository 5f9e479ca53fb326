#include "kubernetes_rm.hpp"

#include "actors/agent_actor.hpp"
#include "k8s/job_runner.hpp"
#include "state/queries.hpp"
#include "util/log.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>

#include <chrono>
#include <map>
#include <mutex>

namespace det::master {

using nlohmann::json;

namespace {

/// The image a trial's pods name: environment.image (a string, or
/// {cpu, cuda} by slot type); a default otherwise.
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

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

} // namespace

/// One pool's virtual agent: the runner and the agent actor it reports to.
struct pool_bridge {
  std::string pool;
  std::string agent_id;
  std::unique_ptr<k8s::job_runner> runner;
  std::mutex mu;
  agent_actor agent;
  std::set<std::string> running_sent;
  /// Allocation -> trial, for scheduler messages in the trial's logs.
  std::map<std::string, int64_t> trials;
};

class kubernetes_rm {
public:
  std::vector<std::shared_ptr<pool_bridge>> pools;
};

namespace {

/// The agent actor's connection: orders -> Kubernetes calls (through the
/// runner, which never blocks this actor).
caf::behavior connection(caf::event_based_actor* self,
                         std::shared_ptr<pool_bridge> b,
                         kubernetes_rm_options opts, std::string slot_type) {
  return {
      [self, b, opts, slot_type](start_atom, start_order& o) {
        state_view v{[o](const state::cluster_state& s, int64_t) {
          json out{{"info", api::start_environment(s, o)}};
          if (const auto* t = state::find_trial(s, o.trial_id))
            if (const auto* e = state::find_experiment(s, t->experiment_id)) {
              out["priority"] = e->priority;
              out["owner"] = e->owner;
              out["config"] = e->config;
            }
          return out.dump();
        }};
        self->request(opts.master, std::chrono::seconds{30}, view_atom::value,
                      v)
            .await(
                [b, opts, o, slot_type](std::string& text) {
                  auto j = json::parse(text, nullptr, false);
                  if (j.is_discarded() || j["info"].is_null()) {
                    log::warn() << "kubernetes: allocation " << o.allocation_id
                                << ": its trial is gone; not started";
                    return;
                  }
                  auto token = opts.tokens->token_for(o.allocation_id);
                  auto frame =
                      api::start_frame(o, j["info"], opts.start, token);
                  k8s::job_request r;
                  r.allocation_id = o.allocation_id;
                  r.trial_id = o.trial_id;
                  r.experiment_id = o.experiment_id;
                  r.user = j.value("owner", std::string{"admin"});
                  r.pool = b->pool;
                  r.slots = static_cast<int64_t>(o.slots.size());
                  r.priority = j.value("priority", 42);
                  const auto& config = j.value("config", json::object());
                  r.image = image_of(config, slot_type);
                  auto env = config.value("environment", json::object());
                  if (env.is_object())
                    r.user_pod_spec = env.value("pod_spec", json());
                  r.command = {"det-agent",
                               "--run-allocation",
                               "/run/determined/config/start.json",
                               "--master-url",
                               opts.start.master_url,
                               "--checkpoint-dir",
                               opts.start.checkpoint_dir.empty()
                                   ? "/tmp/determined-checkpoint"
                                   : opts.start.checkpoint_dir};
                  r.files = {{"start.json", frame.dump()}};
                  {
                    std::lock_guard<std::mutex> g(b->mu);
                    b->trials[o.allocation_id] = o.trial_id;
                  }
                  log::info() << "kubernetes: starting allocation "
                              << o.allocation_id << " (trial " << o.trial_id
                              << ", " << r.slots << " slots) as a Job";
                  b->runner->launch(r);
                },
                [o](caf::error& err) {
                  log::error() << "kubernetes: cannot start allocation "
                               << o.allocation_id << ": " << render(err);
                });
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

} // namespace

caf::expected<std::shared_ptr<kubernetes_rm>>
start_kubernetes_rm(const conf::master_config& cfg,
                    const kubernetes_rm_options& opts) {
  const auto& kc = cfg.kubernetes;
  auto access = k8s::resolve_access(kc.kubeconfig_path);
  if (!access)
    return access.error();
  auto client = k8s::make_curl_api_client(*access);
  k8s::resources res{client};
  auto nodes = res.list(k8s::nodes_kind(), "", "");
  if (!nodes)
    return make_error(errc::remote_error, "kubernetes: cannot list nodes: "
                                              + render(nodes.error()));
  auto rm = std::make_shared<kubernetes_rm>();
  for (const auto& pool : cfg.resource_pools) {
    auto b = std::make_shared<pool_bridge>();
    b->pool = pool.pool_name;
    b->agent_id = "k8s-" + pool.pool_name;
    k8s::job_settings s;
    s.cluster_id = opts.cluster_id;
    s.ns = kc.default_namespace;
    s.max_slots_per_pod = kc.max_slots_per_pod;
    s.slot_type = kc.slot_type;
    s.cpu_per_slot = kc.cpu_per_slot;
    s.default_scheduler = kc.default_scheduler;
    s.pool_pod_spec = pool.pod_spec;
    json spec = pool.pod_spec.is_object() && pool.pod_spec.contains("spec")
                    ? pool.pod_spec["spec"]
                    : pool.pod_spec;
    json tolerations = spec.is_object()
                           ? spec.value("tolerations", json::array())
                           : json::array();
    int64_t slots = 0;
    for (const auto& n : nodes->items) {
      auto a = k8s::node_as_agent(n, kc.slot_type, kc.cpu_per_slot);
      if (a.ready && a.schedulable && k8s::tolerates(tolerations, n))
        slots += a.slots;
    }
    std::weak_ptr<pool_bridge> weak = b;
    k8s::runner_callbacks cb;
    auto logs = opts.logs;
    cb.on_pod_state = [weak](const std::string& alloc, const std::string& pod,
                             k8s::pod_state st, const std::string& node) {
      auto p = weak.lock();
      if (!p)
        return;
      log::info() << "kubernetes: pod " << pod << " of " << alloc << " is "
                  << (st == k8s::pod_state::running    ? "running"
                      : st == k8s::pod_state::starting ? "starting"
                                                       : "pending")
                  << (node.empty() ? "" : " on " + node);
      if (st != k8s::pod_state::running)
        return;
      std::lock_guard<std::mutex> g(p->mu);
      if (p->running_sent.insert(alloc).second)
        caf::anon_send(p->agent, running_atom::value, alloc);
    };
    cb.on_exit = [weak](const std::string& alloc, int code) {
      auto p = weak.lock();
      if (!p)
        return;
      log::info() << "kubernetes: allocation " << alloc << " exited with "
                  << code;
      std::lock_guard<std::mutex> g(p->mu);
      caf::anon_send(p->agent, exited_atom::value, alloc,
                     static_cast<int32_t>(code));
    };
    cb.on_note = [pool = pool.pool_name](const std::string& text) {
      log::warn() << "kubernetes: pool " << pool << ": " << text;
    };
    cb.on_log = [logs, id = b->agent_id](const std::string&, int64_t trial,
                                         std::vector<std::string> lines) {
      if (trial > 0)
        logs->add(trial, id, lines, now_us());
    };
    cb.on_message = [weak, logs, id = b->agent_id](const std::string& alloc,
                                                   const std::string& text) {
      log::info() << "kubernetes: allocation " << alloc << ": " << text;
      auto p = weak.lock();
      if (!p)
        return;
      int64_t trial = 0;
      {
        std::lock_guard<std::mutex> g(p->mu);
        auto it = p->trials.find(alloc);
        trial = it == p->trials.end() ? 0 : it->second;
      }
      // Scheduling messages ("FailedScheduling: 0/3 nodes are available:
      // ...") belong in the trial's logs, where its owner looks.
      if (trial > 0)
        logs->add(trial, id, {"kubernetes: " + text}, now_us());
    };
    b->runner = std::make_unique<k8s::job_runner>(client, s, cb);
    auto running = b->runner->list_allocations();
    if (!running)
      return make_error(errc::remote_error, "kubernetes: cannot list Jobs: "
                                                + render(running.error()));
    agent_hello hello;
    hello.agent_id = b->agent_id;
    hello.pool = pool.pool_name;
    hello.slots = static_cast<int32_t>(std::min<int64_t>(slots, 1 << 20));
    hello.slot_type = kc.slot_type == "gpu" ? "cuda" : "cpu";
    hello.running_allocations.assign(running->begin(), running->end());
    auto conn = opts.sys->spawn(connection, b, opts, kc.slot_type);
    {
      std::lock_guard<std::mutex> g(b->mu);
      b->agent = spawn_agent_actor(*opts.sys, opts.master, hello, conn);
    }
    log::info() << "kubernetes: pool " << pool.pool_name << " is agent "
                << b->agent_id << " with " << slots << " " << kc.slot_type
                << " slots in namespace " << s.ns << "; re-attaching "
                << running->size() << " Job(s)";
    b->runner->start();
    rm->pools.push_back(std::move(b));
  }
  return rm;
}

void stop_kubernetes_rm(std::shared_ptr<kubernetes_rm>& rm) {
  if (!rm)
    return;
  for (auto& b : rm->pools)
    b->runner.reset();
  rm.reset();
}

} // namespace det::master
