#include "rm/k8s_nodes.hpp"

#include "k8s/job_spec.hpp"
#include "k8s/watch.hpp"
#include "messages/errc.hpp"
#include "util/log.hpp"
#include "util/serial_worker.hpp"
#include "util/time_text.hpp"

namespace det::rm {

using nlohmann::json;

namespace {

std::string text_at(const json& j, const char* ptr) {
  auto p = json::json_pointer(ptr);
  if (!j.is_object() || !j.contains(p) || !j.at(p).is_string())
    return {};
  return j.at(p).get<std::string>();
}

std::vector<std::string> addresses_of(const json& node) {
  std::vector<std::string> out;
  auto p = json::json_pointer("/status/addresses");
  if (!node.is_object() || !node.contains(p) || !node.at(p).is_array())
    return out;
  for (const auto& a : node.at(p))
    if (a.is_object() && a.value("address", json()).is_string())
      out.push_back(a["address"].get<std::string>());
  return out;
}

} // namespace

node_watch::node_watch(node_watch_options opts, capacity_writer write)
    : opts_(std::move(opts)), write_(std::move(write)), res_(opts_.client),
      coalescer_(opts_.settle),
      worker_(std::make_unique<util::serial_worker>(64)) {}

node_watch::~node_watch() {
  stop_ = true;
  cv_.notify_all();
  for (auto& t : threads_)
    if (t.joinable())
      t.join();
}

std::map<std::string, int64_t>
node_watch::sync(const std::vector<json>& nodes) {
  std::lock_guard<std::mutex> g(mu_);
  table_.sync(nodes);
  return k8s::pool_capacities(table_, opts_.pools, opts_.slot_type,
                              opts_.cpu_per_slot);
}

void node_watch::changed_locked() {
  auto now = k8s::capacity_coalescer::clock::now();
  for (const auto& [pool, n] : k8s::pool_capacities(
           table_, opts_.pools, opts_.slot_type, opts_.cpu_per_slot))
    coalescer_.observe(pool, n, now);
  cv_.notify_all();
}

void node_watch::start(const std::map<std::string, int64_t>& written) {
  {
    std::lock_guard<std::mutex> g(mu_);
    for (const auto& [pool, n] : written)
      coalescer_.written(pool, n);
    changed_locked();
  }
  threads_.emplace_back([this] {
    k8s::watch_options o;
    o.timeout_seconds = opts_.watch_timeout_seconds;
    k8s::watch_handlers h;
    h.on_sync = [this](const std::vector<json>& items) {
      std::lock_guard<std::mutex> g(mu_);
      table_.sync(items);
      changed_locked();
    };
    h.on_event = [this](const k8s::watch_event& ev) {
      std::lock_guard<std::mutex> g(mu_);
      table_.apply(ev.type, ev.object);
      changed_locked();
    };
    h.on_note = [](const std::string& note) {
      log::info() << "kubernetes: nodes watch: " << note;
    };
    k8s::watch_loop(res_, k8s::nodes_kind(), "", o, h, stop_);
  });
  threads_.emplace_back([this] { flush_loop(); });
}

void node_watch::flush_loop() {
  std::unique_lock<std::mutex> lk(mu_);
  while (!stop_) {
    cv_.wait_for(lk, std::chrono::milliseconds{200});
    if (stop_)
      return;
    auto now = k8s::capacity_coalescer::clock::now();
    auto due = coalescer_.due(now);
    if (due.empty())
      continue;
    lk.unlock();
    std::map<std::string, bool> ok;
    for (const auto& [pool, n] : due) {
      log::info() << "kubernetes: pool " << pool << " has " << n << " "
                  << opts_.slot_type << " slots now";
      ok[pool] = write_(pool, n);
    }
    lk.lock();
    for (const auto& [pool, n] : due) {
      if (ok[pool]) {
        coalescer_.written(pool, n);
      } else {
        log::warn() << "kubernetes: pool " << pool
                    << ": its capacity was not written; trying again";
        coalescer_.retry_later(pool, k8s::capacity_coalescer::clock::now());
      }
    }
  }
}

void node_watch::allocation_slots(const std::string& alloc,
                                  int64_t slots_per_pod) {
  std::lock_guard<std::mutex> g(mu_);
  slots_per_pod_[alloc] = slots_per_pod;
}

void node_watch::pod_on_node(const std::string& alloc, const std::string& pod,
                             const std::string& node) {
  std::lock_guard<std::mutex> g(mu_);
  if (!node.empty())
    pods_[alloc][pod] = node;
}

void node_watch::allocation_ended(const std::string& alloc) {
  std::lock_guard<std::mutex> g(mu_);
  pods_.erase(alloc);
  slots_per_pod_.erase(alloc);
}

std::vector<api::node_agent_info> node_watch::list() const {
  std::lock_guard<std::mutex> g(mu_);
  std::map<std::string, std::vector<std::pair<std::string, int64_t>>> on_node;
  for (const auto& [alloc, pods] : pods_) {
    auto per = slots_per_pod_.find(alloc);
    int64_t slots = per == slots_per_pod_.end() ? 1 : per->second;
    for (const auto& [pod, node] : pods)
      on_node[node].emplace_back(alloc, slots);
  }
  std::vector<api::node_agent_info> out;
  for (const auto& [name, n] : table_.nodes()) {
    auto a = k8s::node_as_agent(n, opts_.slot_type, opts_.cpu_per_slot);
    api::node_agent_info v;
    v.id = name;
    v.pools = k8s::pools_of_node(opts_.pools, n);
    v.slots = a.slots;
    v.slot_type = opts_.slot_type == "gpu" ? "cuda" : "cpu";
    v.enabled = !a.disabled;
    v.registered_at_us =
        util::parse_rfc3339(text_at(n, "/metadata/creationTimestamp"))
            .value_or(0);
    v.addresses = addresses_of(n);
    if (auto p = on_node.find(name); p != on_node.end())
      v.pods = p->second;
    out.push_back(std::move(v));
  }
  return out;
}

void node_watch::set_enabled(const std::string& id, bool enabled,
                             std::function<void(caf::error)> done) {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (table_.find(id) == nullptr)
      return done(make_error(errc::not_found,
                             "agent '" + id + "' not found: no such node"));
  }
  bool queued = worker_->submit([this, id, enabled, done] {
    json patch = {
        {"metadata",
         {{"labels",
           {{k8s::disabled_node_label, enabled ? json() : json("true")}}}}}};
    auto node = res_.merge_patch(k8s::nodes_kind(), "", id, patch);
    if (!node) {
      log::warn() << "kubernetes: cannot " << (enabled ? "enable" : "disable")
                  << " node " << id << ": " << render(node.error());
      return done(node.error());
    }
    {
      std::lock_guard<std::mutex> g(mu_);
      table_.apply("MODIFIED", *node);
      changed_locked();
    }
    done(caf::error{});
  });
  if (!queued)
    done(make_error(errc::store_unavailable,
                    "too many node changes queued; retry"));
}

void node_agents_handle::bind(std::shared_ptr<api::node_agents> nodes) {
  {
    std::lock_guard<std::mutex> g(mu_);
    nodes_.swap(nodes);
  }
  // The one bound before ends here, outside the lock: a node watch's end
  // joins its threads.
  nodes.reset();
}

std::shared_ptr<api::node_agents> node_agents_handle::get() const {
  std::lock_guard<std::mutex> g(mu_);
  return nodes_;
}

std::vector<api::node_agent_info> node_agents_handle::list() const {
  auto n = get();
  return n ? n->list() : std::vector<api::node_agent_info>{};
}

void node_agents_handle::set_enabled(const std::string& id, bool enabled,
                                     std::function<void(caf::error)> done) {
  auto n = get();
  if (!n)
    return done(make_error(errc::store_unavailable,
                           "the kubernetes resource manager is starting"));
  n->set_enabled(id, enabled, std::move(done));
}

} // namespace det::rm
