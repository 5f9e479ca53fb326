#pragma once

// Typed-enough calls on top of api_client: create, get, list, merge-patch
// and delete of namespaced objects by API path, with retries of what is safe
// to retry (transport failures, 429, 500, 502, 503, 504) under jittered
// exponential backoff (util/backoff) within a bounded number of attempts.
// A create retried after its first attempt succeeded answers 409
// AlreadyExists: that counts as created. A delete of something already gone
// (404) counts as deleted. Blocking, like api_client.

#include "k8s/api_client.hpp"

#include <caf/expected.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace det::k8s {

/// Where an object kind lives: "/apis/batch/v1", "jobs" (namespaced).
struct kind_path {
  std::string group_version; ///< "/api/v1" or "/apis/batch/v1"
  std::string plural;        ///< "jobs", "pods", "configmaps", "nodes"
  bool namespaced = true;

  /// The collection's path in `ns` ("" for cluster-scoped kinds).
  std::string collection(const std::string& ns) const;
  std::string item(const std::string& ns, const std::string& name) const;
};

const kind_path& jobs_kind();
const kind_path& pods_kind();
const kind_path& configmaps_kind();
const kind_path& nodes_kind();
const kind_path& events_kind();
const kind_path& priority_classes_kind();
const kind_path& namespaces_kind();

struct retry_options {
  int max_attempts = 5;
  std::chrono::milliseconds base_delay{200};
  std::chrono::milliseconds max_delay{5'000};
  /// Injected for tests; default std::this_thread::sleep_for.
  std::function<void(std::chrono::milliseconds)> sleep;
  /// Uniform in [0, 1); default a seeded generator.
  std::function<double()> uniform01;
};

/// A list's items and the resourceVersion to watch from.
struct object_list {
  std::vector<nlohmann::json> items;
  std::string resource_version;
};

class resources {
public:
  explicit resources(std::shared_ptr<api_client> client,
                     retry_options retry = {});

  /// The created object. errc::remote_error with the server's message
  /// ("jobs.batch \"x\" is forbidden: ...") for a refused create.
  [[nodiscard]] caf::expected<nlohmann::json>
  create(const kind_path& k, const std::string& ns, const nlohmann::json& obj);
  /// The object, or errc::not_found.
  [[nodiscard]] caf::expected<nlohmann::json>
  get(const kind_path& k, const std::string& ns, const std::string& name);
  /// Every object matching `label_selector` ("" = all), following
  /// `continue` tokens (`limit` a page).
  [[nodiscard]] caf::expected<object_list>
  list(const kind_path& k, const std::string& ns,
       const std::string& label_selector, int limit = 500);
  /// A JSON merge patch (RFC 7386); the patched object.
  [[nodiscard]] caf::expected<nlohmann::json>
  merge_patch(const kind_path& k, const std::string& ns,
              const std::string& name, const nlohmann::json& patch);
  /// Deletes with propagationPolicy (Background, Foreground, Orphan) and a
  /// grace period (negative = the server's default). Already gone = ok.
  [[nodiscard]] caf::error remove(const kind_path& k, const std::string& ns,
                                  const std::string& name,
                                  const std::string& propagation = "Background",
                                  int grace_period_seconds = -1);

  api_client& client() { return *client_; }

private:
  caf::expected<api_response> with_retries(const std::string& method,
                                           const std::string& path,
                                           const nlohmann::json& body,
                                           const std::string& content_type);

  std::shared_ptr<api_client> client_;
  retry_options retry_;
};

/// Whether an HTTP status is worth another attempt.
bool retryable_status(long status);

} // namespace det::k8s
