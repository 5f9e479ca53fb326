#include "api/master_api.hpp"

#include "api/api_auth.hpp"
#include "api/api_tasks.hpp"
#include "api/checkpoint_routes.hpp"
#include "api/cluster_routes.hpp"
#include "api/config_policy_routes.hpp"
#include "api/experiment_routes.hpp"
#include "api/inspect_routes.hpp"
#include "api/log_routes.hpp"
#include "api/model_routes.hpp"
#include "api/pool_routes.hpp"
#include "api/project_routes.hpp"
#include "api/queue_routes.hpp"
#include "api/resource_routes.hpp"
#include "api/run_routes.hpp"
#include "api/task_routes.hpp"
#include "api/template_routes.hpp"
#include "api/trial_routes.hpp"
#include "api/user_routes.hpp"
#include "api/webhook_routes.hpp"
#include "api/workspace_routes.hpp"

namespace det::api {

size_t request_body_limit(std::string_view method, std::string_view path,
                          bool authorized, size_t model_bytes) {
  // A browser reaches a task with the `auth` cookie, no Authorization.
  if (path.substr(0, 7) == "/proxy/")
    return 8u << 20;
  if (!authorized)
    return 64u << 10;
  if (method == "POST" && path == "/api/v1/experiments")
    return model_bytes / 3 * 4 + (1u << 20);
  return 8u << 20;
}

const std::vector<const route_family*>& route_families() {
  static const std::vector<const route_family*> families{
      &experiment_routes(),    &trial_routes(),     &project_routes(),
      &model_routes(),         &workspace_routes(), &task_routes(),
      &cluster_routes(),       &user_routes(),      &run_routes(),
      &checkpoint_routes(),    &template_routes(),  &webhook_routes(),
      &config_policy_routes(), &queue_routes(),     &resource_routes(),
      &log_routes(),           &pool_routes(),      &inspect_routes()};
  return families;
}

void add_master_routes(http::router& r, ctx_ptr ctx) {
  start_idle_watch(ctx);
  add_auth_guard(r, ctx, route_families());
  for (const auto* family : route_families())
    add_routes(r, ctx, family->rows);
}

} // namespace det::api
