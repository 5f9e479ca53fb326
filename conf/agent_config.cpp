#include "conf/agent_config.hpp"

#include "conf/duration.hpp"
#include "conf/reader.hpp"
#include "conf/yaml_tree.hpp"

#include <cctype>

namespace det::conf {

using nlohmann::json;
using namespace std::chrono_literals;

caf::expected<agent_config> parse_agent_config(std::string_view text) {
  auto tree = parse_tree(text);
  if (!tree)
    return std::move(tree.error());
  json& root = *tree;
  if (!root.is_object())
    return make_error(errc::invalid_argument,
                      "agent.yaml: expected a mapping at the top, got "
                          + describe(root));
  diagnostics diag;
  agent_config cfg;
  object_reader r{root, "", diag};
  r.alias("artificial_slots", "slots");
  r.alias("agent_reconnect_attempts", "reconnect_attempts");
  r.alias("agent_reconnect_backoff", "reconnect_backoff");

  {
    auto sec = r.child("security");
    auto tls = sec.child("tls");
    cfg.tls.enabled = tls.boolean("enabled", false);
    cfg.tls.skip_verify = tls.boolean("skip_verify", false);
    cfg.tls.master_cert = tls.str("master_cert", "");
    cfg.tls.master_cert_name = tls.str("master_cert_name", "");
    cfg.tls.client_cert = tls.str("client_cert", "");
    cfg.tls.client_key = tls.str("client_key", "");
    if (cfg.tls.client_cert.empty() != cfg.tls.client_key.empty())
      tls.fail_here("client_cert and client_key go together");
    tls.finish();
    sec.finish();
  }
  std::string scheme = cfg.tls.enabled ? "https" : "http";
  uint16_t default_port = cfg.tls.enabled ? 8443 : 8080;
  if (auto url = r.opt_str("master_url")) {
    for (const char* k : {"master_host", "master_port"})
      if (r.has(k)) {
        r.allow({k});
        r.fail(k, "not allowed together with master_url");
      }
    if (auto a = parse_master_url(*url, scheme, default_port))
      cfg.master = *a;
    else
      r.fail("master_url", message_of(a.error()));
  } else {
    cfg.master.scheme = scheme;
    cfg.master.host = r.str("master_host", "localhost");
    cfg.master.port =
        static_cast<uint16_t>(r.integer("master_port", default_port, 1, 65535));
    if (cfg.master.host.empty())
      r.fail("master_host", "must not be empty");
  }
  if (cfg.master.scheme == "https")
    cfg.tls.enabled = true;
  cfg.agent_id = r.str("agent_id", "");
  cfg.resource_pool = r.str("resource_pool", "");
  cfg.slots = r.integer("slots", 0, 0, 4096);
  cfg.slot_type = r.choice("slot_type", "auto",
                           {"auto", "gpu", "cuda", "rocm", "cpu", "none"});
  if (cfg.slot_type == "gpu")
    cfg.slot_type = "cuda";
  cfg.visible_gpus = r.str("visible_gpus", "");
  cfg.token = r.str("token", "");
  cfg.work_dir = r.str("work_dir", cfg.work_dir);
  if (cfg.work_dir.empty())
    r.fail("work_dir", "must not be empty");
  cfg.reconnect_attempts = r.integer("reconnect_attempts", 5, 0);
  cfg.reconnect_backoff = r.dur("reconnect_backoff", 5s, "5s", true);
  cfg.missed_heartbeats = r.integer("missed_heartbeats", 3, 1, 1000);
  {
    auto hooks = r.child("hooks");
    cfg.on_connection_lost = hooks.str_list("on_connection_lost");
    hooks.finish();
  }
  {
    auto idle = r.child("idle_shutdown");
    cfg.idle_shutdown_after =
        std::chrono::duration_cast<std::chrono::milliseconds>(
            idle.dur("after", 0s, "0s"));
    cfg.idle_shutdown_grace =
        std::chrono::duration_cast<std::chrono::milliseconds>(
            idle.dur("grace", 60s, "60s", true));
    cfg.idle_shutdown_unreachable =
        std::chrono::duration_cast<std::chrono::milliseconds>(
            idle.dur("unreachable", 0s, "0s"));
    cfg.idle_shutdown_exit_tags = idle.boolean("exit_tags", false);
    idle.finish();
  }
  {
    auto log = r.child("log");
    cfg.log_level = log.choice("level", "info",
                               {"trace", "debug", "info", "warn", "warning",
                                "error", "critical", "fatal", "panic"});
    log.allow({"color"});
    log.finish();
  }
  {
    auto cw = r.child("cloudwatch");
    read_cloudwatch(cw, cfg.cloudwatch);
  }
  // Upstream agent.yaml fields det-agent accepts but does not act on.
  r.allow({"label", "container_master_host", "container_master_port", "fluent",
           "debug", "api_enabled", "bind_ip", "bind_port", "http_proxy",
           "https_proxy", "ftp_proxy", "no_proxy", "container_runtime",
           "image_root", "agent_reattach_enabled"});
  r.finish();
  if (!diag.empty())
    return diag.to_error();
  cfg.effective = std::move(root);
  return cfg;
}

caf::expected<agent_config> load_agent_config(const std::string& path) {
  auto text = read_text_file(path);
  if (!text)
    return std::move(text.error());
  auto cfg = parse_agent_config(*text);
  if (!cfg)
    return make_error(errc::invalid_argument,
                      path + ": " + message_of(cfg.error()));
  return cfg;
}

caf::expected<agent_config> apply_overrides(agent_config cfg,
                                            const agent_overrides& o,
                                            std::string_view source) {
  auto bad = [&](const char* field, const std::string& why) {
    return make_error(errc::invalid_argument, std::string{field} + " (from "
                                                  + std::string{source}
                                                  + "): " + why);
  };
  if (o.master_url) {
    auto a = parse_master_url(*o.master_url, cfg.tls.enabled ? "https" : "http",
                              cfg.tls.enabled ? 8443 : 8080);
    if (!a)
      return bad("master_url", message_of(a.error()));
    cfg.master = *a;
    if (cfg.master.scheme == "https")
      cfg.tls.enabled = true;
    cfg.effective["master_url"] = cfg.master.to_url();
    cfg.effective.erase("master_host");
    cfg.effective.erase("master_port");
  }
  if (o.slots) {
    if (*o.slots < 0 || *o.slots > 4096)
      return bad("slots", "must be between 0 and 4096");
    cfg.slots = *o.slots;
    cfg.effective["slots"] = cfg.slots;
  }
  auto set = [&](const std::optional<std::string>& v, std::string& field,
                 const char* key) {
    if (v) {
      field = *v;
      cfg.effective[key] = *v;
    }
  };
  set(o.resource_pool, cfg.resource_pool, "resource_pool");
  set(o.token, cfg.token, "token");
  set(o.agent_id, cfg.agent_id, "agent_id");
  if (o.work_dir && o.work_dir->empty())
    return bad("work_dir", "must not be empty");
  set(o.work_dir, cfg.work_dir, "work_dir");
  if (o.cloudwatch_log_group) {
    // The pool's provider log_group: the master's launch turns shipping on.
    cfg.cloudwatch.enabled = true;
    cfg.cloudwatch.log_group = *o.cloudwatch_log_group;
    cfg.effective["cloudwatch"]["enabled"] = true;
    cfg.effective["cloudwatch"]["log_group"] = *o.cloudwatch_log_group;
  }
  if (o.cluster_id) {
    cfg.cloudwatch.cluster_id = *o.cluster_id;
    cfg.effective["cloudwatch"]["cluster_id"] = *o.cluster_id;
  }
  struct idle_flag {
    const char* name;
    const std::optional<std::string>& text;
    std::chrono::milliseconds& out;
  };
  for (const auto& f :
       {idle_flag{"after", o.idle_shutdown_after, cfg.idle_shutdown_after},
        idle_flag{"unreachable", o.idle_shutdown_unreachable,
                  cfg.idle_shutdown_unreachable}}) {
    if (!f.text)
      continue;
    auto field = std::string{"idle_shutdown."} + f.name;
    auto d = parse_duration(*f.text);
    if (!d)
      return bad(field.c_str(), message_of(d.error()));
    if (d->count() < 0)
      return bad(field.c_str(), "must not be negative");
    f.out = *d;
    cfg.effective["idle_shutdown"][f.name] = format_duration(*d);
  }
  if (o.idle_shutdown_exit_tags) {
    cfg.idle_shutdown_exit_tags = true;
    cfg.effective["idle_shutdown"]["exit_tags"] = true;
  }
  return cfg;
}

agent_overrides
overrides_from_env(const std::function<const char*(const char*)>& getenv) {
  agent_overrides o;
  auto get = [&](const char* name) -> std::optional<std::string> {
    const char* v = getenv(name);
    if (v == nullptr || *v == '\0')
      return std::nullopt;
    return std::string{v};
  };
  o.master_url = get("DET_MASTER");
  o.token = get("DET_AGENT_TOKEN");
  o.agent_id = get("DET_AGENT_ID");
  o.resource_pool = get("DET_RESOURCE_POOL");
  o.cloudwatch_log_group = get("DET_CLOUDWATCH_LOG_GROUP");
  o.cluster_id = get("DET_CLUSTER_ID");
  if (auto s = get("DET_SLOTS")) {
    bool digits = s->size() <= 6;
    for (char c : *s)
      digits = digits && std::isdigit(static_cast<unsigned char>(c));
    o.slots = digits ? std::stoll(*s) : -1;
  }
  return o;
}

} // namespace det::conf
