#pragma once

// Config templates applied to an experiment's creation (POST
// /api/v1/experiments with "template"), as upstream merges them: the
// experiment's config wins; objects present in both are merged key by key;
// anything else (lists, scalars) the config gives is kept whole.

#include "api/route_util.hpp"

#include <nlohmann/json.hpp>

#include <functional>

namespace det::api {

/// `config` with `tpl`'s keys it lacks.
nlohmann::json merge_template(nlohmann::json config, const nlohmann::json& tpl);

/// Calls `then` on the bridge with the config of the template
/// `name_field` names, from the read model; a template that does not exist
/// is answered 404, a name that is not one short line 400, each naming
/// `field`.
void with_template(const ctx_ptr& ctx, const http::responder& res,
                   const nlohmann::json& name_field, const char* field,
                   std::function<void(nlohmann::json)> then);

/// Replaces body["config"] (YAML text) by the config merged with the
/// template body["template"] names, from the read model, and calls `then`
/// with the body (without "template") on the bridge. A template that does
/// not exist is answered 404 naming it; a name that is not one short line
/// 400.
void apply_template(const ctx_ptr& ctx, const http::http_request& req,
                    const http::responder& res, nlohmann::json body,
                    std::function<void(nlohmann::json)> then);

} // namespace det::api
