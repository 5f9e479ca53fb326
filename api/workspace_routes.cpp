#include "api/workspace_routes.hpp"

#include "api/api_records.hpp"

namespace det::api {

const route_family& workspace_routes() {
  static const route_family family{
      "workspace_routes",
      {"/api/v1/workspaces", "/api/v1/resource-pools/{pool}/workspace-bindings",
       "/api/v1/roles/workspace"},
      {
          // One line a row, past 80 columns, so the table reads as one.
          // clang-format off
          {"GET",    "/api/v1/workspaces", &get_workspaces, access::signed_in},
          {"POST",   "/api/v1/workspaces", &create_workspace, access::signed_in},
          {"GET",    "/api/v1/workspaces/{id}", &get_workspace, access::signed_in},
          {"PATCH",  "/api/v1/workspaces/{id}", &edit_workspace, access::signed_in},
          {"DELETE", "/api/v1/workspaces/{id}", &delete_workspace, access::signed_in},
          {"POST",   "/api/v1/workspaces/{id}/archive", &archive_workspace, access::signed_in},
          {"POST",   "/api/v1/workspaces/{id}/unarchive", &unarchive_workspace, access::signed_in},
          {"POST",   "/api/v1/workspaces/{id}/pin", &pin_workspace, access::signed_in},
          {"POST",   "/api/v1/workspaces/{id}/unpin", &unpin_workspace, access::signed_in},
          {"GET",    "/api/v1/workspaces/{id}/projects", &get_workspace_projects, access::signed_in},
          {"POST",   "/api/v1/workspaces/{id}/projects", &create_project, access::signed_in},
          {"GET",    "/api/v1/workspaces/{id}/available-resource-pools", &get_available_pools, access::signed_in},
          {"GET",    "/api/v1/workspaces/{id}/list-namespace-bindings", &list_namespace_bindings, access::signed_in},
          // Admins only, checked by the handlers after the id (a bad id is
          // 400 to anyone).
          {"POST",   "/api/v1/workspaces/{workspaceId}/namespace-bindings", &bind_namespace, access::signed_in},
          {"DELETE", "/api/v1/workspaces/{workspaceId}/namespace-bindings", &unbind_namespaces, access::signed_in},
          {"POST",   "/api/v1/workspaces/{id}/set-resource-quota", &set_workspace_quota, access::signed_in},
          {"GET",    "/api/v1/roles/workspace/{workspaceId}", &get_workspace_roles, access::signed_in},
          {"GET",    "/api/v1/resource-pools/{pool}/workspace-bindings", &get_pool_bindings, access::signed_in},
          {"POST",   "/api/v1/resource-pools/{pool}/workspace-bindings", &add_pool_bindings, access::signed_in},
          {"PUT",    "/api/v1/resource-pools/{pool}/workspace-bindings", &replace_pool_bindings, access::signed_in},
          {"DELETE", "/api/v1/resource-pools/{pool}/workspace-bindings", &remove_pool_bindings, access::signed_in},
          // clang-format on
      }};
  return family;
}

} // namespace det::api
