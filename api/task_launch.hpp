#pragma once

// The body of a task's launch (POST /api/v1/{commands,notebooks,shells})
// checked field by field, as upstream's CommandConfig has them, and its
// config filled in: description, resources, pool, the idle timeout's
// default. Every refusal is a 400 naming the field (api_tasks.cpp runs
// the route; the master checks again what only its state can tell).

#include "api/route_util.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <set>
#include <string>

namespace det::api {

/// One kind of upstream's NTSC as its routes name it.
struct ntsc_kind {
  std::string type;   ///< COMMAND
  std::string plural; ///< commands (the route)
  std::string key;    ///< command (the JSON key)
  std::string param;  ///< command_id (the path parameter)
  std::string field;  ///< commandId (in a 400)
  std::string title;  ///< Command (the description's default)
};

/// The four kinds (api_tasks.cpp).
extern const ntsc_kind command_kind;
extern const ntsc_kind notebook_kind;
extern const ntsc_kind shell_kind;
extern const ntsc_kind tensorboard_kind;

/// `environment.image` as upstream's config holds it: a name becomes
/// {cpu, cuda, rocm} with that name each; why it is neither, or "".
std::string normalize_image(nlohmann::json& environment);

/// The keys of upstream's CommandConfig; any other is refused.
const std::set<std::string>& command_config_keys();

struct launch_args {
  nlohmann::json config;
  std::string pool;
  int32_t slots = 1;
  int32_t priority = 42;
  int64_t workspace_id = 1;
  /// A TensorBoard's resolved experiments and storage (null otherwise).
  nlohmann::json tensorboard;
};

/// The command that launches task `id` of `type` for `owner` as `a` says
/// (its description is the config's).
task_launch to_launch(const launch_args& a, const std::string& id,
                      const std::string& type, const std::string& owner);

/// The body of a launch of `kind` checked and its config filled in, with
/// `id` for the description's default name, or answers 400 naming the
/// field.
std::optional<launch_args> command_launch(const ctx_ptr& ctx,
                                          const nlohmann::json& body,
                                          const std::string& id,
                                          const http::responder& res,
                                          const ntsc_kind& kind);

} // namespace det::api
