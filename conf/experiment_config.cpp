#include "conf/experiment_config.hpp"

#include "conf/master_config.hpp"
#include "conf/proxy_ports.hpp"
#include "conf/reader.hpp"
#include "conf/yaml_tree.hpp"
#include "messages/json_fields.hpp"
#include "util/text.hpp"

#include <cctype>

namespace det::conf {

using nlohmann::json;

experiment_defaults experiment_defaults_from(const master_config& master) {
  experiment_defaults out;
  out.compute_pool = master.default_compute_resource_pool;
  out.aux_pool = master.default_aux_resource_pool;
  for (const auto& p : master.resource_pools) {
    out.pool_priorities[p.pool_name] = p.scheduler.default_priority;
    if (!p.task_env.empty())
      out.pool_env[p.pool_name] = p.task_env;
  }
  if (master.effective.contains("checkpoint_storage"))
    out.checkpoint_storage = master.effective["checkpoint_storage"];
  else
    out.checkpoint_storage = default_checkpoint_storage();
  return out;
}

namespace {

// "model_def:MyTrial": a Python module path, a colon, a class name.
bool looks_like_trial_class(const std::string& s) {
  auto colon = s.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == s.size()
      || s.find(':', colon + 1) != std::string::npos)
    return false;
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (i == colon)
      continue;
    if (!(std::isalnum(c) || c == '_' || c == '.'))
      return false;
  }
  return true;
}

void read_entrypoint(object_reader& r, entrypoint_config& out) {
  auto* v = r.raw("entrypoint");
  if (v == nullptr) {
    r.fail("entrypoint", "required (a command such as \"python3 train.py\", "
                         "a list of arguments, or \"module:TrialClass\")");
    return;
  }
  if (v->is_string()) {
    out.command = v->get<std::string>();
    if (out.command.find_first_not_of(" \t\n") == std::string::npos)
      r.fail("entrypoint", "must not be empty");
    out.type = looks_like_trial_class(out.command)
                   ? entrypoint_config::kind::trial_class
                   : entrypoint_config::kind::shell;
    return;
  }
  if (v->is_array()) {
    out.type = entrypoint_config::kind::argv;
    if (v->empty())
      r.fail("entrypoint", "must not be an empty list");
    for (size_t i = 0; i < v->size(); ++i) {
      if ((*v)[i].is_string())
        out.argv.push_back((*v)[i].get<std::string>());
      else
        r.diag().error(index_path("entrypoint", i),
                       "expected a string, got " + describe((*v)[i]));
    }
    return;
  }
  r.fail("entrypoint",
         "expected a string or a list of strings, got " + describe(*v));
}

void read_resources(object_reader& r, resources_config& out,
                    const experiment_defaults& d) {
  // A legacy field upstream's schema still takes (an integer or null) and
  // ignores; templates written for it carry it. Checked, then unused:
  // slots_per_trial says how many slots a trial gets.
  r.opt_integer("slots", 0);
  out.slots_per_trial = r.integer("slots_per_trial", 1, 0);
  auto pool = r.opt_str("resource_pool");
  out.resource_pool =
      pool && !pool->empty()
          ? *pool
          : (out.slots_per_trial == 0 ? d.aux_pool : d.compute_pool);
  r.node()["resource_pool"] = out.resource_pool;
  auto known = d.pool_priorities.find(out.resource_pool);
  if (!d.pool_priorities.empty() && known == d.pool_priorities.end())
    r.fail("resource_pool",
           "resource pool \"" + out.resource_pool + "\" does not exist");
  int64_t pool_priority =
      known != d.pool_priorities.end() ? known->second : default_priority;
  out.priority = r.integer("priority", pool_priority, 1, 99);
  out.weight = r.number("weight", 1);
  if (out.weight <= 0)
    r.fail("weight", "must be greater than 0");
  out.max_slots = r.opt_integer("max_slots", 0);
  out.is_single_node = r.boolean("is_single_node", false);
  if (out.max_slots && *out.max_slots < out.slots_per_trial)
    r.fail("max_slots", "must be at least slots_per_trial ("
                            + std::to_string(out.slots_per_trial) + ")");
  if (auto* shm = r.raw("shm_size");
      shm && !shm->is_string() && !as_integer(*shm))
    r.fail("shm_size", "expected an integer or a size such as \"4G\", got "
                           + describe(*shm));
  r.allow({"devices", "native_parallel", "agent_label"});
  r.finish();
}

void read_bind_mounts(object_reader& r, std::vector<bind_mount>& out) {
  auto* v = r.raw("bind_mounts");
  if (v == nullptr) {
    r.node()["bind_mounts"] = json::array();
    return;
  }
  if (!v->is_array()) {
    r.fail("bind_mounts", "expected a list, got " + describe(*v));
    return;
  }
  for (size_t i = 0; i < v->size(); ++i) {
    object_reader m{(*v)[i], index_path("bind_mounts", i), r.diag()};
    bind_mount b;
    b.host_path = m.required_str("host_path");
    b.container_path = m.required_str("container_path");
    if (!b.host_path.empty() && b.host_path.front() != '/')
      m.fail("host_path", "must be an absolute path");
    if (b.container_path == ".")
      m.fail("container_path", "must not be \".\"");
    b.read_only = m.boolean("read_only", false);
    b.propagation = m.str("propagation", "rprivate");
    m.finish();
    out.push_back(std::move(b));
  }
}

void read_environment(object_reader& r, const env_by_slot_type& defaults) {
  auto env = r.child("environment");
  if (auto* img = env.raw("image");
      img && !img->is_string() && !img->is_object())
    env.fail("image",
             "expected a string or {cpu, cuda, rocm}, got " + describe(*img));
  auto* vars = env.raw("environment_variables");
  auto own = vars ? read_env_vars(*vars, env.path_of("environment_variables"),
                                  env.diag())
                  : env_by_slot_type{};
  // The pool's task_container_defaults first, then the experiment's own.
  if (!defaults.empty())
    env.node()["environment_variables"] = merged_env(defaults, own).to_json();
  else if (vars == nullptr)
    env.node()["environment_variables"] = json::array();
  std::string why;
  if (!read_proxy_ports(env.node(), why))
    env.diag().error("", why);
  env.allow({"ports", "force_pull_image", "registry_auth", "add_capabilities",
             "drop_capabilities", "pod_spec", "proxy_ports", "slurm", "pbs"});
  env.finish();
}

} // namespace

namespace {

/// Names and labels are shown in lists, logs and terminals: one line of at
/// most 255 bytes without control characters. A description may span lines.
void check_names_and_labels(const experiment_config& cfg, diagnostics& diag) {
  const util::text_rules name{255, false, false};
  const util::text_rules description{16384, true, true};
  if (auto why = util::text_problem(cfg.name, name); !why.empty())
    diag.error("name", why);
  if (auto why = util::text_problem(cfg.description, description); !why.empty())
    diag.error("description", why);
  if (cfg.labels.size() > 1000)
    diag.error("labels", "has " + std::to_string(cfg.labels.size())
                             + " labels, more than 1000");
  for (size_t i = 0; i < cfg.labels.size() && i < 1000; ++i)
    if (auto why = util::text_problem(cfg.labels[i], name); !why.empty())
      diag.error(index_path("labels", i), why);
}

} // namespace

caf::expected<experiment_config>
parse_experiment_tree(json tree, const experiment_defaults& d) {
  if (!tree.is_object())
    return make_error(errc::invalid_argument,
                      "expected a mapping at the top of the experiment config, "
                      "got "
                          + describe(tree));
  // Before anything reads it: the config is stored as it is, so every
  // string in it must be one the log can hold.
  // Its keys are names (hyperparameters among them): one line of at most
  // 255 bytes, so that the stored config, written as JSON, is one YAML
  // reads back (YAML refuses a key over 1,024 characters, escapes counted).
  static const util::text_rules key_rules{255, false, true};
  if (auto why = json_problem(tree, "", &key_rules); !why.empty())
    return make_error(errc::invalid_argument, why);
  diagnostics diag;
  experiment_config cfg;
  object_reader r{tree, "", diag};

  if (auto version = r.opt_integer("version"); version && *version != 0)
    r.fail("version", "invalid version: " + std::to_string(*version));
  cfg.name = r.str("name", d.name);
  cfg.description = r.str("description", "");
  cfg.labels = r.str_list("labels");
  check_names_and_labels(cfg, diag);
  if (!d.unmanaged || r.has("entrypoint"))
    read_entrypoint(r, cfg.entrypoint);
  {
    auto res = r.child("resources");
    read_resources(res, cfg.resources, d);
  }
  {
    auto hp = r.child("hyperparameters");
    cfg.hyperparameters = read_hyperparameters(hp);
  }
  if (!r.has("searcher")) {
    r.fail("searcher", "required");
    r.allow({"searcher"});
  } else {
    auto s = r.child("searcher");
    read_searcher(s, cfg.searcher);
    std::string missing;
    if (cfg.searcher.name == "grid"
        && !all_ranges_have_count(cfg.hyperparameters, missing))
      diag.error("hyperparameters." + missing,
                 "grid search is in use but count was not provided");
  }
  cfg.max_restarts = r.integer("max_restarts", 5, 0);
  for (auto [key, out] :
       {std::pair{"min_validation_period", &cfg.min_validation_period},
        std::pair{"min_checkpoint_period", &cfg.min_checkpoint_period}}) {
    if (auto l = read_length(r, key, false))
      *out = *l;
    else if (!r.has(key))
      r.node()[key] = json{{"batches", 0}};
  }
  {
    auto storage = merge_checkpoint_storage(
        d.checkpoint_storage.is_object() ? d.checkpoint_storage
                                         : default_checkpoint_storage(),
        r.has("checkpoint_storage") ? r.node()["checkpoint_storage"] : json{});
    r.node()["checkpoint_storage"] = std::move(storage);
    auto cs = r.child("checkpoint_storage");
    read_checkpoint_storage(cs, cfg.checkpoint_storage);
  }
  cfg.records_per_epoch = r.integer("records_per_epoch", 0, 0);
  cfg.scheduling_unit = r.integer("scheduling_unit", 100, 1);
  cfg.perform_initial_validation =
      r.boolean("perform_initial_validation", false);
  cfg.debug = r.boolean("debug", false);
  cfg.preemption_timeout =
      std::chrono::seconds{r.integer("preemption_timeout", 3600, 0)};
  read_bind_mounts(r, cfg.bind_mounts);
  {
    auto pe = d.pool_env.find(cfg.resources.resource_pool);
    read_environment(r,
                     pe == d.pool_env.end() ? env_by_slot_type{} : pe->second);
  }
  {
    auto repro = r.child("reproducibility");
    cfg.experiment_seed =
        repro.integer("experiment_seed", d.experiment_seed, 0, UINT32_MAX);
    repro.finish();
  }
  cfg.workspace = r.opt_str("workspace").value_or("");
  cfg.project = r.opt_str("project").value_or("");
  if (cfg.workspace.empty() != cfg.project.empty())
    r.fail_here("workspace and project must both be included in config if "
                "one is provided");
  if (auto* cp = r.raw("checkpoint_policy"); cp && cp->is_string()) {
    auto p = cp->get<std::string>();
    if (p != "best" && p != "all" && p != "none")
      r.fail("checkpoint_policy",
             "expected one of 'best', 'all', 'none', got " + describe(*cp));
  }
  // Passed to the harness as written.
  r.allow({"data", "data_layer", "optimizations", "profiling", "log_policies",
           "retention_policy", "slurm", "pbs", "integrations", "security",
           "internal", "tensorboard_storage"});
  r.finish();
  if (!diag.empty())
    return diag.to_error();
  cfg.filled = std::move(tree);
  return cfg;
}

caf::expected<experiment_config>
parse_experiment_config(std::string_view text, const experiment_defaults& d) {
  auto tree = parse_tree(text);
  if (!tree)
    return std::move(tree.error());
  return parse_experiment_tree(std::move(*tree), d);
}

} // namespace det::conf
