#include "api/task_launch.hpp"

#include "conf/capacity.hpp"
#include "conf/duration.hpp"
#include "conf/master_config.hpp"
#include "conf/proxy_ports.hpp"
#include "http/grpc_error.hpp"
#include "messages/errc.hpp"
#include "util/text.hpp"

namespace det::api {

using json = nlohmann::json;
using http::grpc_code;
using http::responder;

namespace {

/// A sanity bound: the pool's agents bound a task's slots (below).
constexpr int64_t max_task_slots = int64_t{1} << 20;

const std::set<std::string> config_keys{"description",  "bind_mounts",
                                        "environment",  "resources",
                                        "entrypoint",   "tensorboard_args",
                                        "idle_timeout", "notebook_idle_type",
                                        "work_dir",     "debug",
                                        "pbs",          "slurm"};

/// A name for a description, from the task id (upstream draws pet names).
std::string pet_name(const std::string& id) {
  static const char* const first[] = {
      "able",  "brave", "calm",  "eager", "fair", "glad", "keen",  "lucid",
      "merry", "noble", "proud", "quick", "sage", "tidy", "vivid", "witty"};
  static const char* const second[] = {
      "ant",  "bee", "cat",  "doe",  "eel",  "fox",  "gnu", "hen",
      "ibis", "jay", "kiwi", "lynx", "mole", "newt", "owl", "pika"};
  auto hex = [&id](size_t i) {
    auto c = i < id.size() ? id[i] : '0';
    return static_cast<size_t>(c >= 'a' ? c - 'a' + 10 : c - '0') % 16;
  };
  return std::string{first[hex(0)]} + "-" + second[hex(1)];
}

/// Why `ep` is no entrypoint (a string, or a list of strings), or "".
std::string entrypoint_problem(const json& ep) {
  if (ep.is_null() || ep.is_string())
    return {};
  if (!ep.is_array())
    return "entrypoint: expected a string or a list of strings";
  for (const auto& w : ep)
    if (!w.is_string())
      return "entrypoint: expected a list of strings";
  return {};
}

/// Why `args` are no TensorBoard arguments a user may add, or "": a list
/// of strings, none of them one the launcher sets (where TensorBoard
/// listens stays behind the master's proxy).
std::string tensorboard_args_problem(const json& args) {
  if (args.is_null())
    return {};
  if (!args.is_array() || args.size() > 64)
    return "expected a list of at most 64 strings";
  for (const auto& a : args) {
    if (!a.is_string() || a.get<std::string>().size() > 1024)
      return "expected a list of strings";
    const auto& text = a.get_ref<const std::string&>();
    for (const char* owned :
         {"--host", "--bind_all", "--port", "--path_prefix", "--logdir"})
      if (text.rfind(owned, 0) == 0)
        return "'" + std::string{owned} + "' is the master's to set";
  }
  return {};
}

} // namespace

std::string normalize_image(json& environment) {
  auto i = environment.find("image");
  if (i == environment.end() || i->is_null())
    return {};
  if (i->is_string()) {
    auto name = i->get<std::string>();
    *i = json{{"cpu", name}, {"cuda", name}, {"rocm", name}};
  }
  if (!i->is_object())
    return "expected an image name or {cpu, cuda, rocm}";
  for (const auto& [k, v] : i->items())
    if ((k != "cpu" && k != "cuda" && k != "rocm") || !v.is_string()
        || util::fit_text(v.get<std::string>(), {1024, false, false})
               != v.get<std::string>())
      return "expected an image name or {cpu, cuda, rocm}";
  return {};
}

const std::set<std::string>& command_config_keys() {
  return config_keys;
}

/// The body of POST /api/v1/commands checked and the config filled in
/// (description, resources), or answers 400 naming the field.
std::optional<launch_args> command_launch(const ctx_ptr& ctx, const json& body,
                                          const std::string& id,
                                          const responder& res,
                                          const ntsc_kind& kind) {
  auto bad = [&res](const std::string& why) {
    res.send_error(grpc_code::invalid_argument, why);
    return std::nullopt;
  };
  for (const auto& [k, v] : body.items())
    if (k != "config" && k != "template_name" && k != "templateName"
        && k != "files" && k != "data" && k != "workspaceId" && k != "preview")
      return bad("unknown field '" + util::fit_text(k, {64, false, true})
                 + "' in the launch request");
  launch_args out;
  auto cfg = body.value("config", json::object());
  if (cfg.is_null())
    cfg = json::object();
  if (!cfg.is_object())
    return bad("config: expected an object");
  for (const auto& [k, v] : cfg.items())
    if (config_keys.count(k) == 0)
      return bad("config: unknown field '"
                 + util::fit_text(k, {64, false, true}) + "'");
  if (auto w = body.find("workspaceId"); w != body.end() && !w->is_null()) {
    if (!w->is_number_integer() || w->get<int64_t>() < 1)
      return bad("workspaceId: expected a positive integer");
    out.workspace_id = w->get<int64_t>();
  }
  auto ep = cfg.value("entrypoint", json());
  if (auto why = entrypoint_problem(ep); !why.empty())
    return bad("config." + why);
  if (ep.is_string())
    cfg["entrypoint"] = json::array({ep});
  if (kind.type != "COMMAND") // the master chooses what a service runs
    cfg.erase("entrypoint");
  if (auto why =
          tensorboard_args_problem(cfg.value("tensorboard_args", json()));
      !why.empty())
    return bad("config.tensorboard_args: " + why);
  if (auto env = cfg.find("environment"); env != cfg.end() && !env->is_null()) {
    if (!env->is_object())
      return bad("config.environment: expected an object");
    if (auto why = normalize_image(*env); !why.empty())
      return bad("config.environment.image: " + why);
    std::string why;
    if (!conf::read_proxy_ports(*env, why))
      return bad("config." + why);
  }
  auto desc = cfg.value("description", json());
  if (!desc.is_null() && !desc.is_string())
    return bad("config.description: expected a string");
  if (desc.is_null() || desc.get<std::string>().empty())
    cfg["description"] = kind.title + " (" + pet_name(id) + ")";
  if (auto why = util::text_problem(cfg["description"].get<std::string>(),
                                    {1024, false, false});
      !why.empty())
    return bad("config.description " + why);
  if (auto t = cfg.find("idle_timeout"); t != cfg.end() && !t->is_null()) {
    auto d = t->is_string()
                 ? conf::parse_duration(t->get<std::string>())
                 : caf::expected<std::chrono::milliseconds>{caf::make_error(
                     errc::invalid_argument, "expected a string")};
    if (!d)
      return bad("config.idle_timeout: " + render(d.error())
                 + " (a duration: \"30m\", \"1h\")");
    if (d->count() <= 0)
      return bad("config.idle_timeout: expected a duration above 0");
  }
  if (auto t = cfg.find("notebook_idle_type"); t != cfg.end() && !t->is_null())
    if (!t->is_string()
        || !std::set<std::string>{"kernels_or_terminals", "kernel_connections",
                                  "activity"}
                .count(t->get<std::string>()))
      return bad("config.notebook_idle_type: expected kernels_or_terminals, "
                 "kernel_connections or activity");
  auto default_idle = kind.type == "NOTEBOOK" ? ctx->config->notebook_timeout_s
                      : kind.type == "TENSORBOARD"
                          ? ctx->config->tensorboard_timeout_s
                          : 0;
  if (default_idle > 0 && cfg.value("idle_timeout", json()).is_null())
    cfg["idle_timeout"] = std::to_string(default_idle) + "s";
  auto resources = cfg.value("resources", json::object());
  if (resources.is_null())
    resources = json::object();
  if (!resources.is_object())
    return bad("config.resources: expected an object");
  // A TensorBoard holds no slot unless asked to.
  auto slots =
      resources.value("slots", json(kind.type == "TENSORBOARD" ? 0 : 1));
  if (!slots.is_number_integer() || slots.get<int64_t>() < 0
      || slots.get<int64_t>() > max_task_slots)
    return bad("config.resources.slots: expected a whole number from 0 to "
               + std::to_string(max_task_slots));
  out.slots = slots.get<int32_t>();
  auto prio = resources.value("priority", json());
  if (!prio.is_null()
      && (!prio.is_number_integer() || prio.get<int64_t>() < 1
          || prio.get<int64_t>() > 99))
    return bad("config.resources.priority: expected a whole number from 1 "
               "to 99");
  if (!prio.is_null())
    out.priority = prio.get<int32_t>();
  auto pool = resources.value("resource_pool", json());
  if (!pool.is_null() && !pool.is_string())
    return bad("config.resources.resource_pool: expected a string");
  out.pool =
      pool.is_string() && !pool.get<std::string>().empty()
          ? pool.get<std::string>()
          : (out.slots == 0 ? ctx->config->default_aux_resource_pool
                            : ctx->config->default_compute_resource_pool);
  if (auto why = util::text_problem(out.pool, {255, false, true}); !why.empty())
    return bad("config.resources.resource_pool " + why);
  // A task runs on one agent: more slots than any agent of its pool can
  // have is refused whatever launch_error says (as upstream).
  if (auto cap = ctx->pool_capacities.find(out.pool);
      out.slots > 0 && cap != ctx->pool_capacities.end()
      && conf::check_slots_fit(out.slots, true, cap->second))
    return bad("config.resources.slots: request unfulfillable, please try "
               "requesting less slots ("
               + std::to_string(out.slots)
               + " can never fit on one agent of resource pool \"" + out.pool
               + "\")");
  resources["slots"] = out.slots;
  resources["priority"] = out.priority;
  resources["resource_pool"] = out.pool;
  cfg["resources"] = resources;
  out.config = std::move(cfg);
  return out;
}

task_launch to_launch(const launch_args& a, const std::string& id,
                      const std::string& type, const std::string& owner) {
  task_launch t;
  t.task_id = id;
  t.task_type = type;
  t.owner = owner;
  if (auto d = a.config.find("description");
      d != a.config.end() && d->is_string())
    t.description = d->get<std::string>();
  t.config = a.config;
  t.pool = a.pool;
  t.slots = a.slots;
  t.priority = a.priority;
  t.workspace_id = a.workspace_id;
  if (a.tensorboard.is_object())
    t.tensorboard = a.tensorboard;
  return t;
}

} // namespace det::api
