#include "rm/kubernetes_rm.hpp"

#include "api/views.hpp"
#include "rm/core_settings.hpp"
#include "rm/k8s_pool_agent.hpp"
#include "state/queries.hpp"
#include "state/records_queries.hpp"
#include "util/log.hpp"
#include "util/serial_worker.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include <chrono>
#include <map>
#include <mutex>

namespace det::rm {

using nlohmann::json;

namespace {

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// What the state says of this cluster's virtual agents: each one's slots
/// (its length, which a reconnect must repeat, and its capacity) and the
/// slots of the allocations on it.
struct known_agents {
  std::map<std::string, std::pair<int64_t, int64_t>> slots;
  std::map<std::string, int64_t> allocation_slots;
};

known_agents ask_known_agents(const kubernetes_rm_options& opts) {
  known_agents out;
  state_view v{[](const state::cluster_state& s, int64_t) {
    json j{{"agents", json::object()}, {"allocations", json::object()}};
    for (const auto& [id, a] : s.agents) {
      if (id.rfind("k8s-", 0) != 0)
        continue;
      j["agents"][id] = {static_cast<int64_t>(a.slots.size()),
                         state::slot_capacity(a)};
      for (const auto& alloc : state::allocations_on_agent(s, id))
        if (auto t = state::trial_of_allocation(s, alloc); t && t->allocation) {
          int64_t n = 0;
          for (const auto& as : t->allocation->assignments)
            n += static_cast<int64_t>(as.slots.size());
          j["allocations"][alloc] = n;
        } else if (auto k = state::task_of_allocation(s, alloc)) {
          j["allocations"][alloc] = static_cast<int64_t>(k->agent_slots.size());
        }
    }
    return j.dump();
  }};
  caf::scoped_actor self{*opts.rm.sys};
  self->request(opts.rm.master, std::chrono::seconds{30}, view_atom::value, v)
      .receive(
          [&](std::string& text) {
            auto j = json::parse(text, nullptr, false);
            if (j.is_discarded())
              return;
            for (const auto& [id, n] : j["agents"].items())
              out.slots[id] = {n[0].get<int64_t>(), n[1].get<int64_t>()};
            for (const auto& [alloc, n] : j["allocations"].items())
              out.allocation_slots[alloc] = n.get<int64_t>();
          },
          [](caf::error& err) {
            log::warn() << "kubernetes: cannot read the agents' slots: "
                        << render(err);
          });
  return out;
}

} // namespace

/// What a started manager runs: the pools' virtual agents and the watch.
class kubernetes_pools {
public:
  std::vector<std::shared_ptr<pool_bridge>> pools;
  std::shared_ptr<node_watch> nodes;
};

namespace {

caf::expected<std::shared_ptr<kubernetes_pools>>
start_kubernetes_pools(const conf::master_config& cfg,
                       const kubernetes_rm_options& opts) {
  const auto& kc = cfg.kubernetes;
  auto access = k8s::resolve_access(kc.kubeconfig_path, opts.sa_dir);
  if (!access)
    return access.error();
  auto client = k8s::make_curl_api_client(*access);
  k8s::resources res{client};
  auto nodes = res.list(k8s::nodes_kind(), "", "");
  if (!nodes)
    return make_error(errc::remote_error, "kubernetes: cannot list nodes: "
                                              + render(nodes.error()));
  auto rm = std::make_shared<kubernetes_pools>();
  node_watch_options nwo;
  nwo.client = client;
  nwo.slot_type = kc.slot_type;
  nwo.cpu_per_slot = kc.cpu_per_slot;
  for (const auto& pool : cfg.resource_pools)
    nwo.pools.push_back(k8s::placement_of(pool.pool_name, pool.pod_spec));
  rm->nodes = std::make_shared<node_watch>(
      nwo, [sys = opts.rm.sys, rm_weak = std::weak_ptr<kubernetes_pools>(rm)](
               const std::string& pool, int64_t n) {
        auto r = rm_weak.lock();
        if (!r)
          return false;
        agent_actor agent;
        for (const auto& b : r->pools)
          if (b->pool == pool) {
            std::lock_guard<std::mutex> g(b->mu);
            agent = b->agent;
          }
        if (!agent)
          return false;
        bool ok = false;
        caf::scoped_actor self{*sys};
        self->request(agent, std::chrono::seconds{30}, resize_atom::value,
                      static_cast<int32_t>(std::min<int64_t>(n, 1 << 20)))
            .receive([&](caf::ok_atom) { ok = true; },
                     [&](caf::error& err) {
                       log::warn() << "kubernetes: pool " << pool
                                   << ": slots not changed: " << render(err);
                     });
        return ok;
      });
  auto capacities = rm->nodes->sync(nodes->items);
  auto known = ask_known_agents(opts);
  std::map<std::string, int64_t> written;
  for (const auto& pool : cfg.resource_pools) {
    auto b = std::make_shared<pool_bridge>();
    b->pool = pool.pool_name;
    b->agent_id = "k8s-" + pool.pool_name;
    b->nodes = rm->nodes;
    b->max_slots_per_pod = kc.max_slots_per_pod;
    k8s::job_settings s;
    s.cluster_id = opts.rm.cluster_id;
    s.ns = kc.default_namespace;
    s.max_slots_per_pod = kc.max_slots_per_pod;
    s.slot_type = kc.slot_type;
    s.cpu_per_slot = kc.cpu_per_slot;
    s.default_scheduler = kc.default_scheduler;
    s.pool_pod_spec = pool.pod_spec;
    int64_t slots = capacities[pool.pool_name];
    // A reconnect repeats the slots the log holds; the watch then writes
    // the capacity the nodes give now.
    int64_t hello_slots = slots;
    if (auto k = known.slots.find(b->agent_id); k != known.slots.end()) {
      hello_slots = k->second.first;
      written[pool.pool_name] = k->second.second;
    } else {
      written[pool.pool_name] = slots;
    }
    std::weak_ptr<pool_bridge> weak = b;
    k8s::runner_callbacks cb;
    auto logs = opts.rm.logs;
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
      if (auto nw = p->nodes.lock())
        nw->pod_on_node(alloc, pod, node);
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
      if (auto nw = p->nodes.lock())
        nw->allocation_ended(alloc);
      std::lock_guard<std::mutex> g(p->mu);
      caf::anon_send(p->agent, exited_atom::value, alloc,
                     static_cast<int32_t>(code));
    };
    cb.on_note = [pool = pool.pool_name](const std::string& text) {
      log::warn() << "kubernetes: pool " << pool << ": " << text;
    };
    cb.on_log = [logs, task_logs = opts.rm.task_logs,
                 id = b->agent_id](const std::string& alloc, int64_t trial,
                                   std::vector<std::string> lines) {
      if (trial > 0)
        logs->add(trial, id, lines, now_us());
      else if (auto task = task_of(alloc); !task.empty() && task_logs)
        task_logs->add(task, id, lines, now_us());
    };
    cb.on_message = [weak, logs, task_logs = opts.rm.task_logs,
                     id = b->agent_id](const std::string& alloc,
                                       const std::string& text) {
      log::info() << "kubernetes: allocation " << alloc << ": " << text;
      auto p = weak.lock();
      if (!p)
        return;
      int64_t trial = 0;
      std::string task;
      {
        std::lock_guard<std::mutex> g(p->mu);
        auto it = p->trials.find(alloc);
        trial = it == p->trials.end() ? 0 : it->second;
        auto k = p->tasks.find(alloc);
        task = k == p->tasks.end() ? "" : k->second;
      }
      // Scheduling messages ("FailedScheduling: 0/3 nodes are available:
      // ...") belong in the trial's or task's logs, where its owner looks.
      if (trial > 0)
        logs->add(trial, id, {"kubernetes: " + text}, now_us());
      else if (!task.empty() && task_logs)
        task_logs->add(task, id, {"kubernetes: " + text}, now_us());
    };
    b->runner = std::make_unique<k8s::job_runner>(client, s, cb);
    auto running = b->runner->list_allocations();
    if (!running)
      return make_error(errc::remote_error, "kubernetes: cannot list Jobs: "
                                                + render(running.error()));
    agent_hello hello;
    hello.agent_id = b->agent_id;
    hello.pool = pool.pool_name;
    hello.slots = static_cast<int32_t>(std::min<int64_t>(hello_slots, 1 << 20));
    hello.slot_type = kc.slot_type == "gpu" ? "cuda" : "cpu";
    hello.running_allocations.assign(running->begin(), running->end());
    auto conn = opts.rm.sys->spawn(pool_connection, b, opts, kc.slot_type,
                                   kc.cluster_name);
    {
      std::lock_guard<std::mutex> g(b->mu);
      b->agent = spawn_agent_actor(*opts.rm.sys, opts.rm.master, hello, conn);
      b->connection = conn;
    }
    log::info() << "kubernetes: pool " << pool.pool_name << " is agent "
                << b->agent_id << " with " << slots << " " << kc.slot_type
                << " slots in namespace " << s.ns << "; re-attaching "
                << running->size() << " Job(s)";
    for (const auto& alloc : *running)
      if (auto k = known.allocation_slots.find(alloc);
          k != known.allocation_slots.end())
        rm->nodes->allocation_slots(
            alloc, slots_per_pod(k->second, kc.max_slots_per_pod));
    b->runner->start();
    rm->pools.push_back(std::move(b));
  }
  rm->nodes->start(written);
  if (opts.nodes)
    opts.nodes->bind(rm->nodes);
  return rm;
}

std::function<void(std::string, std::function<void(std::string)>)>
namespace_checker(const conf::kubernetes_rm_config& kc, std::string sa_dir) {
  struct checker {
    std::string kubeconfig;
    std::string sa_dir;
    std::shared_ptr<k8s::api_client> client; // made on first use
    util::serial_worker worker{64};
  };
  auto c = std::make_shared<checker>();
  c->kubeconfig = kc.kubeconfig_path;
  c->sa_dir = std::move(sa_dir);
  return [c](std::string ns, std::function<void(std::string)> done) {
    // The job holds no reference: the last one dropped on the worker's own
    // thread would join it from itself. The worker (the last member) runs
    // what is queued before the client goes.
    bool queued = c->worker.submit([c = c.get(), ns, done] {
      if (!c->client) {
        auto access = k8s::resolve_access(c->kubeconfig, c->sa_dir);
        if (!access)
          return done("cannot reach the Kubernetes API server: "
                      + render(access.error()));
        c->client = k8s::make_curl_api_client(*access);
      }
      k8s::resources res{c->client};
      auto got = res.get(k8s::namespaces_kind(), "", ns);
      if (got)
        return done("");
      if (code_of(got.error()) == errc::not_found)
        return done("namespace '" + ns
                    + "' does not exist in the Kubernetes cluster");
      done("cannot check namespace '" + ns + "': " + render(got.error()));
    });
    if (!queued)
      done("too many namespace checks are waiting; try again");
  };
}

void stop_kubernetes_pools(std::shared_ptr<kubernetes_pools>& rm) {
  if (!rm)
    return;
  rm->nodes.reset();
  for (auto& b : rm->pools) {
    b->runner.reset();
    // Nothing else ends a pool's agent and its connection (under det-agents
    // the closing socket does): left running, the actor system's end waited
    // on them until a supervisor's SIGKILL.
    std::lock_guard<std::mutex> g(b->mu);
    if (b->agent)
      caf::anon_send_exit(b->agent, caf::exit_reason::user_shutdown);
    if (b->connection)
      caf::anon_send_exit(b->connection, caf::exit_reason::user_shutdown);
    b->agent = agent_actor{};
    b->connection = caf::actor{};
  }
  rm.reset();
}

class kubernetes_rm final : public resource_manager {
public:
  kubernetes_rm(conf::master_config cfg, std::string sa_dir)
      : cfg_(std::move(cfg)), sa_dir_(std::move(sa_dir)) {}

  ~kubernetes_rm() override { stop(); }

  void attach_api(api::api_context& ctx) override {
    ctx.nodes = nodes_;
    ctx.check_namespace = namespace_checker(cfg_.kubernetes, sa_dir_);
  }

  caf::error start(const rm_context& ctx) override {
    kubernetes_rm_options ko;
    ko.rm = ctx;
    ko.start = {cfg_.kubernetes.task_master_url(ctx.port), checkpoint_dir(cfg_),
                ctx.cluster_id, ctx.cluster_uuid};
    ko.sa_dir = sa_dir_;
    ko.nodes = nodes_;
    auto started = start_kubernetes_pools(cfg_, ko);
    if (!started)
      // The line main logs is the error as it renders here.
      return make_error(errc::remote_error, render(started.error()));
    pools_ = std::move(*started);
    return caf::none;
  }

  void stop() override {
    stop_kubernetes_pools(pools_);
    // The API's handle is the node watch's last owner: unbound, the watch
    // stops and joins its threads now, while the actor system still runs
    // (its flusher may be in a request to a pool's agent). Left bound, the
    // actor system's end waited on it until a supervisor's SIGKILL.
    nodes_->bind(nullptr);
  }

private:
  conf::master_config cfg_;
  std::string sa_dir_;
  std::shared_ptr<node_agents_handle> nodes_ =
      std::make_shared<node_agents_handle>();
  std::shared_ptr<kubernetes_pools> pools_;
};

} // namespace

std::unique_ptr<resource_manager>
make_kubernetes_rm(const conf::master_config& cfg, std::string sa_dir) {
  return std::make_unique<kubernetes_rm>(cfg, std::move(sa_dir));
}

} // namespace det::rm
