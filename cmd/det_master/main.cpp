// det-master: the cluster master.
//
//   det-master [--config FILE] [--db URL] [--listen ADDR] [--port N]
//   det-master --check-config [--config FILE]
//
// Loads master.yaml (default /etc/determined/master.yaml), opens the
// PostgreSQL event log as its one writer (waiting for the lock if another
// master holds it), rebuilds the state from the log, and serves the REST
// API and the agent WebSocket until SIGINT or SIGTERM. Exit status: 0 after
// a clean shutdown, 1 when start-up fails, 2 on bad arguments.
//
// --check-config only validates the file: it prints the effective config
// (defaults filled in, secrets redacted) as YAML on stdout and exits 0, or
// prints every error, each naming its field, and exits 1. It opens no
// database and no port.

#include "actors/checkpoint_gc_actor.hpp"
#include "actors/event_writer.hpp"
#include "actors/master_actor.hpp"
#include "api/agent_ws.hpp"
#include "api/api_wiring.hpp"
#include "api/auth_crypto.hpp"
#include "api/durable_feed.hpp"
#include "api/log_books.hpp"
#include "api/log_policy_runtime.hpp"
#include "api/master_api.hpp"
#include "api/task_proxy.hpp"
#include "api/webhook_runtime.hpp"
#include "api/webui_files.hpp"
#include "aws/async_executor.hpp"
#include "conf/env_overrides.hpp"
#include "conf/redact.hpp"
#include "conf/yaml_tree.hpp"
#include "http/http_server.hpp"
#include "messages/errc.hpp"
#include "provision/checkpoint_deleter.hpp"
#include "provision/checkpoint_file_remover.hpp"
#include "read/read_model.hpp"
#include "rm/core_settings.hpp"
#include "rm/resource_manager.hpp"
#include "state/queries.hpp"
#include "store/cluster_secrets.hpp"
#include "store/log_archive.hpp"
#include "store/model_def_store.hpp"
#include "store/pg_event_store.hpp"
#include "store/pg_snapshot_writer.hpp"
#include "store/recovery.hpp"
#include "telemetry/master_cloudwatch.hpp"
#include "util/cli.hpp"
#include "util/log.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/send.hpp>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <unistd.h>

using namespace det;

namespace {

struct args {
  std::string config = "/etc/determined/master.yaml";
  std::string db;
  std::string listen = "0.0.0.0";
  int port = -1;
  std::string webui_dir;
  bool check_config = false;
};

// The command line; nullopt after --help (exit 0) or a bad argument (exit
// 2, one line on stderr), with `exit_code` set.
std::optional<args> parse_args(int argc, char** argv, int& exit_code) {
  args a;
  CLI::App app{"The cluster master: serves the REST API and the agents' "
               "WebSocket from the event log in PostgreSQL.",
               "det-master"};
  app.add_option("--config", a.config, "master.yaml")
      ->type_name("FILE")
      ->capture_default_str();
  app.add_option("--db", a.db,
                 "PostgreSQL URL (default: the db section of the config)")
      ->type_name("URL");
  app.add_option("--listen", a.listen, "address to serve on")
      ->type_name("ADDR")
      ->capture_default_str();
  app.add_option("--port", a.port, "port (default: the config's port)")
      ->type_name("N")
      ->check(cli::at_least(0))
      ->check(CLI::Range(0, 65535).description(""));
  app.add_option("--webui-dir", a.webui_dir,
                 "the WebUI's built files (default: "
                 "<bindir>/../share/determined/webui, else the build tree's "
                 "webui/)")
      ->type_name("DIR");
  app.add_flag("--check-config", a.check_config,
               "validate the config, print it with defaults filled in and "
               "secrets redacted, and exit (1 if it is refused)");
  if (auto code =
          cli::parse_or_exit_code(app, argc, argv, std::cout, std::cerr)) {
    exit_code = *code;
    return std::nullopt;
  }
  return a;
}

// --check-config: the effective config on stdout, or each error on a line
// of its own on stderr naming the file and the field.
int check_config(const args& a) {
  auto cfg = conf::load_master_config(a.config);
  if (!cfg) {
    auto text = conf::message_of(cfg.error());
    std::string prefix = a.config + ": ";
    if (text.rfind(prefix, 0) == 0)
      text.erase(0, prefix.size());
    size_t start = 0;
    while (start <= text.size()) {
      auto end = text.find('\n', start);
      if (end == std::string::npos)
        end = text.size();
      std::cerr << "det-master: " << prefix << text.substr(start, end - start)
                << "\n";
      start = end + 1;
    }
    return 1;
  }
  if (a.port >= 0)
    cfg->effective["port"] = a.port;
  std::cout << conf::to_yaml(conf::redacted_config(*cfg));
  return 0;
}

std::string hostname() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

/// SIGINT and SIGTERM, blocked in every thread started from here on; main
/// waits for them.
sigset_t block_stop_signals() {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return stop_signals;
}

/// Everything the master runs, filled in by the start-up steps below in
/// their order. stop_master() is the one clean-up, of a failed start-up
/// and of a shutdown alike. Declared so that the event log outlives the
/// actor system (whose end waits for the writer) and the system outlives
/// the handles.
struct master_process {
  args a;
  std::string argv0;
  conf::master_config cfg;
  conf::master_env env;
  std::string url;
  std::unique_ptr<pg_event_store> store;
  std::optional<state::cluster_state> st;
  std::unique_ptr<model_def_store> defs;
  std::shared_ptr<log_archive> kept_logs;
  std::string session_secret;
  std::string webhook_key;
  caf::actor_system_config sys_cfg;
  std::unique_ptr<caf::actor_system> sys;
  event_writer_actor writer;
  master_actor master;
  std::string cluster_id;
  std::string cluster_uuid;
  std::string master_uuid;
  std::shared_ptr<read::read_model> reads;
  std::shared_ptr<read::metrics_history> history;
  std::shared_ptr<api::webhook_runtime> webhooks;
  std::shared_ptr<api::log_policy_runtime> log_policies;
  std::shared_ptr<api::auth_directory> auth;
  std::unique_ptr<telemetry::cloudwatch_telemetry> cloudwatch;
  std::shared_ptr<api::trial_logs> logs;
  std::shared_ptr<api::task_logs> task_logs;
  std::shared_ptr<const api::session_tokens> tokens;
  std::shared_ptr<api::api_context> ctx;
  std::shared_ptr<api::agent_ws_context> ws_ctx;
  std::unique_ptr<rm::resource_manager> rm;
  std::unique_ptr<http::http_server> server;
  uint16_t port = 0;
  std::shared_ptr<aws::async_executor> gc_calls;
  caf::actor gc;
};

/// A start-up step's outcome: nothing, or the line to log before exit 1.
using failure = std::optional<std::string>;

failure load_config(master_process& m) {
  auto cfg = conf::load_master_config(m.a.config);
  if (!cfg)
    return render(cfg.error());
  m.cfg = std::move(*cfg);
  if (m.a.port >= 0)
    m.cfg.port = static_cast<uint16_t>(m.a.port);
  log::init("det-master", m.cfg.log.color);
  if (auto err = log::set_level(m.cfg.log.level))
    return "log.level: " + *err;
  log::info() << "config " << m.a.config << " loaded ("
              << m.cfg.resource_pools.size() << " resource pools)";
  m.url = m.a.db.empty() ? m.cfg.db.connection_url() : m.a.db;
  return {};
}

/// The DET_* overrides (conf/env_overrides.hpp), read once.
failure read_environment(master_process& m) {
  auto env = conf::read_master_env(conf::process_env());
  if (!env)
    return conf::message_of(env.error());
  m.env = std::move(*env);
  return {};
}

failure open_event_log(master_process& m) {
  pg_store_options so;
  so.url = m.url;
  so.lock = lock_policy::wait;
  so.on_lock_wait = [](const std::string& who) { log::info() << who; };
  auto store = pg_event_store::open(so);
  if (!store)
    return "cannot open the event log: " + render(store.error());
  m.store = std::move(*store);
  log::info() << "event log opened as the writer";
  recovery_report rep;
  auto st = recover(*m.store, true, &rep);
  if (!st)
    return "recovery failed: " + render(st.error());
  log::info() << "recovered state at position " << st->position << " (snapshot "
              << rep.snapshot_position << ", " << rep.events_replayed
              << " events replayed)";
  m.st = std::move(*st);
  return {};
}

failure read_cluster_secrets(master_process& m) {
  auto defs = open_pg_model_def_store(m.url);
  if (!defs)
    return "cannot open the model definitions: " + render(defs.error());
  m.defs = std::move(*defs);
  auto archive = open_pg_log_archive(m.url);
  if (!archive)
    return "cannot open the log lines: " + render(archive.error());
  m.kept_logs = std::move(*archive);
  // Agents always authenticate: without an agent_token in master.yaml the
  // cluster uses the one it generated on its first start (docs/security.md
  // says how an operator reads it).
  if (m.cfg.agent_token.empty()) {
    auto token = pg_cluster_secret(m.url, "agent_token", api::new_token);
    if (!token)
      return "cannot read the cluster's agent token: " + render(token.error());
    m.cfg.agent_token = *token;
    log::info() << "no agent_token in the config; agents must present the "
                   "cluster's generated token";
  }
  // The key of trials' session tokens: DET_SESSION_SECRET, else the
  // cluster's own, generated on its first start.
  if (!m.env.session_secret.empty())
    m.session_secret = m.env.session_secret;
  else if (auto s = pg_cluster_secret(m.url, "session_secret", api::new_token))
    m.session_secret = *s;
  else
    return "cannot read the cluster's session key: " + render(s.error());
  // Webhooks sign with master.yaml's webhooks.signing_key, else the
  // cluster's own, generated on its first start (never logged).
  if (auto w = m.cfg.effective.find("webhooks");
      w != m.cfg.effective.end() && w->is_object())
    if (auto k = w->find("signing_key"); k != w->end() && k->is_string())
      m.webhook_key = k->get<std::string>();
  if (m.webhook_key.empty()) {
    auto k = pg_cluster_secret(m.url, "webhook_signing_key", api::new_token);
    if (!k)
      return "cannot read the webhook signing key: " + render(k.error());
    m.webhook_key = *k;
  }
  return {};
}

/// The actor system, the event writer and the master, with what follows
/// its durable events (the read model, metrics, webhooks, log policies,
/// CloudWatch's gauges).
failure start_actors(master_process& m) {
  // Idle workers sleep until work comes (CAF's 'sharing' scheduler), where
  // CAF's default ('stealing') has them poll for it, waking every 50 us for
  // a while after each message. On 2 cores shared with the HTTP threads,
  // the read replicas, the appender and PostgreSQL, that polling was about
  // a quarter of the master's CPU under load: a trial's metric report cost
  // 178-196 us of it with polling and 128-140 us without
  // (docs/performance.md, ninth round).
  m.sys_cfg.set("scheduler.policy", caf::atom("sharing"));
  m.sys = std::make_unique<caf::actor_system>(m.sys_cfg);
  m.writer = spawn_event_writer(*m.sys, *m.store, writer_mode::group_commit);
  master_options mo;
  mo.tick_interval = std::chrono::seconds{1};
  auto core_cfg = rm::core_config_from(m.cfg, hostname(), getpid());
  // Experiments the log shows created with their model definition still
  // pending (the previous master stopped in between): which are stored.
  core_cfg.model_definitions_stored.emplace();
  for (const auto& [id, e] : m.st->experiments)
    if (e.model_definition_pending && !state::is_terminal(e.status)
        && m.defs->get(id))
      core_cfg.model_definitions_stored->insert(id);
  m.cluster_id = core_cfg.cluster_id;
  core_cfg.new_cluster_uuid = api::new_uuid();
  core_cfg.master_uuid = api::new_uuid();
  // /api/v1/master's clusterId: the log's UUID (made by its first master).
  m.cluster_uuid = m.st->cluster_uuid.empty() ? core_cfg.new_cluster_uuid
                                              : m.st->cluster_uuid;
  m.master_uuid = core_cfg.master_uuid;
  m.auth = std::make_shared<api::auth_directory>();
  m.auth->load(*m.st);
  // The read model starts from the recovered state and follows the log
  // as the master makes events durable (read/read_model.hpp).
  read::read_options ro;
  if (m.env.read_replicas)
    ro.replicas = *m.env.read_replicas;
  // Snapshots are rendered on a replica of their own, not on the master's
  // thread (read/read_model.hpp), and saved over a connection of their
  // own, not between the log's appends (store/pg_snapshot_writer.hpp). A
  // failed one costs only start-up time: the log is the truth.
  ro.snapshot_every = m.env.snapshot_every.value_or(mo.snapshot_every);
  mo.snapshot_every = 0;
  ro.snapshot = [saver = std::make_shared<pg_snapshot_writer>(m.url)](
                    const state::cluster_state& s) {
    snapshot snap;
    snap.position = s.position;
    snap.schema_version = state::snapshot_version;
    snap.state = state::to_snapshot(s).dump();
    if (auto err = saver->save(snap, snapshots_kept))
      log::warn() << "no snapshot at " << s.position << ": " << render(err);
  };
  ro.snapshot_taken = [](int64_t at, int64_t took_us, int64_t) {
    log::debug() << "snapshot at position " << at << " taken in "
                 << took_us / 1000 << " ms";
  };
  ro.snapshot_refused = [](const std::string& why) {
    log::warn() << "no snapshot taken: " << why;
  };
  m.reads = api::follow_master(mo, *m.st, ro);
  m.history = api::follow_metrics(mo);
  m.webhooks = api::follow_webhooks(mo, *m.st, m.webhook_key);
  m.log_policies = api::follow_log_policies(mo, *m.st);
  m.logs = api::follow_trial_logs(mo, m.kept_logs);
  m.task_logs = api::follow_task_events(mo, *m.st, m.kept_logs);
  auto cloudwatch = telemetry::start_master_cloudwatch(m.cfg.cloudwatch,
                                                       m.cluster_id, m.reads);
  if (!cloudwatch)
    return render(cloudwatch.error());
  m.cloudwatch = std::move(*cloudwatch);
  auto st = std::move(*m.st);
  m.st.reset();
  m.master =
      spawn_master(*m.sys, m.writer, std::move(st), std::move(core_cfg), mo);
  // Fail-stop: a master that ends for any reason but our own shutdown (a
  // failed append above all) has state ahead of its log. It must not stay
  // up answering errors; exit at once and let the supervisor restart it,
  // and replay heals.
  m.master->attach_functor([](const caf::error& reason) {
    if (!reason || reason == caf::exit_reason::user_shutdown)
      return;
    log::error() << "the master stopped: " << render(reason)
                 << "; exiting so that a restart replays the log";
    std::_Exit(70);
  });
  return {};
}

/// What the routes and the agents' WebSocket share (api/api_wiring.hpp),
/// and the users every cluster has.
failure build_api_context(master_process& m) {
  api::api_sources in;
  in.master = m.master;
  in.config = std::make_shared<const conf::master_config>(m.cfg);
  in.reads = m.reads;
  in.history = m.history;
  in.defs = std::move(m.defs);
  in.logs = m.logs;
  in.task_log_book = m.task_logs;
  in.auth = m.auth;
  in.webhooks = m.webhooks;
  in.log_policies = m.log_policies;
  in.session_secret = m.session_secret;
  in.cluster_id = m.cluster_id;
  in.cluster_uuid = m.cluster_uuid;
  in.master_uuid = m.master_uuid;
  in.db_url = m.url;
  in.checkpoint_dir = rm::checkpoint_dir(m.cfg);
  api::api_wiring w;
  auto err = api::wire_api(*m.sys, std::move(in), w);
  m.ctx = std::move(w.routes);
  m.ws_ctx = std::move(w.agents);
  m.tokens = std::move(w.tokens);
  if (!err.empty())
    return err;
  return {};
}

/// The resource manager of master.yaml's type, and what the API shows of
/// it (bound before the routes are made; it starts once the API serves).
failure attach_resource_manager(master_process& m) {
  m.rm = rm::make_resource_manager(m.cfg, m.env);
  m.rm->attach_api(*m.ctx);
  return {};
}

failure serve(master_process& m) {
  const auto& cfg = m.cfg;
  auto ctx = m.ctx;
  http::router routes;
  // det experiment delete-tb-files and checkpoint downloads: blocking
  // storage calls on a thread of their own.
  auto calls = make_storage_calls(m.cluster_uuid);
  ctx->delete_tensorboard_files = std::move(calls.delete_tensorboard_files);
  ctx->pack_checkpoint = std::move(calls.pack_checkpoint);
  api::add_master_routes(routes, ctx);
  if (auto err = api::add_webui_from(routes, m.a.webui_dir))
    return render(err);
  http::server_config sc;
  sc.address = m.a.listen;
  sc.port = cfg.port;
  sc.threads = 2;
  // Missed heartbeats, not the socket's idle timer, end a silent agent.
  sc.ws_idle_timeout = std::max<std::chrono::milliseconds>(
      sc.ws_idle_timeout,
      2 * cfg.agent_heartbeat_interval * cfg.agent_missed_heartbeats);
  // Room for the largest model directory, base64-encoded in JSON.
  auto model_bytes = static_cast<size_t>(cfg.max_model_definition_bytes);
  sc.body_limit =
      api::request_body_limit("POST", "/api/v1/experiments", true, model_bytes);
  sc.body_limit_for = [model_bytes](std::string_view method,
                                    std::string_view path, bool authorized) {
    return api::request_body_limit(method, path, authorized, model_bytes);
  };
  if (cfg.tls.enabled())
    sc.tls = http::tls_config{cfg.tls.cert, cfg.tls.key};
  m.server = std::make_unique<http::http_server>(sc, std::move(routes));
  m.server->add_websocket("/agents/ws", api::agent_ws_handler(m.ws_ctx),
                          api::agent_ws_authorizer(m.ws_ctx));
  m.server->add_proxy("/proxy/", api::task_proxy_resolver(m.ctx));
  auto port = m.server->start();
  if (!port)
    return "cannot serve on " + m.a.listen + ":" + std::to_string(cfg.port)
           + ": " + render(port.error());
  m.port = *port;
  log::info() << "serving " << (cfg.tls.enabled() ? "https" : "http") << " on "
              << m.a.listen << ":" << m.port;
  return {};
}

failure start_resource_manager(master_process& m) {
  rm::rm_context rc;
  rc.sys = m.sys.get();
  rc.master = m.master;
  rc.logs = m.logs;
  rc.task_logs = m.task_logs;
  rc.tokens = m.tokens;
  rc.cluster_id = m.cluster_id;
  rc.cluster_uuid = m.cluster_uuid;
  rc.db_url = m.url;
  rc.scheme = m.cfg.tls.enabled() ? "https" : "http";
  rc.port = m.port;
  rc.bin_dir = std::filesystem::path{m.argv0}.parent_path().string();
  if (auto err = m.rm->start(rc))
    return conf::message_of(err);
  return {};
}

/// Checkpoint GC: deletions (S3 calls, folder removal) block, so they run
/// on a thread of their own, never on an actor's.
failure start_checkpoint_gc(master_process& m) {
  m.gc_calls = std::make_shared<aws::async_executor>(1, 4096);
  checkpoint_gc_options gco;
  if (m.env.checkpoint_gc_interval)
    gco.tick_interval = *m.env.checkpoint_gc_interval;
  // A deleted experiment's TensorBoard files go with its checkpoints,
  // from where the harness syncs them (under the cluster's uuid).
  gco.run = [gc_calls = m.gc_calls, del = make_checkpoint_deleter(),
             cluster = m.cluster_uuid](checkpoint_deletion d,
                                       std::function<void(caf::error)> done) {
    gc_calls->run<bool>(
        [del, d, cluster]() -> caf::expected<bool> {
          if (auto err = del(d))
            return err;
          if (d.experiment_deleted)
            if (auto err = delete_tensorboard_files(d.storage, cluster,
                                                    d.experiment_id))
              return err;
          return true;
        },
        [done](caf::expected<bool> r) { done(r ? caf::error{} : r.error()); });
  };
  gco.remove_files =
      [gc_calls = m.gc_calls, remover = make_checkpoint_file_remover()](
          checkpoint_file_removal r,
          std::function<void(caf::expected<nlohmann::json>)> done) {
        gc_calls->run<nlohmann::json>([remover, r] { return remover(r); },
                                      std::move(done));
      };
  gco.expire_logs = [logs = m.logs](std::vector<int64_t> ids) {
    logs->erase(ids);
  };
  m.gc = spawn_checkpoint_gc(*m.sys, m.master, std::move(gco));
  return {};
}

/// The steps of start-up, in order; the first failure ends it.
failure start_master(master_process& m) {
  using step = failure (*)(master_process&);
  for (step s :
       {load_config, read_environment, open_event_log, read_cluster_secrets,
        start_actors, build_api_context, attach_resource_manager, serve,
        start_resource_manager, start_checkpoint_gc})
    if (auto why = s(m))
      return why;
  return {};
}

void wait_for_stop(const sigset_t& stop_signals) {
  int sig = 0;
  sigwait(&stop_signals, &sig);
  log::info() << (sig == SIGINT ? "SIGINT" : "SIGTERM") << ", shutting down";
}

/// The one clean-up: ends what start_master started, the API first (no
/// new requests), then the resource manager (its threads joined while
/// the actor system still runs), the checkpoint GC, the runtimes and the
/// actors; what never started is skipped. CloudWatch goes last so that it
/// ships the final lines.
void stop_master(master_process& m, bool log_stopped) {
  if (m.server)
    m.server->stop(std::chrono::seconds{2});
  if (m.rm)
    m.rm->stop();
  if (m.gc)
    caf::anon_send_exit(m.gc, caf::exit_reason::user_shutdown);
  if (m.gc_calls)
    m.gc_calls->shutdown();
  if (m.ctx) {
    m.webhooks->stop();
    caf::anon_send_exit(m.ctx->bridge, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(m.ctx->model_defs, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(m.ctx->experiment_creation,
                        caf::exit_reason::user_shutdown);
  }
  if (m.master)
    caf::anon_send_exit(m.master, caf::exit_reason::user_shutdown);
  if (m.writer)
    caf::anon_send_exit(m.writer, caf::exit_reason::user_shutdown);
  m.ctx.reset();
  m.ws_ctx.reset();
  if (m.kept_logs) // the last lines the processes printed
    m.kept_logs->flush();
  if (log_stopped)
    log::info() << "stopped";
  if (m.cloudwatch)
    m.cloudwatch->stop();
}

} // namespace

int main(int argc, char** argv) {
  int exit_code = 0;
  auto parsed = parse_args(argc, argv, exit_code);
  if (!parsed)
    return exit_code;
  if (parsed->check_config)
    return check_config(*parsed);
  log::init("det-master");
  auto stop_signals = block_stop_signals();
  master_process m;
  m.a = std::move(*parsed);
  m.argv0 = argv[0];
  if (auto why = start_master(m)) {
    log::error() << *why;
    stop_master(m, false);
    return 1;
  }
  wait_for_stop(stop_signals);
  stop_master(m, true);
  return 0;
}
