#include "agent/options.hpp"

#include "util/cli.hpp"

#include <cstdio>
#include <sstream>

#include <unistd.h>

namespace det::agent {

namespace {

caf::error bad(const std::string& what) {
  return make_error(errc::invalid_argument, what);
}

std::string system_hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0)
    return "localhost";
  return buf;
}

} // namespace

namespace {

// The options, writing into `out`; `app` must not outlive it.
void add_options(CLI::App& app, agent_args& out) {
  app.description("Connects to det-master, reports this machine's slots and "
                  "runs the trial processes the master starts.");
  app.add_option("--config", out.config_path,
                 "agent.yaml (default: built-in defaults)")
      ->type_name("FILE");
  app.add_option("--master-url", out.flags.master_url,
                 "http(s)://host:port (env DET_MASTER)")
      ->type_name("URL");
  app.add_option("--resource-pool", out.flags.resource_pool,
                 "pool to join (env DET_RESOURCE_POOL)")
      ->type_name("NAME");
  app.add_option("--slots", out.flags.slots,
                 "CPU slots without GPUs (env DET_SLOTS)")
      ->type_name("N")
      ->check(cli::at_least(0));
  app.add_option("--token", out.flags.token,
                 "agent token (env DET_AGENT_TOKEN)")
      ->type_name("T");
  app.add_option("--agent-id", out.flags.agent_id,
                 "default: the hostname (env DET_AGENT_ID)")
      ->type_name("ID")
      ->check(CLI::Validator(
          [](const std::string& v) {
            return v.empty() ? std::string{"must not be empty"} : std::string{};
          },
          "", "not empty"));
  app.add_option("--work-dir", out.flags.work_dir,
                 "per-allocation working directories")
      ->type_name("DIR");
  app.add_option("--ca-cert", out.ca_cert,
                 "CA bundle for wss/https to the master")
      ->type_name("FILE");
  app.add_option("--checkpoint-dir", out.checkpoint_dir,
                 "DET_CHECKPOINT_DIR when the master sends none (default "
                 "/tmp/determined-checkpoint)")
      ->type_name("DIR");
  app.add_option("--idle-shutdown-after", out.flags.idle_shutdown_after,
                 "stop (exit 75) once idle this long while the master is "
                 "unreachable (idle_shutdown.after; 0 = never)")
      ->type_name("DURATION");
  app.add_option("--idle-shutdown-unreachable",
                 out.flags.idle_shutdown_unreachable,
                 "the idle period while the master is unreachable, when "
                 "shorter (idle_shutdown.unreachable; 0 = the same)")
      ->type_name("DURATION");
  app.add_flag("--exit-tags", out.flags.idle_shutdown_exit_tags,
               "on a provisioned EC2 instance: write exits the master has "
               "not recorded into the instance's tags, then stop "
               "(idle_shutdown.exit_tags)");
  app.add_flag("--cold-launch", out.cold_launch,
               "start each trial's launch layer in an interpreter of its own "
               "instead of forking it from the warm launcher");
  app.add_flag("--spot-notice", out.spot_notice,
               "on a spot instance: poll IMDSv2 spot/instance-action every "
               "5 s (DET_SPOT_NOTICE_INTERVAL_MS) and tell the master when "
               "the instance is about to be reclaimed");
}

} // namespace

std::string usage() {
  agent_args ignored;
  CLI::App app{"", "det-agent"};
  add_options(app, ignored);
  cli::configure(app);
  return app.help();
}

caf::expected<agent_args>
parse_agent_args(const std::vector<std::string>& args) {
  agent_args out;
  CLI::App app{"", "det-agent"};
  add_options(app, out);
  auto r = cli::parse(app, args);
  if (r.what == cli::outcome::kind::error)
    return bad(r.text);
  out.help = r.what == cli::outcome::kind::help;
  return out;
}

std::vector<int> parse_gpu_indices(const std::string& text) {
  std::vector<int> out;
  std::istringstream in{text};
  std::string line;
  while (std::getline(in, line)) {
    auto b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos)
      continue;
    try {
      out.push_back(std::stoi(line.substr(b)));
    } catch (...) {
      // Not an index (an error message): no usable GPUs.
      return {};
    }
  }
  return out;
}

std::optional<std::vector<int>> probe_nvidia_gpus() {
  auto* p = popen("nvidia-smi --query-gpu=index --format=csv,noheader "
                  "2>/dev/null",
                  "r");
  if (p == nullptr)
    return std::nullopt;
  std::string text;
  char buf[256];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
    text.append(buf, n);
  if (pclose(p) != 0)
    return std::nullopt;
  return parse_gpu_indices(text);
}

caf::expected<agent_settings>
resolve_settings(const agent_args& args,
                 const std::function<const char*(const char*)>& getenv,
                 const gpu_probe& probe,
                 const std::function<std::string()>& hostname) {
  auto cfg = args.config_path.empty()
                 ? conf::parse_agent_config("")
                 : conf::load_agent_config(args.config_path);
  if (!cfg)
    return cfg.error();
  cfg = conf::apply_overrides(std::move(*cfg), conf::overrides_from_env(getenv),
                              "environment");
  if (!cfg)
    return cfg.error();
  cfg = conf::apply_overrides(std::move(*cfg), args.flags, "flag");
  if (!cfg)
    return cfg.error();
  agent_settings s;
  s.cfg = std::move(*cfg);
  if (args.ca_cert)
    s.cfg.tls.master_cert = *args.ca_cert;
  if (args.checkpoint_dir)
    s.checkpoint_dir = *args.checkpoint_dir;
  s.agent_id = !s.cfg.agent_id.empty()
                   ? s.cfg.agent_id
                   : (hostname ? hostname() : system_hostname());
  auto type = s.cfg.slot_type;
  std::optional<std::vector<int>> gpus;
  if ((type == "auto" || type == "cuda") && probe)
    gpus = probe();
  if (gpus && !gpus->empty()) {
    s.slot_type = "cuda";
    s.slots = static_cast<int64_t>(gpus->size());
  } else {
    s.slot_type = "cpu";
    s.slots = s.cfg.slots > 0 ? s.cfg.slots : 1;
  }
  return s;
}

} // namespace det::agent
