#include "conf/master_config.hpp"

#include "conf/duration.hpp"
#include "conf/reader.hpp"
#include "conf/yaml_tree.hpp"

#include <cctype>
#include <optional>
#include <set>

namespace det::conf {

using nlohmann::json;
using namespace std::chrono_literals;

const resource_pool_config*
master_config::find_pool(std::string_view name) const {
  for (const auto& p : resource_pools)
    if (p.pool_name == name)
      return &p;
  return nullptr;
}

namespace {

std::string percent_encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// Moves the older documented and upstream's alternative layouts into one shape
// before validation: resource_manager holds the scheduler and default pools,
// and resource_pools holds every provider. True when a top-level
// `provisioner:` became pool "default", whose errors then still name the
// fields as written (provisioner.security_group, not resource_pools[0]...).
bool normalize(json& root, diagnostics& diag) {
  bool moved_provisioner = false;
  for (const char* k : {"scheduler", "default_compute_resource_pool",
                        "default_aux_resource_pool"}) {
    auto i = root.find(k);
    if (i == root.end())
      continue;
    auto& rm = root["resource_manager"];
    if (rm.is_null())
      rm = json::object();
    if (rm.is_object()) {
      if (rm.contains(k) && rm[k] != *i)
        diag.error(k, std::string{"conflicts with resource_manager."} + k);
      else
        rm[k] = *i;
    }
    root.erase(i);
  }
  auto prov = root.find("provisioner");
  if (prov != root.end()) {
    if (root.contains("resource_pools")) {
      diag.error("provisioner", "not allowed together with resource_pools: "
                                "move it into a pool as `provider:`");
    } else if (!prov->is_null()) {
      root["resource_pools"] =
          json::array({json{{"pool_name", "default"}, {"provider", *prov}}});
      moved_provisioner = true;
    }
    root.erase(prov);
  }
  return moved_provisioner;
}

void read_scheduler(object_reader& r, scheduler_config& out) {
  if (auto t = r.opt_str("type"); t && *t == "round_robin") {
    r.fail("type", "the round_robin scheduler is not supported; use priority "
                   "with equal priorities");
    return;
  }
  out.type = r.choice("type", out.type, {"priority", "fair_share"});
  out.preemption = r.boolean("preemption", out.preemption);
  if (out.type == "fair_share") {
    out.preemption = true;
    if (r.fill_defaults())
      r.node()["preemption"] = true;
  }
  out.default_priority =
      r.integer("default_priority", out.default_priority, 1, 99);
  out.fitting_policy =
      r.choice("fitting_policy", out.fitting_policy, {"best", "worst"});
  out.allow_heterogeneous_fits =
      r.boolean("allow_heterogeneous_fits", out.allow_heterogeneous_fits);
  r.finish();
}

void read_db(object_reader& r, db_config& out) {
  if (auto url = r.opt_str("url")) {
    out.url = *url;
    if (url->rfind("postgres://", 0) != 0
        && url->rfind("postgresql://", 0) != 0)
      r.fail("url", "expected a postgres:// or postgresql:// URL");
    for (const char* k : {"host", "port", "user", "password", "name"})
      if (r.has(k)) {
        r.allow({k});
        r.fail(k, "not allowed together with db.url");
      }
    r.allow({"ssl_mode", "ssl_root_cert"});
    r.finish();
    return;
  }
  out.host = r.str("host", out.host);
  out.port = static_cast<uint16_t>(r.integer("port", out.port, 1, 65535));
  out.user = r.str("user", out.user);
  out.password = r.str("password", "");
  out.name = r.str("name", out.name);
  out.ssl_mode = r.choice(
      "ssl_mode", out.ssl_mode,
      {"disable", "allow", "prefer", "require", "verify-ca", "verify-full"});
  out.ssl_root_cert = r.str("ssl_root_cert", "");
  r.finish();
}

void read_pool(object_reader& r, resource_pool_config& out,
               const master_config& cfg, const json& cluster_scheduler,
               const provider_context& pctx, const std::string& provider_path) {
  out.pool_name = r.required_str("pool_name");
  out.description = r.str("description", "");
  {
    // A pool's scheduler starts from the cluster's and overrides it.
    json merged = cluster_scheduler;
    if (auto* s = r.raw("scheduler"); s && s->is_object())
      for (auto& kv : s->items())
        merged[kv.key()] = kv.value();
    else if (s)
      merged = *s;
    if (r.fill_defaults())
      r.node()["scheduler"] = merged;
    object_reader sr{r.fill_defaults() ? r.node()["scheduler"] : merged,
                     r.path_of("scheduler"), r.diag(), r.fill_defaults()};
    read_scheduler(sr, out.scheduler);
  }
  r.alias("provisioner", "provider");
  if (r.has("provider") && !provider_path.empty()) {
    r.allow({"provider"});
    object_reader pr{r.node()["provider"], provider_path, r.diag()};
    read_provider(pr, out.provider, pctx);
  } else if (r.has("provider")) {
    auto pr = r.child("provider");
    read_provider(pr, out.provider, pctx);
  } else {
    r.allow({"provider"});
  }
  out.max_aux_containers_per_agent =
      r.integer("max_aux_containers_per_agent", 100, 0);
  out.agent_reconnect_wait =
      r.dur("agent_reconnect_wait", cfg.agent_reconnect_wait,
            format_duration(cfg.agent_reconnect_wait).c_str(), true);
  r.allow({"agent_reattach_enabled", "task_container_defaults",
           "kubernetes_namespace"});
  r.finish();
}

} // namespace

std::string db_config::connection_url() const {
  if (!url.empty())
    return url;
  std::string out = "postgresql://" + percent_encode(user);
  if (!password.empty())
    out += ":" + percent_encode(password);
  out += "@" + host + ":" + std::to_string(port) + "/" + percent_encode(name);
  out += "?sslmode=" + ssl_mode;
  if (!ssl_root_cert.empty())
    out += "&sslrootcert=" + percent_encode(ssl_root_cert);
  return out;
}

caf::expected<master_config> parse_master_config(std::string_view text) {
  auto tree = parse_tree(text);
  if (!tree)
    return std::move(tree.error());
  diagnostics diag;
  master_config cfg;
  json& root = *tree;
  if (!root.is_object())
    return make_error(errc::invalid_argument,
                      "master.yaml: expected a mapping at the top, got "
                          + describe(root));
  bool top_level_provisioner = normalize(root, diag);
  object_reader r{root, "", diag};

  {
    auto sec = r.child("security");
    auto tls = sec.child("tls");
    cfg.tls.cert = tls.str("cert", "");
    cfg.tls.key = tls.str("key", "");
    if (cfg.tls.cert.empty() != cfg.tls.key.empty())
      tls.fail_here("cert and key go together");
    tls.finish();
    cfg.initial_user_password = sec.str("initial_user_password", "");
    sec.allow({"default_task", "authz", "ssh", "token", "reserved_ports"});
    sec.finish();
  }
  cfg.port = static_cast<uint16_t>(
      r.integer("port", cfg.tls.enabled() ? 8443 : 8080, 1, 65535));
  {
    auto db = r.child("db");
    read_db(db, cfg.db);
  }
  cfg.cluster_id = r.str("cluster_id", "");
  cfg.cluster_name = r.str("cluster_name", "");
  cfg.agent_token = r.str("agent_token", "");
  cfg.max_model_definition_bytes =
      r.integer("max_model_definition_bytes", cfg.max_model_definition_bytes, 1,
                int64_t{1} << 30);
  cfg.agent_reconnect_wait = r.dur("agent_reconnect_wait", 25s, "25s", true);
  cfg.agent_heartbeat_interval =
      r.dur("agent_heartbeat_interval", 10s, "10s", true);
  cfg.agent_missed_heartbeats =
      r.integer("agent_missed_heartbeats", 3, 1, 1000);
  {
    if (!r.has("checkpoint_storage") && r.fill_defaults())
      root["checkpoint_storage"] = default_checkpoint_storage();
    auto cs = r.child("checkpoint_storage");
    read_checkpoint_storage(cs, cfg.checkpoint_storage);
  }
  {
    auto log = r.child("log");
    cfg.log.level = log.choice("level", "info",
                               {"trace", "debug", "info", "warn", "warning",
                                "error", "critical", "fatal", "panic"});
    cfg.log.color = log.boolean("color", true);
    log.finish();
  }
  {
    auto cw = r.child("cloudwatch");
    read_cloudwatch(cw, cfg.cloudwatch);
  }
  cfg.launch_error = r.boolean("launch_error", true);
  cfg.notebook_timeout_s =
      r.opt_integer("notebook_timeout", 1, int64_t{1} << 31).value_or(0);
  cfg.tensorboard_timeout_s =
      r.opt_integer("tensorboard_timeout", 1, int64_t{1} << 31).value_or(300);

  json cluster_scheduler;
  std::optional<std::string> compute_given;
  std::optional<std::string> aux_given;
  {
    auto rm = r.child("resource_manager");
    cfg.resource_manager_type =
        rm.choice("type", "agent", {"agent", "kubernetes"});
    if (cfg.resource_manager_type == "kubernetes")
      read_kubernetes_rm(rm, cfg.kubernetes);
    auto sr = rm.child("scheduler");
    read_scheduler(sr, cfg.scheduler);
    cluster_scheduler = sr.node();
    compute_given = rm.opt_str("default_compute_resource_pool");
    aux_given = rm.opt_str("default_aux_resource_pool");
    rm.allow(
        {"require_authentication", "client_ca", "no_default_resource_pools"});
    rm.finish();
  }

  provider_context pctx{cfg.cluster_id, cfg.port, cfg.tls.enabled()};
  if (!r.has("resource_pools"))
    root["resource_pools"] = json::array({json{{"pool_name", "default"}}});
  auto* pools = r.raw("resource_pools");
  if (!pools->is_array()) {
    r.fail("resource_pools",
           "expected a list of pools, got " + describe(*pools));
  } else if (pools->empty()) {
    r.fail("resource_pools", "must name at least one pool");
  } else {
    std::set<std::string> names;
    // task_container_defaults.environment_variables: a pool's own block
    // replaces the master's.
    auto env_of = [&diag](const json& node, const std::string& path) {
      auto tcd =
          node.is_object() ? node.find("task_container_defaults") : node.end();
      if (tcd == node.end() || !tcd->is_object())
        return std::optional<env_by_slot_type>{};
      auto vars = tcd->find("environment_variables");
      return std::optional<env_by_slot_type>{read_env_vars(
          vars == tcd->end() ? json{} : *vars,
          join_path(path, "task_container_defaults.environment_variables"),
          diag)};
    };
    auto master_env = env_of(root, "").value_or(env_by_slot_type{});
    for (size_t i = 0; i < pools->size(); ++i) {
      object_reader pr{(*pools)[i], index_path("resource_pools", i), diag};
      resource_pool_config pool;
      read_pool(pr, pool, cfg, cluster_scheduler, pctx,
                top_level_provisioner ? "provisioner" : "");
      pool.task_env = env_of(pr.node(), index_path("resource_pools", i))
                          .value_or(master_env);
      if (cfg.resource_manager_type == "kubernetes") {
        if (pool.provider.type != provider_type::none)
          pr.fail("provider", "not allowed with resource_manager.type "
                              "kubernetes: Kubernetes runs the pods");
        auto* tcd = pr.node().is_object()
                            && pr.node().contains("task_container_defaults")
                        ? &pr.node()["task_container_defaults"]
                    : root.contains("task_container_defaults")
                        ? &root["task_container_defaults"]
                        : nullptr;
        pool.pod_spec =
            pod_spec_of(tcd, cfg.kubernetes.slot_type,
                        pr.path_of("task_container_defaults"), diag);
      }
      if (!pool.pool_name.empty() && !names.insert(pool.pool_name).second)
        pr.fail("pool_name", "duplicate pool name \"" + pool.pool_name + "\"");
      cfg.resource_pools.push_back(std::move(pool));
    }
    // Unnamed defaults: the pool called "default", else the first pool.
    std::string fallback = names.count("default") || cfg.resource_pools.empty()
                               ? "default"
                               : cfg.resource_pools.front().pool_name;
    cfg.default_compute_resource_pool = compute_given.value_or(fallback);
    cfg.default_aux_resource_pool = aux_given.value_or(fallback);
    // Filled in only where it is an object: anything else was reported
    // (and writing a key into it would throw).
    auto& rm = root["resource_manager"];
    if (rm.is_null())
      rm = nlohmann::json::object();
    if (rm.is_object()) {
      rm["default_compute_resource_pool"] = cfg.default_compute_resource_pool;
      rm["default_aux_resource_pool"] = cfg.default_aux_resource_pool;
    }
    for (auto [key, name] : {std::pair{"default_compute_resource_pool",
                                       &cfg.default_compute_resource_pool},
                             std::pair{"default_aux_resource_pool",
                                       &cfg.default_aux_resource_pool}})
      if (diag.empty() && !names.count(*name))
        diag.error(std::string{"resource_manager."} + key,
                   "no resource pool named \"" + *name + "\"");
  }

  // Upstream fields det-master accepts and keeps but does not act on.
  r.allow({"root",
           "telemetry",
           "task_container_defaults",
           "logging",
           "observability",
           "feature_switches",
           "webhooks",
           "tensorboard_timeout",
           "cache",
           "enable_cors",
           "integrations",
           "internal",
           "__internal",
           "scim",
           "saml",
           "oidc",
           "config_file",
           "cluster_id_file",
           "ui",
           "restricted_mode"});
  r.finish();
  if (!diag.empty())
    return diag.to_error();
  cfg.effective = std::move(root);
  return cfg;
}

caf::expected<master_config> load_master_config(const std::string& path) {
  auto text = read_text_file(path);
  if (!text)
    return std::move(text.error());
  auto cfg = parse_master_config(*text);
  if (!cfg)
    return make_error(errc::invalid_argument,
                      path + ": " + message_of(cfg.error()));
  return cfg;
}

} // namespace det::conf
