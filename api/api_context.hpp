#pragma once

// What every route of the master's REST API shares: the actors it asks
// (master, bridge, model definitions, experiment creation), the in-memory
// books beside the log (trial and task logs, progress, sessions, agents'
// addresses), the read model, the effective config and the hooks to the
// world outside (object storage, the Kubernetes API). Built once by det-master
// (or a test) before the server starts and read-only afterwards: routes hold it
// as a shared_ptr<const api_context> from any I/O thread; the members that
// change (books, login limits) carry their own locks or belong to one
// actor, as each says.

#include "actors/master_actor.hpp"
#include "api/agent_addresses.hpp"
#include "api/api_bridge.hpp"
#include "api/auth_crypto.hpp"
#include "api/auth_directory.hpp"
#include "api/codec.hpp"
#include "api/idle_watch.hpp"
#include "api/task_logs.hpp"
#include "api/trial_logs.hpp"
#include "api/trial_progress.hpp"
#include "conf/capacity.hpp"
#include "conf/experiment_config.hpp"
#include "conf/master_config.hpp"
#include "policy/login_throttle.hpp"
#include "read/metrics_history.hpp"
#include "read/read_model.hpp"
#include "util/serial_worker.hpp"

#include <caf/actor.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace det::api {

class log_reader;
class webhook_runtime;

class node_agents;

/// The login throttle (policy/login_throttle.hpp) under its lock.
struct login_limits {
  std::mutex mu;
  policy::login_throttle throttle;
};

struct api_context {
  master_actor master;
  caf::actor bridge;
  caf::actor model_defs;
  /// Creates experiments with their model definitions and answers reads of
  /// a definition (actors/experiment_creation_actor.hpp).
  caf::actor experiment_creation;
  std::shared_ptr<trial_logs> logs;
  /// Tasks' output and the master's lines about them (api/task_logs.hpp).
  std::shared_ptr<task_logs> task_log_book = std::make_shared<task_logs>();
  /// Where each det-agent connected from (api/agent_addresses.hpp): the
  /// proxy reaches a task's environment.proxy_ports there.
  std::shared_ptr<agent_address_book> agent_addresses =
      std::make_shared<agent_address_book>();
  std::shared_ptr<const session_tokens> tokens;
  /// Users and live sessions (api_auth.hpp).
  std::shared_ptr<auth_directory> auth = std::make_shared<auth_directory>();
  /// The effective master config (GET /api/v1/master/config, pools).
  std::shared_ptr<const conf::master_config> config =
      std::make_shared<conf::master_config>();
  conf::experiment_defaults experiment_defaults;
  /// Largest possible capacity of each provisioned pool: a trial that can
  /// never fit is refused at submission.
  std::map<std::string, conf::pool_capacity> pool_capacities;
  std::string cluster_id;
  std::string cluster_name;
  /// This master process: a fresh UUID at every start (upstream's masterId).
  std::string master_id = new_uuid();
  /// The event log's URL, for det-inspect's read-only log queries.
  std::string db_url;
  std::string version = "0.38.1";
  /// Wall-clock microseconds since the epoch (tests inject their own):
  /// access-token expiry, cluster-message windows.
  std::function<int64_t()> wall_clock_us = [] {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  std::chrono::milliseconds request_timeout{std::chrono::seconds{30}};
  /// How often a preemption long poll re-reads the state.
  std::chrono::milliseconds preemption_poll{std::chrono::milliseconds{250}};
  /// Failed logins by name and address (POST /api/v1/auth/login).
  std::shared_ptr<login_limits> logins = std::make_shared<login_limits>();
  /// Password hashing, off the I/O threads; a full queue answers 503.
  std::shared_ptr<util::serial_worker> password_work =
      std::make_shared<util::serial_worker>(64);
  /// Latest reported progress per trial (in memory).
  std::shared_ptr<trial_progress> progress = std::make_shared<trial_progress>();
  /// The read replicas that answer reads (read/read_model.hpp); null:
  /// reads ask the master (tests of the routes alone).
  std::shared_ptr<read::read_model> reads;
  /// Trials' metric reports, for learning curves (read/metrics_history.hpp);
  /// null: the metric history routes answer 503.
  std::shared_ptr<read::metrics_history> history;
  /// The metric-history routes' own read-only connection to the event log
  /// (api/log_reader.hpp), made by det-master from db_url, so a history
  /// load does not wait behind det-inspect's queries, nor they behind it;
  /// null: those routes answer 503.
  std::shared_ptr<log_reader> metric_reader;
  /// det-inspect's event-log queries (api/inspect_routes.cpp) and the
  /// pools' simulations (api/pool_routes.cpp), each on a read-only
  /// connection of its own to db_url (api/log_reader.hpp), made by
  /// det-master; null: those routes answer 503.
  std::shared_ptr<log_reader> inspect_reader;
  std::shared_ptr<log_reader> simulate_reader;
  /// Webhooks' sender and log patterns (api/webhook_runtime.hpp); null:
  /// POST /webhooks/{id}/test answers 503.
  std::shared_ptr<webhook_runtime> webhooks;
  /// Nodes shown as agents (resource_manager type kubernetes); null: the
  /// agent routes show the state's agents (api/node_agents.hpp).
  std::shared_ptr<node_agents> nodes;
  /// With resource_manager type kubernetes: checks that namespace `ns`
  /// exists, off the calling thread, and calls `done` once, on any thread,
  /// with "" or why not. Null: the master runs det-agents, and
  /// workspace-namespace bindings are refused as upstream refuses them.
  std::function<void(std::string ns, std::function<void(std::string)> done)>
      check_namespace;
  /// Notebooks' activity and idle timeout (api/idle_watch.hpp), looked at
  /// every idle_check_interval (upstream: 5 s).
  std::shared_ptr<idle_watch> idle = std::make_shared<idle_watch>();
  std::chrono::milliseconds idle_check_interval{std::chrono::seconds{5}};
  /// Deletes experiment `id`'s TensorBoard files from checkpoint storage
  /// `storage` off the calling thread and calls `done` once, on any thread
  /// ("" or why not); null: DELETE .../tensorboard-files answers 503.
  std::function<void(int64_t id, nlohmann::json storage,
                     std::function<void(std::string)> done)>
      delete_tensorboard_files;
  /// Packs checkpoint `uuid` of `storage` as a gzipped tar off the calling
  /// thread and calls `done` once, on any thread; null: GET
  /// /checkpoints/{uuid} answers 503.
  std::function<void(std::string uuid, nlohmann::json storage,
                     std::function<void(caf::expected<std::string>)> done)>
      pack_checkpoint;
};

} // namespace det::api
