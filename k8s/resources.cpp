#include "k8s/resources.hpp"

#include "util/backoff.hpp"
#include "util/text.hpp"

#include <random>
#include <thread>

namespace det::k8s {

using nlohmann::json;

std::string kind_path::collection(const std::string& ns) const {
  if (!namespaced || ns.empty())
    return group_version + "/" + plural;
  return group_version + "/namespaces/" + ns + "/" + plural;
}

std::string kind_path::item(const std::string& ns,
                            const std::string& name) const {
  return collection(ns) + "/" + name;
}

const kind_path& jobs_kind() {
  static const kind_path k{"/apis/batch/v1", "jobs", true};
  return k;
}
const kind_path& pods_kind() {
  static const kind_path k{"/api/v1", "pods", true};
  return k;
}
const kind_path& configmaps_kind() {
  static const kind_path k{"/api/v1", "configmaps", true};
  return k;
}
const kind_path& nodes_kind() {
  static const kind_path k{"/api/v1", "nodes", false};
  return k;
}
const kind_path& events_kind() {
  static const kind_path k{"/api/v1", "events", true};
  return k;
}
const kind_path& namespaces_kind() {
  static const kind_path k{"/api/v1", "namespaces", false};
  return k;
}
const kind_path& priority_classes_kind() {
  static const kind_path k{"/apis/scheduling.k8s.io/v1", "priorityclasses",
                           false};
  return k;
}

bool retryable_status(long status) {
  return status == 429 || status == 500 || status == 502 || status == 503
         || status == 504;
}

resources::resources(std::shared_ptr<api_client> client, retry_options retry)
    : client_(std::move(client)), retry_(std::move(retry)) {
  if (!retry_.sleep)
    retry_.sleep = [](std::chrono::milliseconds d) {
      std::this_thread::sleep_for(d);
    };
  if (!retry_.uniform01) {
    auto gen = std::make_shared<std::mt19937>(std::random_device{}());
    retry_.uniform01 = [gen] {
      return std::uniform_real_distribution<double>(0.0, 1.0)(*gen);
    };
  }
}

caf::expected<api_response>
resources::with_retries(const std::string& method, const std::string& path,
                        const json& body, const std::string& content_type) {
  caf::expected<api_response> last = make_error(errc::remote_error, "no call");
  for (int attempt = 1; attempt <= retry_.max_attempts; ++attempt) {
    if (attempt > 1) {
      double ms = util::backoff_delay(
          static_cast<double>(retry_.base_delay.count()), 2.0,
          static_cast<double>(retry_.max_delay.count()), attempt - 1, 1.0,
          retry_.uniform01());
      retry_.sleep(std::chrono::milliseconds(static_cast<int64_t>(ms)));
    }
    last = client_->call(method, path, body, content_type);
    if (last && !retryable_status(last->status))
      return last;
  }
  return last;
}

namespace {

caf::error refused(const std::string& what, const api_response& r) {
  auto code = r.status == 404 ? errc::not_found : errc::remote_error;
  return make_error(code, what + ": HTTP " + std::to_string(r.status) + " "
                              + r.reason() + ": " + r.message());
}

} // namespace

caf::expected<json> resources::create(const kind_path& k, const std::string& ns,
                                      const json& obj) {
  auto path = k.collection(ns);
  auto r = with_retries("POST", path, obj, "application/json");
  if (!r)
    return r.error();
  if (r->ok())
    return r->body;
  std::string name = obj.value("/metadata/name"_json_pointer, std::string{});
  if (r->status == 409 && !name.empty()) // a retried create that had landed
    return get(k, ns, name);
  return refused("create " + k.plural + " " + name, *r);
}

caf::expected<json> resources::get(const kind_path& k, const std::string& ns,
                                   const std::string& name) {
  auto r = with_retries("GET", k.item(ns, name), nullptr, "");
  if (!r)
    return r.error();
  if (!r->ok())
    return refused("get " + k.plural + " " + name, *r);
  return r->body;
}

caf::expected<object_list> resources::list(const kind_path& k,
                                           const std::string& ns,
                                           const std::string& selector,
                                           int limit) {
  object_list out;
  std::string cont;
  for (int page = 0; page < 10'000; ++page) {
    std::string path = k.collection(ns) + "?limit=" + std::to_string(limit);
    if (!selector.empty())
      path += "&labelSelector=" + util::percent_encode(selector);
    if (!cont.empty())
      path += "&continue=" + util::percent_encode(cont);
    auto r = with_retries("GET", path, nullptr, "");
    if (!r)
      return r.error();
    if (!r->ok())
      return refused("list " + k.plural, *r);
    const auto& b = r->body;
    if (b.contains("items") && b["items"].is_array())
      for (const auto& i : b["items"])
        out.items.push_back(i);
    out.resource_version =
        b.value("/metadata/resourceVersion"_json_pointer, std::string{});
    cont = b.value("/metadata/continue"_json_pointer, std::string{});
    if (cont.empty())
      return out;
  }
  return make_error(errc::remote_error,
                    "list " + k.plural + ": too many pages");
}

caf::expected<json> resources::merge_patch(const kind_path& k,
                                           const std::string& ns,
                                           const std::string& name,
                                           const json& patch) {
  auto r = with_retries("PATCH", k.item(ns, name), patch,
                        "application/merge-patch+json");
  if (!r)
    return r.error();
  if (!r->ok())
    return refused("patch " + k.plural + " " + name, *r);
  return r->body;
}

caf::error resources::remove(const kind_path& k, const std::string& ns,
                             const std::string& name,
                             const std::string& propagation, int grace) {
  json opts{{"kind", "DeleteOptions"},
            {"apiVersion", "v1"},
            {"propagationPolicy", propagation}};
  if (grace >= 0)
    opts["gracePeriodSeconds"] = grace;
  auto r = with_retries("DELETE", k.item(ns, name), opts, "application/json");
  if (!r)
    return r.error();
  if (r->ok() || r->status == 404)
    return {};
  return refused("delete " + k.plural + " " + name, *r);
}

} // namespace det::k8s
