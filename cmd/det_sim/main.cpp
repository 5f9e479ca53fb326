// det-sim: what a cluster would cost and how long its jobs would wait,
// decided by the master's own code in virtual time (docs/det-sim.md).
// Start-up: read master.yaml and the trace, apply the command line's
// overrides, run every policy asked for, print one JSON line per run
// (after one line of lower bounds), write the SVG if asked.

#include "sim/compare.hpp"
#include "sim/log_trace.hpp"
#include "sim/master_yaml.hpp"
#include "sim/policies.hpp"
#include "sim/trace.hpp"

#include "conf/duration.hpp"
#include "conf/master_config.hpp"
#include "conf/reader.hpp"
#include "messages/errc.hpp"
#include "store/pg_event_store.hpp"
#include "util/cli.hpp"

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <tuple>

namespace {

using namespace det;

// "30m", "14d" or "1800" (seconds) to seconds; -1 when malformed.
int64_t seconds_of(const std::string& text) {
  if (!text.empty()
      && text.find_first_not_of("0123456789") == std::string::npos)
    return text.size() > 15 ? -1 : std::stoll(text);
  if (!text.empty() && text.back() == 'd') {
    auto days = seconds_of(text.substr(0, text.size() - 1));
    return days < 0 ? -1 : days * 86400;
  }
  auto d = conf::parse_duration(text);
  if (!d)
    return -1;
  return std::chrono::duration_cast<std::chrono::seconds>(*d).count();
}

bool parse_outage(const std::string& text, sim::outage& out) {
  auto at = text.find('+');
  if (at == std::string::npos)
    return false;
  out.start_s = seconds_of(text.substr(0, at));
  out.length_s = seconds_of(text.substr(at + 1));
  return out.start_s >= 0 && out.length_s > 0;
}

// Exit 1 for what could not be read, 2 for a bad argument (util/cli).
int fail(const std::string& why, int code = 1) {
  std::cerr << "det-sim: " << why << "\n";
  return code;
}

} // namespace

int main(int argc, char** argv) {
  std::string trace_spec, format = "generic", config_path, pool, svg_path;
  std::string from = "0s", to, idle, boot = "180s", checkpoint = "30m";
  std::string move_cost, consolidate_after;
  int64_t consolidate_after_s = 600;
  std::vector<std::string> policies = sim::standard_policy_names();
  std::vector<std::string> outages;
  sim::sim_config c;
  sim::policy_spec ours;
  int gpus = 0, max_instances = -1;
  double price = -1;
  CLI::App app{"Feeds a job trace through the master's scheduler and scale "
               "decision in virtual time under each policy, and prints the "
               "cost and queue waits of each as one JSON line.",
               "det-sim"};
  std::string log_url;
  auto* trace_opt =
      app.add_option("--trace", trace_spec,
                     "the jobs: a CSV, a .gz, or ARCHIVE.tar.gz:MEMBER")
          ->type_name("FILE");
  auto* log_opt = app.add_option("--from-log", log_url,
                                 "the jobs this cluster ran, from its event "
                                 "log (PostgreSQL URL; read only)")
                      ->type_name("URL");
  trace_opt->excludes(log_opt);
  app.add_option("--format", format, "generic | itp | philly")
      ->check(CLI::IsMember({"generic", "itp", "philly"}));
  app.add_option("--from", from,
                 "first submission kept: 14d, or UTC \"2017-10-09 00:00:00\"");
  app.add_option("--to", to, "end of the submissions kept (e.g. 21d)");
  app.add_option("--config", config_path,
                 "the cluster's master.yaml (pool, instance type, bounds, "
                 "idle period, scheduler)")
      ->type_name("FILE");
  app.add_option("--pool", pool, "resource pool of master.yaml");
  app.add_option("--policies", policies, sim::joined(sim::policy_names()))
      ->delimiter(',');
  app.add_option("--gpus-per-instance", gpus, "GPUs of one instance")
      ->check(cli::at_least(1));
  app.add_option("--max-instances", max_instances, "fleet cap")
      ->check(cli::at_least(1));
  app.add_option("--price", price, "USD per instance-hour");
  app.add_option("--idle", idle, "ours: max_idle_agent_period");
  app.add_option("--boot", boot, "mean boot time (180s)");
  app.add_option("--boot-jitter", c.boot_jitter_s,
                 "boot time spread, seconds either side");
  app.add_option("--boot-failure-rate", c.boot_failure_rate,
                 "probability an instance never boots");
  app.add_option("--reclaims-per-hour", c.reclaims_per_instance_hour,
                 "spot reclaims per instance-hour");
  app.add_option("--checkpoint", checkpoint,
                 "a reclaimed job resumes from its last checkpoint (30m)");
  app.add_option("--move-cost", move_cost,
                 "ours+consolidate: checkpoint and restore time of one move "
                 "(120s)");
  app.add_option("--consolidate-after", consolidate_after,
                 "ours+consolidate: how long an instance is under-used "
                 "before its jobs move (10m)");
  app.add_option("--outage", outages, "master down: START+LENGTH (5d+30m)");
  app.add_option("--random-outages", c.random_outages,
                 "outages of --random-outage-length at seeded times")
      ->check(cli::at_least(0));
  app.add_option("--random-outage-length", c.random_outage_s, "seconds");
  app.add_option("--seed", c.seed, "random seed (1)");
  std::string scheduler;
  app.add_option("--scheduler", scheduler,
                 "priority | fair_share (groups are fair-share groups)")
      ->check(CLI::IsMember({"priority", "fair_share"}));
  app.add_option("--svg", svg_path, "write the report picture here")
      ->type_name("FILE");
  if (auto code =
          cli::parse_or_exit_code(app, argc, argv, std::cout, std::cerr))
    return *code;

  // Step 1: the fleet from master.yaml, then the command line's overrides.
  ours.idle_s = 180;
  if (!config_path.empty()) {
    auto m = conf::load_master_config(config_path);
    if (!m)
      return fail(conf::message_of(m.error()));
    std::string error;
    if (!sim::config_from_master(*m, pool, c, ours, error))
      return fail(error);
  } else {
    c.max_instances = 1000000;
  }
  if (!scheduler.empty())
    c.scheduler.policy = scheduler == "fair_share"
                             ? policy::scheduling_policy::fair_share
                             : policy::scheduling_policy::priority;
  if (gpus > 0)
    c.gpus_per_instance = gpus;
  if (max_instances > 0)
    c.max_instances = max_instances;
  if (price >= 0)
    c.price_per_hour = price;
  for (auto [flag, text, field] :
       {std::tuple{"--idle", &idle, &ours.idle_s},
        std::tuple{"--checkpoint", &checkpoint, &c.checkpoint_s},
        std::tuple{"--move-cost", &move_cost, &c.move_cost_s},
        std::tuple{"--consolidate-after", &consolidate_after,
                   &consolidate_after_s}}) {
    if (text->empty())
      continue;
    *field = seconds_of(*text);
    if (*field < 0)
      return fail(std::string{flag} + ": '" + *text + "' is not a duration", 2);
  }
  if ((c.boot_s = static_cast<double>(seconds_of(boot))) < 0)
    return fail("--boot: '" + boot + "' is not a duration", 2);
  for (const auto& o : outages) {
    sim::outage x;
    if (!parse_outage(o, x))
      return fail("--outage: '" + o + "' is not START+LENGTH", 2);
    c.outages.push_back(x);
  }
  std::vector<sim::policy_spec> specs;
  for (const auto& name : policies) {
    auto p = sim::policy_named(name, ours.idle_s);
    if (!p)
      return fail("--policies: unknown policy " + name, 2);
    p->consolidate_after_s = consolidate_after_s;
    specs.push_back(*p);
  }

  // Step 2: the trace.
  sim::trace t;
  std::string error;
  auto fmt = format == "itp"      ? sim::trace_format::itp
             : format == "philly" ? sim::trace_format::philly
                                  : sim::trace_format::generic;
  if (trace_spec.empty() == log_url.empty())
    return fail("one of --trace and --from-log is required", 2);
  if (!log_url.empty()) {
    pg_store_options o;
    o.url = log_url;
    o.lock = lock_policy::reader;
    auto log = pg_event_store::open(o);
    if (!log)
      return fail(render(log.error()));
    if (auto err = sim::jobs_from_log(**log, pool, t))
      return fail(render(err));
    trace_spec = "event log";
  } else if (!sim::load_trace(trace_spec, fmt, t, error)) {
    return fail(error);
  }
  // A bound is a duration from the trace's start or a UTC date and time.
  auto bound = [&t](const std::string& text) {
    auto utc = sim::parse_utc(text);
    return utc >= 0 ? utc - t.origin_epoch_s : seconds_of(text);
  };
  auto from_s = bound(from);
  auto to_s = to.empty() ? INT64_MAX : bound(to);
  if (from_s < 0 || to_s < 0)
    return fail("--from/--to: not a duration", 2);
  t = sim::slice(t, from_s, to_s);

  // Step 3: bounds, the runs, the picture.
  auto result = sim::compare(t.jobs, c, specs, trace_spec, !svg_path.empty());
  std::cout << result.head.dump() << "\n";
  for (const auto& run : result.runs)
    std::cout << run.dump() << "\n";
  if (!svg_path.empty()) {
    std::ofstream out{svg_path};
    out << result.svg;
    if (!out)
      return fail(svg_path + ": cannot be written");
  }
  return 0;
}
