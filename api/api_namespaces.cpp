// Workspace-namespace bindings (`det workspace bindings list|set|delete`,
// `det workspace create --namespace`): under the kubernetes resource
// manager, the namespace a workspace's trials run in. One Kubernetes
// cluster serves this master; a request naming no cluster ("") means it,
// and a binding to the resource manager's default namespace is no binding
// (upstream stores none either). Namespaces must exist: each one is looked
// up on the API server before anything is written. Auto-created namespaces
// and their resource quotas are upstream Enterprise Edition features,
// refused here as its open-source master refuses them.

#include "api/api_auth.hpp"
#include "api/api_records.hpp"
#include "http/grpc_error.hpp"
#include "state/records_queries.hpp"
#include "util/text.hpp"

namespace det::api {

using json = nlohmann::json;
using http::grpc_code;
using http::responder;

namespace {

constexpr const char* stale_label = "(stale)";

/// Refuses (and answers) when this master does not run trials on
/// Kubernetes.
bool kubernetes_only(const ctx_ptr& ctx, const responder& res) {
  if (ctx->check_namespace)
    return true;
  res.send_error(grpc_code::failed_precondition,
                 "workspace-namespace bindings need resource_manager.type "
                 "kubernetes: this master runs trials on det-agents, which "
                 "have no namespaces");
  return false;
}

/// This master's cluster name for a request's `name` ("" means it), or
/// nothing (answered 400).
std::optional<std::string>
cluster_of(const ctx_ptr& ctx, const std::string& name, const responder& res) {
  const auto& mine = ctx->config->kubernetes.cluster_name;
  if (name.empty() || name == mine)
    return mine;
  res.send_error(grpc_code::invalid_argument,
                 "no resource manager with cluster name '"
                     + util::fit_text(name, {64, false, true})
                     + "'; this master's is '" + mine + "'");
  return std::nullopt;
}

json binding_json(int64_t workspace, const std::string& cluster,
                  const std::string& ns) {
  return {{"workspaceId", workspace},
          {"clusterName", cluster},
          {"namespace", ns},
          {"autoCreateNamespace", false}};
}

/// The workspace's bindings as upstream lists them: this cluster's (its
/// default namespace when none is stored), and any stored for a cluster
/// name this master no longer has, labelled stale.
json bindings_of(const state::workspace_info& w, const std::string& cluster,
                 const std::string& default_ns, bool only_this_cluster) {
  json out = json::object();
  auto i = w.namespaces.find(cluster);
  out[cluster] = binding_json(w.id, cluster,
                              i == w.namespaces.end() ? default_ns : i->second);
  if (!only_this_cluster)
    for (const auto& [name, ns] : w.namespaces)
      if (name != cluster && !out.contains(name + stale_label))
        out[name + stale_label] = binding_json(w.id, name + stale_label, ns);
  return out;
}

/// Checks each namespace of `set` (not the default) on the API server,
/// one after another, then calls `then`; the first missing one is
/// answered 400 naming it.
void check_all(const ctx_ptr& ctx, const responder& res,
               std::vector<std::string> spaces, std::function<void()> then) {
  if (spaces.empty())
    return then();
  auto ns = spaces.back();
  spaces.pop_back();
  ctx->check_namespace(ns, [ctx, res, spaces, then](std::string why) {
    if (!why.empty())
      return res.send_error(grpc_code::invalid_argument, why);
    check_all(ctx, res, spaces, then);
  });
}

} // namespace

std::optional<std::map<std::string, std::string>>
namespace_meta(const ctx_ptr& ctx, const json& body, const responder& res,
               bool patch) {
  std::map<std::string, std::string> out;
  if (body.contains("clusterQuotaPairs") && !body["clusterQuotaPairs"].is_null()
      && !body["clusterQuotaPairs"].empty()) {
    res.send_error(grpc_code::invalid_argument,
                   "clusterQuotaPairs: resource quotas apply to auto-created "
                   "Kubernetes namespaces, which this master does not create");
    return std::nullopt;
  }
  auto it = body.find("clusterNamespaceMeta");
  if (it == body.end() || it->is_null() || it->empty())
    return out;
  if (!kubernetes_only(ctx, res))
    return std::nullopt;
  if (!it->is_object() || it->size() > 16) {
    res.send_error(grpc_code::invalid_argument,
                   "clusterNamespaceMeta: expected {cluster name: "
                   "{namespace, ...}}");
    return std::nullopt;
  }
  const auto& default_ns = ctx->config->kubernetes.default_namespace;
  for (const auto& [key, meta] : it->items()) {
    if (auto why = util::text_problem(key, {255, false, true}); !why.empty()) {
      res.send_error(grpc_code::invalid_argument,
                     "clusterNamespaceMeta: a cluster name " + why);
      return std::nullopt;
    }
    auto field = "clusterNamespaceMeta." + key;
    if (!meta.is_object()) {
      res.send_error(grpc_code::invalid_argument,
                     field + ": expected {namespace, autoCreateNamespace}");
      return std::nullopt;
    }
    for (const char* flag :
         {"autoCreateNamespace", "autoCreateNamespaceAllClusters"})
      if (meta.value(flag, json(false)) == json(true)) {
        res.send_error(grpc_code::invalid_argument,
                       field + "." + flag
                           + ": auto-creating namespaces is an Enterprise "
                             "Edition feature; bind an existing namespace "
                             "with --namespace");
        return std::nullopt;
      }
    if (meta.contains("resourceQuota") && !meta["resourceQuota"].is_null()) {
      res.send_error(grpc_code::invalid_argument,
                     field
                         + ".resourceQuota: resource quotas apply to "
                           "auto-created namespaces, which this master "
                           "does not create");
      return std::nullopt;
    }
    auto cluster = cluster_of(ctx, key, res);
    if (!cluster)
      return std::nullopt;
    auto ns = meta.value("namespace", json());
    if (ns.is_null() && patch) {
      out[*cluster] = ""; // PATCH without a namespace: back to the default
      continue;
    }
    if (!ns.is_string()) {
      res.send_error(grpc_code::invalid_argument,
                     field + ".namespace: must name an existing namespace");
      return std::nullopt;
    }
    auto name = ns.get<std::string>();
    if (auto why = util::dns_label_problem(name); !why.empty()) {
      res.send_error(grpc_code::invalid_argument,
                     field + ".namespace: '"
                         + util::fit_text(name, {64, false, true}) + "' "
                         + why);
      return std::nullopt;
    }
    out[*cluster] = name == default_ns ? "" : name;
  }
  return out;
}

void with_checked_namespaces(const ctx_ptr& ctx, const responder& res,
                             const std::map<std::string, std::string>& set,
                             std::function<void()> then) {
  std::vector<std::string> spaces;
  for (const auto& [cluster, ns] : set)
    if (!ns.empty())
      spaces.push_back(ns);
  check_all(ctx, res, std::move(spaces), std::move(then));
}

json namespace_bindings_of(const ctx_ptr& ctx, const state::cluster_state& s,
                           int64_t id) {
  auto w = state::find_workspace(s, id);
  if (!w || !ctx->check_namespace)
    return json::object();
  return bindings_of(*w, ctx->config->kubernetes.cluster_name,
                     ctx->config->kubernetes.default_namespace, true);
}

void list_namespace_bindings(const ctx_ptr& ctx, const http::http_request& req,
                             const responder& res) {
  auto id = id_param(req, res);
  if (!id || !kubernetes_only(ctx, res))
    return;
  answer_view(
      ctx, req, res,
      [ctx, id = *id](const state::cluster_state& s, int64_t) -> json {
        auto w = state::find_workspace(s, id);
        if (!w)
          return nullptr;
        return {
            {"namespaceBindings",
             bindings_of(*w, ctx->config->kubernetes.cluster_name,
                         ctx->config->kubernetes.default_namespace, false)}};
      },
      "workspace " + std::to_string(*id) + " not found");
}

void bind_namespace(const ctx_ptr& ctx, const http::http_request& req,
                    const responder& res) {
  auto id = id_param(req, res, "workspaceId");
  if (!id || !require_admin(req, res) || !kubernetes_only(ctx, res))
    return;
  auto body = json_body(req, res);
  if (!body)
    return;
  auto set = namespace_meta(ctx, *body, res, false);
  if (!set)
    return;
  if (set->empty())
    return res.send_error(grpc_code::invalid_argument,
                          "clusterNamespaceMeta: name a namespace "
                          "for the cluster");
  with_checked_namespaces(
      ctx, res, *set, [ctx, req, res, id = *id, set = *set] {
        record_write_then_view(
            ctx, req, res,
            parse_workspace_namespaces({{"id", id}, {"set", set}}),
            [ctx, set](const json& reply) {
              auto wid = reply.value("id", int64_t{0});
              return [ctx, wid, set](const state::cluster_state& s,
                                     int64_t) -> json {
                json all = namespace_bindings_of(ctx, s, wid);
                json out = json::object();
                for (const auto& [cluster, ns] : set)
                  if (all.contains(cluster))
                    out[cluster] = all[cluster];
                return {{"namespaceBindings", out}};
              };
            });
      });
}

void unbind_namespaces(const ctx_ptr& ctx, const http::http_request& req,
                       const responder& res) {
  auto id = id_param(req, res, "workspaceId");
  if (!id || !require_admin(req, res) || !kubernetes_only(ctx, res))
    return;
  json names = json::array();
  auto given = req.query.get_all("clusterNames");
  if (given.empty())
    given.push_back("");
  if (given.size() > 16)
    return res.send_error(grpc_code::invalid_argument,
                          "clusterNames: at most 16");
  for (const auto& n : given) {
    // A stale binding is deleted by its own cluster name.
    if (!n.empty() && n != ctx->config->kubernetes.cluster_name) {
      if (auto why = util::text_problem(n, {255, false, false}); !why.empty())
        return res.send_error(grpc_code::invalid_argument,
                              "clusterNames[] " + why);
      names.push_back(n);
      continue;
    }
    names.push_back(ctx->config->kubernetes.cluster_name);
  }
  record_write(ctx, req, res,
               parse_workspace_namespaces({{"id", *id}, {"delete", names}}),
               [ctx, res](caf::event_based_actor*, json) {
                 send_written(ctx, res, "{}");
               });
}

} // namespace det::api
