#include "k8s/job_runner.hpp"

#include "k8s/watch.hpp"
#include "util/serial_worker.hpp"

#include <optional>

namespace det::k8s {

using nlohmann::json;

job_runner::job_runner(std::shared_ptr<api_client> client,
                       job_settings settings, runner_callbacks cb)
    : client_(client), res_(client), settings_(std::move(settings)),
      cb_(std::move(cb)),
      worker_(std::make_unique<util::serial_worker>(10'000)) {}

job_runner::~job_runner() {
  stop_ = true;
  worker_.reset(); // runs what is queued, then joins
  std::vector<std::thread> ts;
  {
    std::lock_guard<std::mutex> g(mu_);
    ts.swap(threads_);
  }
  for (auto& t : ts)
    if (t.joinable())
      t.join();
}

int64_t job_runner::api_calls() const {
  return client_->counters().requests.load()
         + client_->counters().streams.load();
}

void job_runner::start() {
  std::set<std::string> spaces{settings_.ns};
  {
    std::lock_guard<std::mutex> g(mu_);
    for (const auto& [alloc, ns] : alloc_ns_)
      spaces.insert(ns);
  }
  for (const auto& ns : spaces)
    watch_namespace(ns);
}

void job_runner::watch_namespace(const std::string& ns) {
  const auto selector = cluster_selector(settings_.cluster_id);
  std::lock_guard<std::mutex> g(mu_);
  if (stop_ || !watched_.insert(ns).second)
    return;
  threads_.emplace_back([this, selector, ns] {
    watch_options o;
    o.label_selector = selector;
    o.timeout_seconds = 120;
    watch_loop(
        res_, pods_kind(), ns, o,
        {[this, ns](const std::vector<json>& items) {
           on_pods_synced(ns, items);
         },
         [this](const watch_event& ev) { on_pod_event(ev.type, ev.object); },
         [this](const std::string& text) { note(text); }},
        stop_);
  });
  threads_.emplace_back([this, ns] {
    watch_options o;
    o.timeout_seconds = 120;
    watch_loop(res_, events_kind(), ns, o,
               {{},
                [this](const watch_event& ev) { on_event(ev); },
                [this](const std::string& text) { note(text); }},
               stop_);
  });
}

void job_runner::on_event(const watch_event& ev) {
  if (ev.type != "ADDED" && ev.type != "MODIFIED")
    return;
  auto m = read_event(ev.object);
  if (!m)
    return;
  std::string alloc;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [a, pods] : pods_)
      if (pods.count(m->pod) != 0)
        alloc = a;
    // The events watch can be ahead of the pods watch: the scheduler's
    // first FailedScheduling can name a pod not seen yet, and it retries
    // an unschedulable pod only minutes later. Kept until the pod shows.
    if (alloc.empty()) {
      hold_message(m->pod, m->text);
      return;
    }
  }
  if (cb_.on_message)
    cb_.on_message(alloc, m->pod + ": " + m->text);
}

std::string job_runner::ns_of(const std::string& alloc) const {
  auto i = alloc_ns_.find(alloc);
  return i == alloc_ns_.end() ? settings_.ns : i->second;
}

namespace {

std::string namespace_of_object(const json& obj) {
  return obj.value("/metadata/namespace"_json_pointer, std::string{});
}

std::string name_of_object(const json& obj) {
  return obj.value("/metadata/name"_json_pointer, std::string{});
}

} // namespace

void job_runner::launch(const job_request& r) {
  auto objs = render_job(settings_, r);
  if (!objs) {
    if (cb_.on_message)
      cb_.on_message(r.allocation_id, render(objs.error()));
    if (cb_.on_exit)
      cb_.on_exit(r.allocation_id, 1);
    return;
  }
  const auto ns = namespace_of(settings_, r);
  {
    std::lock_guard<std::mutex> g(mu_);
    expected_pods_[r.allocation_id] = objs->num_pods;
    pods_[r.allocation_id];
    alloc_ns_[r.allocation_id] = ns;
  }
  watch_namespace(ns);
  auto fail = [this, alloc = r.allocation_id](const std::string& what,
                                              const caf::error& err) {
    if (cb_.on_message)
      cb_.on_message(alloc, what + ": " + render(err));
    bool first = false;
    {
      std::lock_guard<std::mutex> g(mu_);
      first = exited_.insert(alloc).second;
    }
    if (first && cb_.on_exit)
      cb_.on_exit(alloc, 1);
  };
  int prio = r.priority;
  bool ok = worker_->submit([this, objs = *objs, prio, fail, ns] {
    bool need_pc = false;
    {
      std::lock_guard<std::mutex> g(mu_);
      need_pc = priority_classes_.insert(prio).second;
    }
    if (need_pc) {
      auto pc = res_.create(priority_classes_kind(), "", priority_class(prio));
      if (!pc)
        return fail("create PriorityClass", pc.error());
    }
    if (auto cm = res_.create(configmaps_kind(), ns, objs.config_map); !cm)
      return fail("create ConfigMap", cm.error());
    if (auto job = res_.create(jobs_kind(), ns, objs.job); !job)
      return fail("create Job", job.error());
  });
  if (!ok)
    fail("launch", make_error(errc::remote_error, "too many queued calls"));
}

void job_runner::kill(const std::string& alloc, int grace) {
  std::string ns;
  {
    std::lock_guard<std::mutex> g(mu_);
    ns = ns_of(alloc);
  }
  (void)worker_->submit([this, alloc, grace, ns] {
    // By name in its namespace, and by label in every namespace, so a Job
    // of this allocation is found whatever its name and wherever it is.
    auto selector = cluster_selector(settings_.cluster_id) + ","
                    + allocation_label + "=" + label_value(alloc);
    std::set<std::pair<std::string, std::string>> jobs{
        {ns, job_name(settings_.cluster_id, alloc)}};
    std::set<std::pair<std::string, std::string>> cms = jobs;
    if (auto l = res_.list(jobs_kind(), "", selector))
      for (const auto& j : l->items)
        jobs.insert({namespace_of_object(j), name_of_object(j)});
    if (auto l = res_.list(configmaps_kind(), "", selector))
      for (const auto& c : l->items)
        cms.insert({namespace_of_object(c), name_of_object(c)});
    for (const auto& [where, name] : jobs)
      if (auto err = res_.remove(jobs_kind(), where, name, "Background", grace);
          err && cb_.on_message)
        cb_.on_message(alloc, "delete Job: " + render(err));
    for (const auto& [where, name] : cms)
      (void)res_.remove(configmaps_kind(), where, name);
  });
}

caf::expected<std::set<std::string>> job_runner::list_allocations() {
  auto l = res_.list(jobs_kind(), "", cluster_selector(settings_.cluster_id));
  if (!l)
    return l.error();
  std::set<std::string> out;
  std::lock_guard<std::mutex> g(mu_);
  for (const auto& j : l->items)
    if (auto a = allocation_of(j); !a.empty()) {
      out.insert(a);
      if (auto ns = namespace_of_object(j); !ns.empty())
        alloc_ns_[a] = ns;
    }
  return out;
}

caf::expected<std::vector<std::string>>
job_runner::delete_leftovers(const std::set<std::string>& known) {
  const auto selector = cluster_selector(settings_.cluster_id);
  auto jobs = res_.list(jobs_kind(), "", selector);
  if (!jobs)
    return jobs.error();
  auto cms = res_.list(configmaps_kind(), "", selector);
  if (!cms)
    return cms.error();
  // leftovers() names them; the lists say where each is.
  auto remove_named =
      [this](const kind_path& kind, const std::vector<json>& items,
             const std::vector<std::string>& names) -> caf::error {
    for (const auto& n : names)
      for (const auto& item : items)
        if (name_of_object(item) == n)
          if (auto err = res_.remove(kind, namespace_of_object(item), n))
            return err;
    return {};
  };
  auto job_names = leftovers(jobs->items, settings_.cluster_id, known);
  if (auto err = remove_named(jobs_kind(), jobs->items, job_names))
    return err;
  if (auto err =
          remove_named(configmaps_kind(), cms->items,
                       leftovers(cms->items, settings_.cluster_id, known)))
    return err;
  return job_names;
}

void job_runner::note(const std::string& text) {
  if (cb_.on_note)
    cb_.on_note(text);
}

void job_runner::on_pods_synced(const std::string& ns,
                                const std::vector<json>& pods) {
  std::vector<std::pair<std::string, std::string>> gone;
  {
    // Only this namespace's list: pods of other namespaces are not gone.
    std::lock_guard<std::mutex> g(mu_);
    std::map<std::string, std::map<std::string, pod_status>> here;
    for (const auto& [alloc, ps] : pods_)
      if (ns_of(alloc) == ns)
        here.emplace(alloc, ps);
    gone = gone_pods(here, pods);
  }
  for (const auto& p : pods)
    on_pod_event("MODIFIED", p);
  for (const auto& [alloc, pod] : gone)
    on_pod_event("DELETED",
                 {{"metadata",
                   {{"name", pod}, {"labels", {{allocation_label, alloc}}}}}});
}

void job_runner::hold_message(const std::string& pod, const std::string& text) {
  // Bounded: events of pods that never become ours (other software in the
  // namespace) must not grow it.
  if (held_.count(pod) == 0 && held_.size() >= max_held_pods)
    held_.erase(held_.begin());
  auto& texts = held_[pod];
  if (texts.size() < max_held_messages)
    texts.push_back(text);
}

void job_runner::on_pod_event(const std::string& type, const json& pod) {
  auto alloc = allocation_of(pod);
  auto name = pod.value("/metadata/name"_json_pointer, std::string{});
  if (alloc.empty() || name.empty())
    return;
  auto st = read_pod(pod);
  if (type == "DELETED" && st.state != pod_state::terminated) {
    st.state = pod_state::terminated;
    st.exit_code = 137; // deleted from outside before it ended
  }
  bool changed = false;
  bool all_done = false;
  bool follow = false;
  std::vector<std::string> held;
  int exit_code = 0;
  int rank = 0;
  int64_t pod_count = 1;
  {
    std::lock_guard<std::mutex> g(mu_);
    auto& pods = pods_[alloc];
    auto it = pods.find(name);
    changed = it == pods.end() || it->second.state != st.state;
    if (it != pods.end() && it->second.state == pod_state::terminated)
      return; // its end is already counted
    pods[name] = st;
    if (auto h = held_.find(name); h != held_.end()) {
      held = std::move(h->second);
      held_.erase(h);
    }
    rank = pod_rank(
        pod, static_cast<int>(std::distance(pods.begin(), pods.find(name))));
    if ((st.state == pod_state::running || st.state == pod_state::terminated)
        && !st.node.empty() && following_.insert(name).second)
      follow = true;
    auto expected =
        expected_pods_.count(alloc) ? expected_pods_[alloc] : pods_of(pod);
    pod_count = expected;
    int64_t done = 0;
    for (const auto& [n, s] : pods)
      if (s.state == pod_state::terminated) {
        ++done;
        if (exit_code == 0 && s.exit_code)
          exit_code = *s.exit_code;
      }
    all_done = done >= expected && exited_.count(alloc) == 0;
    if (all_done)
      exited_.insert(alloc);
  }
  if (cb_.on_message)
    for (const auto& text : held)
      cb_.on_message(alloc, name + ": " + text);
  if (!st.reason.empty() && st.state == pod_state::assigned && cb_.on_message)
    cb_.on_message(alloc, name + ": " + st.reason);
  // A failed container's end, as the kubelet tells it: the trial's logs
  // say why (a command that could not start, the OOM killer), not only
  // that the exit code was not 0.
  if (changed && st.state == pod_state::terminated && st.exit_code
      && *st.exit_code != 0 && cb_.on_message)
    cb_.on_message(alloc, name + ": exited with code "
                              + std::to_string(*st.exit_code)
                              + (st.reason.empty() ? "" : " (" + st.reason)
                              + (st.message.empty() ? "" : ": " + st.message)
                              + (st.reason.empty() ? "" : ")"));
  if (changed && cb_.on_pod_state && st.state != pod_state::terminated)
    cb_.on_pod_state(alloc, name, st.state, st.node);
  if (follow) {
    int64_t trial = 0;
    auto t = pod.value("/metadata/labels"_json_pointer, json::object())
                 .value(trial_label, std::string{"0"});
    try {
      trial = std::stoll(t);
    } catch (...) {
      trial = 0;
    }
    auto ns = namespace_of_object(pod);
    if (ns.empty()) {
      std::lock_guard<std::mutex> g(mu_);
      ns = ns_of(alloc);
    }
    follow_logs(ns, alloc, name, rank, pod_count, trial);
  }
  if (st.fatal_wait)
    kill(alloc, 0);
  if (!all_done)
    return;
  // The exit comes after the pods' last lines: a follower still reading a
  // log reports it when it is done (a command's output before its exit
  // line, as `det cmd run` shows it).
  {
    std::lock_guard<std::mutex> g(mu_);
    if (auto f = log_followers_.find(alloc);
        f != log_followers_.end() && f->second > 0) {
      held_exits_[alloc] = exit_code;
      return;
    }
  }
  if (cb_.on_exit)
    cb_.on_exit(alloc, exit_code);
}

void job_runner::follow_logs(const std::string& ns, const std::string& alloc,
                             const std::string& pod, int rank,
                             int64_t pod_count, int64_t trial_id) {
  std::lock_guard<std::mutex> g(mu_);
  if (stop_)
    return;
  ++log_followers_[alloc];
  threads_.emplace_back([this, ns, alloc, pod, rank, pod_count, trial_id] {
    std::string prefix =
        pod_count > 1 ? "[rank=" + std::to_string(rank) + "] " : "";
    // A follow that ends while the pod still runs (the kubelet had no log
    // yet, a connection dropped) is opened again; the log comes from its
    // start each time, so lines already passed on are skipped.
    size_t seen = 0;
    caf::error err;
    for (int attempt = 0; attempt < 1200 && !stop_; ++attempt) {
      size_t index = 0;
      err = follow_pod_log(
          *client_, ns, pod, container_name,
          [&](std::string_view line) {
            if (index++ < seen)
              return;
            ++seen;
            if (cb_.on_log)
              cb_.on_log(alloc, trial_id, {prefix + std::string(line)});
          },
          stop_);
      bool ended = false;
      {
        std::lock_guard<std::mutex> lock(mu_);
        auto a = pods_.find(alloc);
        ended = a == pods_.end() || a->second.count(pod) == 0
                || a->second[pod].state == pod_state::terminated;
      }
      if (ended && !err)
        break;
      if (ended && attempt > 0)
        break;
      for (int i = 0; i < 5 && !stop_; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (err && !stop_ && cb_.on_message)
      cb_.on_message(alloc, "logs of " + pod + ": " + render(err));
    std::optional<int> exit_code;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (--log_followers_[alloc] <= 0) {
        log_followers_.erase(alloc);
        if (auto h = held_exits_.find(alloc); h != held_exits_.end()) {
          exit_code = h->second;
          held_exits_.erase(h);
        }
      }
    }
    if (exit_code && !stop_ && cb_.on_exit)
      cb_.on_exit(alloc, *exit_code);
  });
}

} // namespace det::k8s
