// det-agent: connects to det-master and runs its trial processes.
//   det-agent --config conf/agent.yaml
//   det-agent --master-url http://127.0.0.1:8080 --slots 2
//   det-agent ... --spot-notice   (on a spot instance: poll IMDSv2
//     spot/instance-action every 5 s, DET_SPOT_NOTICE_INTERVAL_MS, and tell
//     the master when the instance is about to be reclaimed)
//   det-agent --run-allocation FILE --master-url URL [--work-dir D]
//     [--checkpoint-dir D]   (in a Kubernetes pod: run the one trial whose
//     start frame FILE holds, exit with its code; agent/run_allocation.hpp)
//   det-agent --warm-launch SOCKET   (a trial's command: its launch layer
//     forked by the agent's warm launcher; agent/warm_launch.hpp)
// Bad arguments exit 2 with a one-line reason; SIGINT/SIGTERM stop the
// agent (and its trials) cleanly.

#include "agent/agent.hpp"
#include "agent/exit_tag_writer.hpp"
#include "agent/idle_shutdown.hpp"
#include "agent/options.hpp"
#include "agent/run_allocation.hpp"
#include "agent/spot_notice.hpp"
#include "agent/warm_launch.hpp"
#include "conf/env_overrides.hpp"
#include "net/http_client.hpp"
#include "telemetry/cloudwatch_telemetry.hpp"
#include "util/log.hpp"

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include <pthread.h>
#include <unistd.h>

int main(int argc, char** argv) {
  using namespace det::agent;
  det::log::init("det-agent");
  auto env = det::conf::read_agent_env(det::conf::process_env());
  if (!env) {
    std::cerr << "det-agent: " << det::render(env.error()) << "\n";
    return 2;
  }
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 2 && args[0] == "--warm-launch")
    return warm_launch_main(args[1]);
  if (!args.empty() && args[0] == "--run-allocation") {
    run_allocation_options o;
    for (size_t i = 0; i + 1 < args.size(); i += 2) {
      const auto& k = args[i];
      const auto& v = args[i + 1];
      if (k == "--run-allocation")
        o.start_file = v;
      else if (k == "--master-url")
        o.master_url = v;
      else if (k == "--work-dir")
        o.work_dir = v;
      else if (k == "--checkpoint-dir")
        o.checkpoint_dir = v;
      else {
        std::cerr << "det-agent: --run-allocation: unknown option " << k
                  << "\n";
        return 2;
      }
    }
    if (args.size() % 2 != 0 || o.start_file.empty() || o.master_url.empty()) {
      std::cerr << "det-agent: --run-allocation FILE needs --master-url URL\n";
      return 2;
    }
    o.pod_name = env->pod_name;
    o.pod_rank = env->pod_rank;
    o.num_pods = env->num_pods;
    std::signal(SIGPIPE, SIG_IGN);
    return run_allocation(o);
  }
  auto parsed = parse_agent_args(args);
  if (!parsed) {
    std::cerr << "det-agent: " << det::render(parsed.error()) << "\n";
    return 2;
  }
  if (parsed->help) {
    std::cout << usage();
    return 0;
  }
  auto settings = resolve_settings(*parsed, det::conf::process_env());
  if (!settings) {
    std::cerr << "det-agent: " << det::render(settings.error()) << "\n";
    return 2;
  }
  if (auto err = det::log::set_level(settings->cfg.log_level)) {
    std::cerr << "det-agent: log.level: " << *err << "\n";
    return 2;
  }
  std::signal(SIGPIPE, SIG_IGN);
  // Every thread started from here on inherits the blocked signals; one
  // thread takes them with sigwait.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  det::log::info() << "det-agent " << settings->agent_id << ": "
                   << settings->slots << " " << settings->slot_type
                   << " slot(s), master " << settings->cfg.master.to_url()
                   << ", pool '" << settings->cfg.resource_pool << "'";
  // CloudWatch (agent.yaml `cloudwatch:`, or DET_CLOUDWATCH_LOG_GROUP from
  // the master's launch): journald, own lines and this host's metrics.
  std::unique_ptr<det::telemetry::cloudwatch_telemetry> cloudwatch;
  if (settings->cfg.cloudwatch.enabled) {
    auto cw = det::telemetry::cloudwatch_telemetry::start(
        settings->cfg.cloudwatch,
        {"det-agent", "", settings->cfg.resource_pool});
    if (!cw) {
      std::cerr << "det-agent: " << det::render(cw.error()) << "\n";
      return 2;
    }
    cloudwatch = std::move(*cw);
  }
  if (!parsed->cold_launch) {
    std::error_code ec;
    auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec)
      settings->warm_launch_client = self.string();
  }
  auto idle_after = settings->cfg.idle_shutdown_after;
  auto idle_grace = settings->cfg.idle_shutdown_grace;
  auto idle_unreachable = settings->cfg.idle_shutdown_unreachable;
  bool exit_tags = settings->cfg.idle_shutdown_exit_tags;
  det::agent::agent a{std::move(*settings)};
  std::unique_ptr<spot_notice_watcher> watcher;
  if (parsed->spot_notice) {
    auto imds = std::make_shared<det::aws::imds_client>(
        det::aws::imds_config_from_env(det::aws::process_environment()),
        det::net::make_curl_http_client());
    watcher = std::make_unique<spot_notice_watcher>(
        imds, env->spot_notice_interval,
        [&a](const det::aws::spot_action& act) {
          det::log::info() << "spot interruption notice: " << act.action
                           << " at " << act.time << "; telling the master";
          a.notify(spot_interruption_frame(act));
        });
  }
  std::thread signals{[&a, stop_signals] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    if (sig != 0)
      a.stop();
  }};
  // idle_shutdown.after: idle and cut off from the master that long, the
  // agent stops with idle_shutdown_exit_code (the launch script shuts the
  // instance down); SIGTERM to itself ends the signal waiter.
  std::atomic<bool> idle_stop{false};
  std::unique_ptr<idle_shutdown_monitor> idle;
  if (idle_after.count() > 0) {
    det::policy::self_shutdown_config sc;
    sc.max_idle = idle_after;
    sc.grace = idle_grace;
    sc.unreachable_idle = idle_unreachable;
    // --exit-tags: exits the master has not recorded go into this
    // instance's tags before it stops (agent/exit_tag_writer.hpp).
    det::agent::exit_recorder record;
    if (exit_tags) {
      auto writer = std::make_shared<det::agent::exit_tag_writer>(
          det::aws::process_environment());
      record = [writer](const std::vector<det::agent::exit_report>& exits) {
        return writer->write(exits);
      };
    }
    idle = std::make_unique<idle_shutdown_monitor>(
        sc, std::chrono::seconds{5},
        [&a] {
          idle_observation o;
          o.connected = a.welcomed();
          auto allocs = a.allocations();
          o.exits = a.unacknowledged_exits();
          o.idle = allocs.empty();
          o.only_exits = allocs.size() == o.exits.size();
          return o;
        },
        [&a, &idle_stop] {
          idle_stop = true;
          a.stop();
          kill(getpid(), SIGTERM);
        },
        [] { return std::chrono::system_clock::now(); }, std::move(record));
  }
  a.run();
  // run() returned because of a signal (or the idle stop's own); the
  // waiter has fired.
  signals.join();
  idle.reset();
  watcher.reset();
  if (cloudwatch)
    cloudwatch->stop();
  return idle_stop ? idle_shutdown_exit_code : 0;
}
