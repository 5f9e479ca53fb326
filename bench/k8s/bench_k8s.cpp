// Figures of the kubernetes resource manager's client side against the
// test bed (tests/k8s/bed; K8S_BED_KUBECONFIG names its kubeconfig), one
// JSON line each:
//   k8s_launch_to_pod_running_ms  Job created -> its pod Running (median of 5)
//   k8s_api_calls_per_minute      requests + streams opened per minute in
//                                 steady state with N Jobs running
//   k8s_reattach_ms               a new runner after a "restart": list the
//                                 Jobs, delete leftovers, first Pod sync
// N is DET_K8S_BENCH_JOBS (100). Pods go to the process kubelet's nodes
// (label det-bed=process) and run `sleep`.

#include "k8s/job_runner.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <iostream>

using namespace det::k8s;
using clk = std::chrono::steady_clock;

namespace {

struct waiter {
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, clk::time_point> running;
  template <class P> bool wait(P p, std::chrono::seconds limit) {
    std::unique_lock<std::mutex> l(mu);
    return cv.wait_for(l, limit, p);
  }
};

job_request req(const std::string& alloc) {
  job_request r;
  r.allocation_id = alloc;
  r.trial_id = 1;
  r.experiment_id = 1;
  r.user = "bench";
  r.slots = 0;
  r.image = "det-task";
  r.command = {"/bin/sh", "-c", "sleep 600"};
  return r;
}

void line(const char* name, double value, const std::string& extra = "") {
  std::cout << "{\"bench\":\"k8s\",\"name\":\"" << name
            << "\",\"value\":" << value << extra << "}" << std::endl;
}

} // namespace

int main() {
  const char* kc = std::getenv("K8S_BED_KUBECONFIG");
  if (kc == nullptr || *kc == '\0') {
    std::cout << "{\"bench\":\"k8s\",\"skipped\":\"K8S_BED_KUBECONFIG unset\"}"
              << std::endl;
    return 0;
  }
  auto access = load_kubeconfig(kc);
  if (!access) {
    std::cerr << det::render(access.error()) << "\n";
    return 1;
  }
  const int n = std::getenv("DET_K8S_BENCH_JOBS")
                    ? std::atoi(std::getenv("DET_K8S_BENCH_JOBS"))
                    : 100;
  auto client = make_curl_api_client(*access);
  resources res{client};
  std::string ns =
      "det-bench-"
      + std::to_string(clk::now().time_since_epoch().count() % 100000007);
  if (!res.create({"/api/v1", "namespaces", false}, "",
                  {{"metadata", {{"name", ns}}}})) {
    std::cerr << "cannot create namespace\n";
    return 1;
  }
  job_settings s;
  s.cluster_id = "bench";
  s.ns = ns;
  s.slot_type = "cpu";
  s.node_selector = {{"det-bed", "process"}};
  waiter w;
  runner_callbacks cb;
  cb.on_pod_state = [&](const std::string& a, const std::string&, pod_state st,
                        const std::string&) {
    if (st != pod_state::running)
      return;
    {
      std::lock_guard<std::mutex> g(w.mu);
      w.running.emplace(a, clk::now());
    }
    w.cv.notify_all();
  };
  auto runner = std::make_unique<job_runner>(client, s, cb);
  runner->start();

  std::vector<double> launch_ms;
  for (int i = 0; i < 5; ++i) {
    auto a = "l" + std::to_string(i);
    auto t0 = clk::now();
    runner->launch(req(a));
    if (!w.wait([&] { return w.running.count(a) != 0; },
                std::chrono::seconds(60))) {
      std::cerr << "pod of " << a << " never ran\n";
      return 1;
    }
    launch_ms.push_back(
        std::chrono::duration<double, std::milli>(w.running[a] - t0).count());
    runner->kill(a, 0);
  }
  std::sort(launch_ms.begin(), launch_ms.end());
  line("k8s_launch_to_pod_running_ms", launch_ms[2]);

  for (int i = 0; i < n; ++i)
    runner->launch(req("s" + std::to_string(i)));
  bool all = w.wait(
      [&] {
        return std::count_if(w.running.begin(), w.running.end(),
                             [](auto& kv) { return kv.first[0] == 's'; })
               >= n;
      },
      std::chrono::seconds(600));
  if (!all)
    std::cerr << "not every pod ran; measuring anyway\n";
  auto c0 = runner->api_calls();
  auto t0 = clk::now();
  std::this_thread::sleep_for(std::chrono::seconds(60));
  double per_min = static_cast<double>(runner->api_calls() - c0) * 60.0
                   / std::chrono::duration<double>(clk::now() - t0).count();
  line("k8s_api_calls_per_minute", per_min,
       ",\"jobs_running\":" + std::to_string(n));

  runner.reset(); // the master "dies"
  std::set<std::string> known;
  for (int i = 0; i < n; ++i)
    known.insert("s" + std::to_string(i));
  auto r0 = clk::now();
  waiter w2;
  bool synced = false;
  runner_callbacks cb2;
  auto again = std::make_unique<job_runner>(client, s, cb2);
  auto listed = again->list_allocations();
  auto left = again->delete_leftovers(known);
  (void)left;
  resources res2{client};
  auto pods = res2.list(pods_kind(), ns, cluster_selector("bench"));
  synced = listed && pods;
  double reattach =
      std::chrono::duration<double, std::milli>(clk::now() - r0).count();
  line("k8s_reattach_ms", reattach,
       ",\"jobs\":" + std::to_string(listed ? listed->size() : 0)
           + ",\"ok\":" + (synced ? "true" : "false"));
  again.reset();
  (void)res.remove({"/api/v1", "namespaces", false}, "", ns);
  return 0;
}
