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
#include "actors/model_def_actor.hpp"
#include "actors/provisioner_actor.hpp"
#include "api/agent_ws.hpp"
#include "api/api_auth.hpp"
#include "api/auth_crypto.hpp"
#include "api/log_policy_runtime.hpp"
#include "api/master_api.hpp"
#include "api/webhook_runtime.hpp"
#include "api/webui_files.hpp"
#include "aws/async_executor.hpp"
#include "cmd/det_master/cloudwatch.hpp"
#include "cmd/det_master/startup.hpp"
#include "conf/redact.hpp"
#include "conf/yaml_tree.hpp"
#include "http/http_server.hpp"
#include "k8s_nodes.hpp"
#include "kubernetes_rm.hpp"
#include "messages/errc.hpp"
#include "provision/aws_provider.hpp"
#include "provision/checkpoint_deleter.hpp"
#include "provision/checkpoint_file_remover.hpp"
#include "provision/local_provider.hpp"
#include "read/read_model.hpp"
#include "state/queries.hpp"
#include "store/cluster_secrets.hpp"
#include "store/pg_event_store.hpp"
#include "store/recovery.hpp"
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

int fail(const std::string& what) {
  log::error() << what;
  return 1;
}

std::string hostname() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

} // namespace

int main(int argc, char** argv) {
  int exit_code = 0;
  auto parsed = parse_args(argc, argv, exit_code);
  if (!parsed)
    return exit_code;
  auto& a = *parsed;
  if (a.check_config)
    return check_config(a);
  log::init("det-master");
  // Every thread inherits this mask; main waits for the signals.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  auto cfg = conf::load_master_config(a.config);
  if (!cfg)
    return fail(render(cfg.error()));
  if (a.port >= 0)
    cfg->port = static_cast<uint16_t>(a.port);
  log::init("det-master", cfg->log.color);
  if (auto err = log::set_level(cfg->log.level))
    return fail("log.level: " + *err);
  log::info() << "config " << a.config << " loaded ("
              << cfg->resource_pools.size() << " resource pools)";
  auto url = a.db.empty() ? cfg->db.connection_url() : a.db;

  pg_store_options so;
  so.url = url;
  so.lock = lock_policy::wait;
  so.on_lock_wait = [](const std::string& who) { log::info() << who; };
  auto store = pg_event_store::open(so);
  if (!store)
    return fail("cannot open the event log: " + render(store.error()));
  log::info() << "event log opened as the writer";
  recovery_report rep;
  auto st = recover(**store, true, &rep);
  if (!st)
    return fail("recovery failed: " + render(st.error()));
  log::info() << "recovered state at position " << st->position << " (snapshot "
              << rep.snapshot_position << ", " << rep.events_replayed
              << " events replayed)";
  auto defs = open_pg_model_def_store(url);
  if (!defs)
    return fail("cannot open the model definitions: " + render(defs.error()));
  // Agents always authenticate: without an agent_token in master.yaml the
  // cluster uses the one it generated on its first start (docs/security.md
  // says how an operator reads it).
  if (cfg->agent_token.empty()) {
    auto token = pg_cluster_secret(url, "agent_token", api::new_token);
    if (!token)
      return fail("cannot read the cluster's agent token: "
                  + render(token.error()));
    cfg->agent_token = *token;
    log::info() << "no agent_token in the config; agents must present the "
                   "cluster's generated token";
  }
  // The key of trials' session tokens: DET_SESSION_SECRET, else the
  // cluster's own, generated on its first start.
  std::string secret;
  if (auto env = std::getenv("DET_SESSION_SECRET"); env != nullptr && *env)
    secret = env;
  else if (auto s = pg_cluster_secret(url, "session_secret", api::new_token))
    secret = *s;
  else
    return fail("cannot read the cluster's session key: " + render(s.error()));

  caf::actor_system_config sys_cfg;
  caf::actor_system sys{sys_cfg};
  auto writer = spawn_event_writer(sys, **store, writer_mode::group_commit);
  master_options mo;
  mo.tick_interval = std::chrono::seconds{1};
  auto core_cfg = master::core_config_from(*cfg, hostname(), getpid());
  // Experiments the log shows created with their model definition still
  // pending (the previous master stopped in between): which are stored.
  core_cfg.model_definitions_stored.emplace();
  for (const auto& [id, e] : st->experiments)
    if (e.model_definition_pending && !state::is_terminal(e.status)
        && (*defs)->get(id))
      core_cfg.model_definitions_stored->insert(id);
  auto cluster_id = core_cfg.cluster_id;
  core_cfg.new_cluster_uuid = api::new_uuid();
  core_cfg.master_uuid = api::new_uuid();
  // /api/v1/master's clusterId: the log's UUID (made by its first master).
  auto cluster_uuid =
      st->cluster_uuid.empty() ? core_cfg.new_cluster_uuid : st->cluster_uuid;
  auto master_uuid = core_cfg.master_uuid;
  auto auth = std::make_shared<api::auth_directory>();
  auth->load(*st);
  // The read model starts from the recovered state and follows the log
  // as the master makes events durable (read/read_model.hpp).
  read::read_options ro;
  if (auto n = std::getenv("DET_READ_REPLICAS"); n != nullptr && *n != '\0')
    ro.replicas = static_cast<size_t>(std::max(1, std::atoi(n)));
  auto reads = api::follow_master(mo, *st, ro);
  auto history = api::follow_metrics(mo);
  // Webhooks sign with master.yaml's webhooks.signing_key, else the
  // cluster's own, generated on its first start (never logged).
  std::string webhook_key;
  if (auto w = cfg->effective.find("webhooks");
      w != cfg->effective.end() && w->is_object())
    if (auto k = w->find("signing_key"); k != w->end() && k->is_string())
      webhook_key = k->get<std::string>();
  if (webhook_key.empty()) {
    auto k = pg_cluster_secret(url, "webhook_signing_key", api::new_token);
    if (!k)
      return fail("cannot read the webhook signing key: " + render(k.error()));
    webhook_key = *k;
  }
  auto webhooks = api::follow_webhooks(mo, *st, webhook_key);
  auto log_policies = api::follow_log_policies(mo, *st);
  auto cloudwatch =
      master::start_cloudwatch(cfg->cloudwatch, cluster_id, reads);
  if (!cloudwatch)
    return fail(render(cloudwatch.error()));
  auto master_ref =
      spawn_master(sys, writer, std::move(*st), std::move(core_cfg), mo);
  // Fail-stop: a master that ends for any reason but our own shutdown (a
  // failed append above all) has state ahead of its log. It must not stay
  // up answering errors; exit at once and let the supervisor restart it,
  // and replay heals.
  master_ref->attach_functor([](const caf::error& reason) {
    if (!reason || reason == caf::exit_reason::user_shutdown)
      return;
    log::error() << "the master stopped: " << render(reason)
                 << "; exiting so that a restart replays the log";
    std::_Exit(70);
  });

  auto tokens = std::make_shared<const api::session_tokens>(secret);
  auto logs = std::make_shared<api::trial_logs>(1000);
  auto scheme = cfg->tls.enabled() ? "https" : "http";
  auto local_url =
      std::string{scheme} + "://127.0.0.1:" + std::to_string(cfg->port);

  auto ctx = std::make_shared<api::api_context>();
  ctx->master = master_ref;
  ctx->reads = reads;
  ctx->history = history;
  ctx->bridge = api::spawn_api_bridge(sys);
  ctx->model_defs = spawn_model_def_actor(sys, std::move(*defs));
  ctx->logs = logs;
  ctx->tokens = tokens;
  ctx->auth = auth;
  ctx->config = std::make_shared<conf::master_config>(*cfg);
  ctx->experiment_defaults = conf::experiment_defaults_from(*cfg);
  for (const auto& pool : cfg->resource_pools)
    if (auto cap = conf::max_capacity(pool))
      ctx->pool_capacities.emplace(pool.pool_name, *cap);
  ctx->cluster_id = cluster_uuid;
  ctx->master_id = master_uuid;
  // Upstream's clusterName: the configured cluster_name, "" when unset.
  ctx->cluster_name = cfg->cluster_name;
  ctx->db_url = url;
  ctx->webhooks = webhooks;
  // Record commands the runtimes decide to send (no answer awaited).
  auto to_master = [m = master_ref](std::string op, nlohmann::json args) {
    caf::anon_send(m, records_atom::value, std::move(op), args.dump(),
                   std::string{});
  };
  webhooks->set_command_sink(to_master);
  log_policies->set_command_sink(to_master);
  logs->set_observer(
      [webhooks, log_policies](int64_t trial, const std::string& agent,
                               const std::vector<std::string>& lines) {
        webhooks->scan_log(trial, agent, lines);
        log_policies->scan_log(trial, agent, lines);
      });
  webhooks->start();

  auto ws_ctx = std::make_shared<api::agent_ws_context>();
  ws_ctx->sys = &sys;
  ws_ctx->master = master_ref;
  ws_ctx->logs = logs;
  ws_ctx->tokens = tokens;
  ws_ctx->start = {local_url, master::checkpoint_dir(*cfg), cluster_id};
  ws_ctx->agent_token = cfg->agent_token;
  ws_ctx->heartbeat_interval = cfg->agent_heartbeat_interval;
  ws_ctx->missed_heartbeats = static_cast<int>(cfg->agent_missed_heartbeats);

  if (auto err =
          api::ensure_default_users(sys, *ctx, cfg->initial_user_password);
      !err.empty()) {
    caf::anon_send_exit(master_ref, caf::exit_reason::user_shutdown);
    return fail(err);
  }
  // Under kubernetes the agent routes show the nodes (bound once the
  // resource manager has started, below).
  std::shared_ptr<master::node_agents_handle> k8s_nodes;
  if (cfg->resource_manager_type == "kubernetes") {
    ctx->nodes = k8s_nodes = std::make_shared<master::node_agents_handle>();
    ctx->check_namespace = master::namespace_checker(cfg->kubernetes);
  }
  http::router routes;
  // det experiment delete-tb-files: blocking deletions on a thread of
  // their own.
  auto tb_calls = std::make_shared<aws::async_executor>(1, 256);
  ctx->delete_tensorboard_files =
      [tb_calls, cluster_id](int64_t id, nlohmann::json storage,
                             std::function<void(std::string)> done) {
        tb_calls->run<bool>(
            [id, storage, cluster_id]() -> caf::expected<bool> {
              if (auto err = delete_tensorboard_files(storage, cluster_id, id))
                return err;
              return true;
            },
            [done](caf::expected<bool> r) {
              done(r ? std::string{} : render(r.error()));
            });
      };
  api::add_master_routes(routes, ctx);
  {
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    auto dir = a.webui_dir.empty() ? api::default_webui_dir(exe) : a.webui_dir;
    if (dir.empty()) {
      log::warn() << "WebUI: no built bundle found (make builds it); "
                     "GET /det/ answers 404";
    } else if (auto bundle = api::webui_bundle::load(dir)) {
      log::info() << "WebUI: " << bundle->file_count() << " files from " << dir;
      api::add_webui_routes(routes, std::make_shared<const api::webui_bundle>(
                                        std::move(*bundle)));
    } else {
      caf::anon_send_exit(master_ref, caf::exit_reason::user_shutdown);
      return fail(render(bundle.error()));
    }
  }
  http::server_config sc;
  sc.address = a.listen;
  sc.port = cfg->port;
  sc.threads = 2;
  // Missed heartbeats, not the socket's idle timer, end a silent agent.
  sc.ws_idle_timeout = std::max<std::chrono::milliseconds>(
      sc.ws_idle_timeout,
      2 * cfg->agent_heartbeat_interval * cfg->agent_missed_heartbeats);
  // Room for the largest model directory, base64-encoded in JSON.
  auto model_bytes = static_cast<size_t>(cfg->max_model_definition_bytes);
  sc.body_limit =
      api::request_body_limit("POST", "/api/v1/experiments", true, model_bytes);
  sc.body_limit_for = [model_bytes](std::string_view method,
                                    std::string_view path, bool authorized) {
    return api::request_body_limit(method, path, authorized, model_bytes);
  };
  if (cfg->tls.enabled())
    sc.tls = http::tls_config{cfg->tls.cert, cfg->tls.key};
  http::http_server server{sc, std::move(routes)};
  server.add_websocket("/agents/ws", api::agent_ws_handler(ws_ctx),
                       api::agent_ws_authorizer(ws_ctx));
  auto port = server.start();
  if (!port) {
    caf::anon_send_exit(master_ref, caf::exit_reason::user_shutdown);
    return fail("cannot serve on " + a.listen + ":" + std::to_string(cfg->port)
                + ": " + render(port.error()));
  }
  log::info() << "serving " << scheme << " on " << a.listen << ":" << *port;

  std::shared_ptr<master::kubernetes_rm> k8s_rm;
  if (cfg->resource_manager_type == "kubernetes") {
    master::kubernetes_rm_options ko;
    ko.sys = &sys;
    ko.master = master_ref;
    ko.logs = logs;
    ko.tokens = tokens;
    ko.start = {cfg->kubernetes.task_master_url(*port),
                master::checkpoint_dir(*cfg), cluster_id};
    ko.cluster_id = cluster_id;
    ko.nodes = k8s_nodes;
    auto rm = master::start_kubernetes_rm(*cfg, ko);
    if (!rm) {
      server.stop(std::chrono::seconds{2});
      caf::anon_send_exit(master_ref, caf::exit_reason::user_shutdown);
      return fail(render(rm.error()));
    }
    k8s_rm = *rm;
  }
  std::vector<caf::actor> provisioners;
  auto bin_dir = std::filesystem::path{argv[0]}.parent_path().string();
  // The cluster's identity on a shared host (local pools' folders): made
  // once, kept in its database, so two clusters with one cluster id on one
  // host still never take each other's folders.
  std::string host_owner;
  for (const auto& rp : cfg->resource_pools) {
    if (rp.provider.type != conf::provider_type::local || !host_owner.empty())
      continue;
    auto owner = pg_cluster_secret(url, "host_owner", api::new_token);
    if (!owner) {
      server.stop(std::chrono::seconds{2});
      caf::anon_send_exit(master_ref, caf::exit_reason::user_shutdown);
      return fail("cannot read the cluster's host owner id: "
                  + render(owner.error()));
    }
    host_owner = *owner;
  }
  for (const auto& rp : cfg->resource_pools) {
    if (rp.provider.type != conf::provider_type::local)
      continue;
    provision::local_provider_options lo;
    lo.local = rp.provider.local;
    lo.pool = rp.pool_name;
    lo.master_url =
        std::string{scheme} + "://127.0.0.1:" + std::to_string(*port);
    lo.agent_token = cfg->agent_token;
    lo.bin_dir = bin_dir;
    lo.cluster_id = cluster_id;
    lo.owner = host_owner;
    provisioner_options po;
    po.pool = rp.pool_name;
    po.cluster_id = cluster_id;
    po.slots_per_instance = rp.provider.slots_per_instance();
    provisioners.push_back(spawn_provisioner(
        sys, master_ref, std::make_shared<provision::local_provider>(lo), po));
    log::info() << "local provisioner for pool " << rp.pool_name << " started";
  }
  // Checkpoint GC: deletions (S3 calls, folder removal) block, so they run
  // on a thread of their own, never on an actor's.
  auto gc_calls = std::make_shared<aws::async_executor>(1, 4096);
  checkpoint_gc_options gco;
  if (auto ms = std::getenv("DET_CHECKPOINT_GC_INTERVAL_MS");
      ms != nullptr && *ms != '\0')
    gco.tick_interval = std::chrono::milliseconds{std::max(50, std::atoi(ms))};
  gco.run = [gc_calls, del = make_checkpoint_deleter()](
                checkpoint_deletion d, std::function<void(caf::error)> done) {
    gc_calls->run<bool>(
        [del, d]() -> caf::expected<bool> {
          if (auto err = del(d))
            return err;
          return true;
        },
        [done](caf::expected<bool> r) { done(r ? caf::error{} : r.error()); });
  };
  gco.remove_files =
      [gc_calls, rm = make_checkpoint_file_remover()](
          checkpoint_file_removal r,
          std::function<void(caf::expected<nlohmann::json>)> done) {
        gc_calls->run<nlohmann::json>([rm, r] { return rm(r); },
                                      std::move(done));
      };
  gco.expire_logs = [logs](std::vector<int64_t> ids) { logs->erase(ids); };
  auto gc_ref = spawn_checkpoint_gc(sys, master_ref, std::move(gco));

  std::shared_ptr<aws::async_executor> aws_calls;
  for (const auto& rp : cfg->resource_pools) {
    if (rp.provider.type != conf::provider_type::aws)
      continue;
    if (!aws_calls)
      aws_calls = std::make_shared<aws::async_executor>(4);
    auto prov = provision::make_aws_provider(rp, cluster_id, cfg->agent_token,
                                             aws_calls);
    if (!prov) {
      log::error() << "pool " << rp.pool_name << ": " << render(prov.error());
      continue;
    }
    provisioner_options po;
    po.pool = rp.pool_name;
    po.cluster_id = cluster_id;
    po.slots_per_instance = rp.provider.slots_per_instance();
    provision::tune_from_env(po);
    provisioners.push_back(spawn_provisioner(sys, master_ref, *prov, po));
    log::info() << "aws provisioner for pool " << rp.pool_name
                << " started (instance type " << rp.provider.aws.instance_type
                << (rp.provider.aws.spot ? ", spot" : "") << ")";
  }

  int sig = 0;
  sigwait(&stop_signals, &sig);
  log::info() << (sig == SIGINT ? "SIGINT" : "SIGTERM") << ", shutting down";
  server.stop(std::chrono::seconds{2});
  for (auto& p : provisioners)
    caf::anon_send_exit(p, caf::exit_reason::user_shutdown);
  master::stop_kubernetes_rm(k8s_rm);
  // The API's handle is the node watch's last owner: unbound, the watch
  // stops and joins its threads now, while the actor system still runs
  // (its flusher may be in a request to a pool's agent). Left bound, the
  // actor system's end waited on it until a supervisor's SIGKILL.
  if (k8s_nodes)
    k8s_nodes->bind(nullptr);
  caf::anon_send_exit(gc_ref, caf::exit_reason::user_shutdown);
  gc_calls->shutdown();
  if (aws_calls)
    aws_calls->shutdown();
  webhooks->stop();
  caf::anon_send_exit(ctx->bridge, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(ctx->model_defs, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(master_ref, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(writer, caf::exit_reason::user_shutdown);
  ctx.reset();
  ws_ctx.reset();
  log::info() << "stopped";
  if (*cloudwatch)
    (*cloudwatch)->stop();
  return 0;
}
