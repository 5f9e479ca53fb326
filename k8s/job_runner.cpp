#include "k8s/job_runner.hpp"

#include "k8s/watch.hpp"
#include "util/serial_worker.hpp"

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
  const auto selector = cluster_selector(settings_.cluster_id);
  std::lock_guard<std::mutex> g(mu_);
  threads_.emplace_back([this, selector] {
    watch_options o;
    o.label_selector = selector;
    o.timeout_seconds = 120;
    watch_loop(
        res_, pods_kind(), settings_.ns, o,
        {[this](const std::vector<json>& items) { on_pods_synced(items); },
         [this](const watch_event& ev) { on_pod_event(ev.type, ev.object); },
         [this](const std::string& text) { note(text); }},
        stop_);
  });
  threads_.emplace_back([this] {
    watch_options o;
    o.timeout_seconds = 120;
    watch_loop(res_, events_kind(), settings_.ns, o,
               {{},
                [this](const watch_event& ev) {
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
                    // The events watch can be ahead of the pods watch: the
                    // scheduler's first FailedScheduling can name a pod not
                    // seen yet, and it retries an unschedulable pod only
                    // minutes later. Kept until the pod shows.
                    if (alloc.empty()) {
                      hold_message(m->pod, m->text);
                      return;
                    }
                  }
                  if (cb_.on_message)
                    cb_.on_message(alloc, m->pod + ": " + m->text);
                },
                [this](const std::string& text) { note(text); }},
               stop_);
  });
}

void job_runner::launch(const job_request& r) {
  auto objs = render_job(settings_, r);
  if (!objs) {
    if (cb_.on_message)
      cb_.on_message(r.allocation_id, render(objs.error()));
    if (cb_.on_exit)
      cb_.on_exit(r.allocation_id, 1);
    return;
  }
  {
    std::lock_guard<std::mutex> g(mu_);
    expected_pods_[r.allocation_id] = objs->num_pods;
    pods_[r.allocation_id];
  }
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
  bool ok = worker_->submit([this, objs = *objs, prio, fail] {
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
    if (auto cm = res_.create(configmaps_kind(), settings_.ns, objs.config_map);
        !cm)
      return fail("create ConfigMap", cm.error());
    if (auto job = res_.create(jobs_kind(), settings_.ns, objs.job); !job)
      return fail("create Job", job.error());
  });
  if (!ok)
    fail("launch", make_error(errc::remote_error, "too many queued calls"));
}

void job_runner::kill(const std::string& alloc, int grace) {
  (void)worker_->submit([this, alloc, grace] {
    // By label, so a Job of this allocation is found whatever its name.
    auto selector = cluster_selector(settings_.cluster_id) + ","
                    + allocation_label + "=" + label_value(alloc);
    std::set<std::string> jobs{job_name(settings_.cluster_id, alloc)};
    std::set<std::string> cms = jobs;
    if (auto l = res_.list(jobs_kind(), settings_.ns, selector))
      for (const auto& j : l->items)
        jobs.insert(j.value("/metadata/name"_json_pointer, std::string{}));
    if (auto l = res_.list(configmaps_kind(), settings_.ns, selector))
      for (const auto& c : l->items)
        cms.insert(c.value("/metadata/name"_json_pointer, std::string{}));
    for (const auto& name : jobs)
      if (auto err =
              res_.remove(jobs_kind(), settings_.ns, name, "Background", grace);
          err && cb_.on_message)
        cb_.on_message(alloc, "delete Job: " + render(err));
    for (const auto& name : cms)
      (void)res_.remove(configmaps_kind(), settings_.ns, name);
  });
}

caf::expected<std::set<std::string>> job_runner::list_allocations() {
  auto l = res_.list(jobs_kind(), settings_.ns,
                     cluster_selector(settings_.cluster_id));
  if (!l)
    return l.error();
  std::set<std::string> out;
  for (const auto& j : l->items)
    if (auto a = allocation_of(j); !a.empty())
      out.insert(a);
  return out;
}

caf::expected<std::vector<std::string>>
job_runner::delete_leftovers(const std::set<std::string>& known) {
  const auto selector = cluster_selector(settings_.cluster_id);
  auto jobs = res_.list(jobs_kind(), settings_.ns, selector);
  if (!jobs)
    return jobs.error();
  auto cms = res_.list(configmaps_kind(), settings_.ns, selector);
  if (!cms)
    return cms.error();
  auto job_names = leftovers(jobs->items, settings_.cluster_id, known);
  for (const auto& n : job_names)
    if (auto err = res_.remove(jobs_kind(), settings_.ns, n, "Background"))
      return err;
  for (const auto& n : leftovers(cms->items, settings_.cluster_id, known))
    if (auto err = res_.remove(configmaps_kind(), settings_.ns, n))
      return err;
  return job_names;
}

void job_runner::note(const std::string& text) {
  if (cb_.on_note)
    cb_.on_note(text);
}

void job_runner::on_pods_synced(const std::vector<json>& pods) {
  std::vector<std::pair<std::string, std::string>> gone;
  {
    std::lock_guard<std::mutex> g(mu_);
    gone = gone_pods(pods_, pods);
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
    follow_logs(alloc, name, rank, pod_count, trial);
  }
  if (st.fatal_wait)
    kill(alloc, 0);
  if (all_done && cb_.on_exit)
    cb_.on_exit(alloc, exit_code);
}

void job_runner::follow_logs(const std::string& alloc, const std::string& pod,
                             int rank, int64_t pod_count, int64_t trial_id) {
  std::lock_guard<std::mutex> g(mu_);
  if (stop_)
    return;
  threads_.emplace_back([this, alloc, pod, rank, pod_count, trial_id] {
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
          *client_, settings_.ns, pod, container_name,
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
  });
}

} // namespace det::k8s
