#pragma once

// agent.yaml -> agent_config for det-agent. Flags and environment are the
// caller's to read; it layers them with apply_overrides in the order
// file < environment < flags:
//
//   auto cfg = load_agent_config(path);                  // or
//   parse_agent_config("") cfg = apply_overrides(*cfg,
//   overrides_from_env(getenv)); cfg = apply_overrides(*cfg, flags); // from
//   --master-url ...
//
// The master is named either by master_url ("http://host:8080") or, as in
// upstream agent.yaml, by master_host + master_port.

#include "conf/cloudwatch_config.hpp"
#include "conf/master_url.hpp"
#include "messages/errc.hpp"

#include <caf/expected.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace det::conf {

struct agent_tls_config {
  bool enabled = false; ///< also true when master_url is https
  bool skip_verify = false;
  std::string master_cert;      ///< CA bundle path; "" = system roots
  std::string master_cert_name; ///< expected name in the master's cert
  std::string client_cert;
  std::string client_key;
};

struct agent_config {
  master_address master{"http", "localhost", 8080, host_alias::none};
  std::string agent_id;      ///< "" = this machine's hostname
  std::string resource_pool; ///< "" = the master's default compute pool
  /// Slots to report when the machine has no usable GPU (and with
  /// slot_type cpu); 0 = detect (GPUs, else one CPU slot).
  int64_t slots = 0;
  std::string slot_type = "auto"; ///< auto | cuda | rocm | cpu | none
  std::string visible_gpus;       ///< "0,1"; "" = all
  std::string token;              ///< secret; sent when the master asks
  std::string work_dir = "/tmp/det-agent";
  int64_t reconnect_attempts = 5;
  std::chrono::milliseconds reconnect_backoff{std::chrono::seconds{5}};
  /// The agent drops its connection and dials again after this many of
  /// the master's heartbeat intervals (given in its welcome) without a
  /// frame from the master.
  int64_t missed_heartbeats = 3;
  agent_tls_config tls;
  /// Command run when the master stays unreachable (e.g. shutdown now).
  std::vector<std::string> on_connection_lost;
  /// idle_shutdown.after: an agent with no trial running, cut off from the
  /// master for idle_shutdown.grace, stops (exit code 75, which the
  /// provisioned instance's launch script turns into a shutdown) once idle
  /// this long (policy/idle_self_shutdown); zero = never. The master's
  /// launch passes its pool's max_idle_agent_period.
  std::chrono::milliseconds idle_shutdown_after{0};
  std::chrono::milliseconds idle_shutdown_grace{std::chrono::seconds{60}};
  /// idle_shutdown.unreachable: the idle period while the master is
  /// unreachable, when shorter than idle_shutdown.after; zero = the same.
  /// The master's launch passes its pool's unreachable_idle_agent_period.
  std::chrono::milliseconds idle_shutdown_unreachable{0};
  /// idle_shutdown.exit_tags: on a provisioned EC2 instance, exits the
  /// master has not recorded are written into the instance's tags before
  /// it stops (messages/exit_tags.hpp) instead of keeping it up.
  bool idle_shutdown_exit_tags = false;
  /// log.level: a name util/log's set_level() accepts.
  std::string log_level = "info";
  cloudwatch_config cloudwatch;
  /// The file's tree with defaults filled in.
  nlohmann::json effective;
};

/// Parses agent.yaml text; errors name the field path, all at once.
[[nodiscard]] caf::expected<agent_config>
parse_agent_config(std::string_view text);

/// parse_agent_config on the file at `path`.
[[nodiscard]] caf::expected<agent_config>
load_agent_config(const std::string& path);

/// Values from flags or the environment; unset ones leave the config alone.
struct agent_overrides {
  std::optional<std::string> master_url;
  std::optional<std::string> resource_pool;
  std::optional<int64_t> slots;
  std::optional<std::string> token;
  std::optional<std::string> agent_id;
  std::optional<std::string> work_dir;
  /// Set: cloudwatch.enabled with this log_group.
  std::optional<std::string> cloudwatch_log_group;
  std::optional<std::string> cluster_id; ///< cloudwatch.cluster_id
  /// idle_shutdown.after, as a duration ("3m", "180s"; "0" = off).
  std::optional<std::string> idle_shutdown_after;
  /// idle_shutdown.unreachable, as a duration.
  std::optional<std::string> idle_shutdown_unreachable;
  /// idle_shutdown.exit_tags turned on.
  bool idle_shutdown_exit_tags = false;
};

/// `cfg` with every set override applied. Fails with errc::invalid_argument
/// ("master_url: ...", "slots: ...") when an override is malformed; `source`
/// (e.g. "--master-url" or "environment") is named in the message.
[[nodiscard]] caf::expected<agent_config>
apply_overrides(agent_config cfg, const agent_overrides& o,
                std::string_view source = "override");

/// Overrides from DET_MASTER, DET_AGENT_TOKEN, DET_AGENT_ID,
/// DET_RESOURCE_POOL, DET_SLOTS, DET_CLOUDWATCH_LOG_GROUP and
/// DET_CLUSTER_ID; empty variables count as unset. A
/// DET_SLOTS that is not a non-negative integer becomes slots = -1, which
/// apply_overrides refuses. `getenv` is injected for tests.
agent_overrides
overrides_from_env(const std::function<const char*(const char*)>& getenv);

} // namespace det::conf
