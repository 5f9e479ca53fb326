#include "agent/options.hpp"

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

const char* usage() {
  return "usage: det-agent [--config FILE] [options]\n"
         "\n"
         "Connects to det-master, reports this machine's slots and runs the\n"
         "trial processes the master starts.\n"
         "\n"
         "  --config FILE          agent.yaml (default: built-in defaults)\n"
         "  --master-url URL       http(s)://host:port (env DET_MASTER)\n"
         "  --resource-pool NAME   pool to join (env DET_RESOURCE_POOL)\n"
         "  --slots N              CPU slots without GPUs (env DET_SLOTS)\n"
         "  --token T              agent token (env DET_AGENT_TOKEN)\n"
         "  --agent-id ID          default: the hostname (env DET_AGENT_ID)\n"
         "  --work-dir DIR         per-allocation working directories\n"
         "  --ca-cert FILE         CA bundle for wss/https to the master\n"
         "  --checkpoint-dir DIR   DET_CHECKPOINT_DIR when the master sends\n"
         "                         none (default /tmp/determined-checkpoint)\n"
         "  --help                 this text\n";
}

caf::expected<agent_args>
parse_agent_args(const std::vector<std::string>& args) {
  agent_args out;
  for (size_t i = 0; i < args.size(); ++i) {
    auto arg = args[i];
    if (arg == "--help" || arg == "-h") {
      out.help = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0)
      return bad("unexpected argument '" + arg + "'");
    std::string value;
    auto eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return bad(arg + ": missing value");
    }
    if (arg == "--config") {
      out.config_path = value;
    } else if (arg == "--master-url") {
      out.flags.master_url = value;
    } else if (arg == "--resource-pool") {
      out.flags.resource_pool = value;
    } else if (arg == "--slots") {
      int64_t n = -1;
      try {
        size_t used = 0;
        n = std::stoll(value, &used);
        if (used != value.size())
          n = -1;
      } catch (...) {
        n = -1;
      }
      if (n < 0)
        return bad("--slots: not a non-negative integer: '" + value + "'");
      out.flags.slots = n;
    } else if (arg == "--token") {
      out.flags.token = value;
    } else if (arg == "--agent-id") {
      if (value.empty())
        return bad("--agent-id: must not be empty");
      out.flags.agent_id = value;
    } else if (arg == "--work-dir") {
      out.flags.work_dir = value;
    } else if (arg == "--ca-cert") {
      out.ca_cert = value;
    } else if (arg == "--checkpoint-dir") {
      out.checkpoint_dir = value;
    } else {
      return bad("unknown argument '" + arg + "'");
    }
  }
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
