#pragma once

// det-agent's command line and the settings it resolves to. Layering:
// agent.yaml (--config; built-in defaults without it) < environment
// (DET_MASTER, DET_AGENT_TOKEN, ...) < flags. Pure except
// resolve_settings' hostname and GPU probes, both injectable.

#include "agent/reconnect_backoff.hpp"
#include "conf/agent_config.hpp"
#include "messages/errc.hpp"

#include <caf/expected.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace det::agent {

struct agent_args {
  bool help = false;
  /// --spot-notice: watch IMDS for the spot interruption notice.
  bool spot_notice = false;
  /// --cold-launch: every trial starts its own interpreter (no warm
  /// launcher, agent/warm_launch.hpp).
  bool cold_launch = false;
  std::string config_path; ///< "" = no file
  conf::agent_overrides flags;
  std::optional<std::string> ca_cert;
  std::optional<std::string> checkpoint_dir;
};

/// The usage text for --help (CLI11's, from the same options the parser
/// reads).
std::string usage();

/// Parses argv[1..] with CLI11: "--flag value" and "--flag=value". Fails
/// with errc::invalid_argument and a one-line reason naming the argument.
/// The environment is not read here: resolve_settings() layers it.
[[nodiscard]] caf::expected<agent_args>
parse_agent_args(const std::vector<std::string>& args);

/// Everything the agent needs to run, resolved.
struct agent_settings {
  conf::agent_config cfg;
  std::string agent_id;
  int64_t slots = 1;
  std::string slot_type = "cpu"; ///< cpu | cuda
  /// DET_CHECKPOINT_DIR when the start frame's env does not set it.
  std::string checkpoint_dir = "/tmp/determined-checkpoint";
  std::chrono::milliseconds kill_grace{std::chrono::seconds{10}};
  /// This program's path, for trials started through the warm launcher
  /// (`det-agent --warm-launch`); "" = every trial starts cold.
  std::string warm_launch_client;
  policy::backoff_config backoff = agent_reconnect_backoff();
  /// Uniform in [0, 1), for the backoff jitter; default: a seeded PRNG.
  std::function<double()> uniform;
};

/// GPU indices from `nvidia-smi --query-gpu=index --format=csv,noheader`,
/// or nullopt when it is missing or fails.
using gpu_probe = std::function<std::optional<std::vector<int>>()>;

/// Runs nvidia-smi.
std::optional<std::vector<int>> probe_nvidia_gpus();

/// Parses nvidia-smi's output: one index per line.
std::vector<int> parse_gpu_indices(const std::string& text);

/// Loads the file, applies environment and flags, fills in the agent id
/// (hostname) and the slots (GPUs when slot_type allows and the probe finds
/// some, else the configured CPU slot count, at least 1).
[[nodiscard]] caf::expected<agent_settings>
resolve_settings(const agent_args& args,
                 const std::function<const char*(const char*)>& getenv,
                 const gpu_probe& probe = probe_nvidia_gpus,
                 const std::function<std::string()>& hostname = {});

} // namespace det::agent
