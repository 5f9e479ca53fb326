#include "agent/run_allocation.hpp"

#include "agent/harness_files.hpp"
#include "agent/model_fetch.hpp"
#include "agent/trial_process.hpp"
#include "agent/work_dirs.hpp"
#include "conf/yaml_tree.hpp"
#include "messages/agent_protocol.hpp"

#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

#include <pthread.h>

namespace det::agent {

int run_allocation(const run_allocation_options& o) {
  auto fail = [](const std::string& why) {
    std::cerr << "det-agent: " << why << std::endl;
    return 1;
  };
  auto text = conf::read_text_file(o.start_file);
  if (!text)
    return fail("cannot read " + o.start_file);
  auto frame = parse_master_frame(*text);
  if (!frame)
    return fail(o.start_file + ": " + render(frame.error()));
  if (frame->type != "start")
    return fail(o.start_file + ": not a start frame");
  const auto& s = frame->start;
  auto cluster = s.env.find("DET_CLUSTER_ID");
  auto dir = prepare_pod_allocation_dir(
      o.work_dir, cluster != s.env.end() ? cluster->second : "", o.master_url,
      s.allocation_id, o.pod_rank);
  if (!dir)
    return fail("cannot prepare the allocation's folder: "
                + render(dir.error()));
  http_options http;
  auto token = s.env.find("DET_SESSION_TOKEN");
  if (token != s.env.end())
    http.bearer_token = token->second;
  fetch_retry retry;
  process_spec spec;
  spec.work_dir = *dir;
  process_options popts;
  if (!s.task_id.empty()) {
    // A task (command, notebook, shell, TensorBoard, generic task): its
    // context, its environment, its entrypoint as it is; its background
    // output is kept a while after the entrypoint ends (DET_LOG_WAIT_TIME).
    if (auto err =
            fetch_task_context(o.master_url, s.task_id, http, *dir, retry))
      return fail("cannot fetch the task's context: " + render(err));
    spec.env = task_environment(s, o.master_url, o.pod_name);
    spec.command = s.entrypoint;
    popts.log_wait = log_wait_of(spec.env);
  } else {
    if (auto err =
            fetch_model_def(o.master_url, s.experiment_id, http, *dir, retry))
      return fail("cannot fetch the model definition: " + render(err));
    spec.env = trial_environment(s, o.master_url, o.checkpoint_dir, o.pod_name);
    // A pod of a multi-pod allocation: its rank and the pod count (from the
    // Job's completion index and the pod spec; k8s/job_spec.cpp).
    if (!o.pod_rank.empty())
      spec.env["DET_POD_RANK"] = o.pod_rank;
    if (!o.num_pods.empty())
      spec.env["DET_NUM_PODS"] = o.num_pods;
    const char* pythonpath = std::getenv("PYTHONPATH");
    if (auto err = write_harness_files(*dir + ".run", spec.env,
                                       pythonpath ? pythonpath : ""))
      return fail("cannot prepare the trial's harness files: " + render(err));
    spec.command = trial_command(s.entrypoint, spec.env);
  }

  // SIGTERM/SIGINT (the pod deleted) are taken by one thread and passed on.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  std::mutex mu;
  std::condition_variable cv;
  std::optional<int> code;
  auto proc = trial_process::start(spec,
                                   {[&mu](std::vector<std::string> lines) {
                                      std::lock_guard<std::mutex> g(mu);
                                      for (const auto& l : lines)
                                        std::cout << l << "\n";
                                      std::cout.flush();
                                    },
                                    [&](int c) {
                                      {
                                        std::lock_guard<std::mutex> g(mu);
                                        code = c;
                                      }
                                      cv.notify_all();
                                    }},
                                   popts);
  if (!proc)
    return fail(std::string{"cannot start the "}
                + (s.task_id.empty() ? "trial" : "task")
                + " process: " + render(proc.error()));
  std::thread signals{[&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    if (sig == SIGINT || sig == SIGTERM)
      (*proc)->kill();
  }};
  signals.detach(); // ends with the process
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return code.has_value(); });
  return *code;
}

} // namespace det::agent
