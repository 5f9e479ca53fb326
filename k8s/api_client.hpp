#pragma once

// The Kubernetes REST API over libcurl: one request with a JSON body and a
// JSON answer, or a streamed GET (watches, pod logs) handed to a callback
// chunk by chunk. Authentication from cluster_access (bearer token re-read
// per request, client certificate, CA). Every call blocks its thread: never
// call it on an actor thread (k8s/kube_worker.hpp runs calls on its own
// thread). An interface so decisions above it can be tested with scripted
// answers; make_curl_api_client() is the real one.

#include "k8s/access.hpp"
#include "messages/errc.hpp"

#include <caf/error.hpp>
#include <caf/expected.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace det::k8s {

struct api_response {
  long status = 0;
  /// The parsed body; null when it was empty or not JSON.
  nlohmann::json body;

  bool ok() const noexcept { return status >= 200 && status < 300; }
  /// The Status object's message, or "HTTP <status>".
  std::string message() const;
  /// The Status object's reason ("NotFound", "AlreadyExists", "Expired").
  std::string reason() const;
};

/// Counts of calls made, for the API-calls-per-minute figure.
struct api_counters {
  std::atomic<int64_t> requests{0};
  std::atomic<int64_t> streams{0};
};

class api_client {
public:
  virtual ~api_client() = default;

  /// `path` starts at the server root ("/api/v1/namespaces/x/pods?..."),
  /// `body` is sent as JSON unless null; content_type for PATCH is
  /// application/merge-patch+json. Any HTTP status is a response; fails
  /// with errc::remote_error "[transport curl:<n>] METHOD url: detail" when
  /// no answer came.
  [[nodiscard]] virtual caf::expected<api_response>
  call(const std::string& method, const std::string& path,
       const nlohmann::json& body = nullptr,
       const std::string& content_type = "application/json") = 0;

  /// GETs `path` and hands each received chunk to `on_data` until the
  /// server ends the response, `on_data` returns false, `stop` becomes true
  /// (checked about once a second) or `timeout` passes (0 = none). Returns
  /// the HTTP status of the answer (its body, when not 2xx, goes into
  /// `error_body`), or the transport error. Ending on `stop` or a false
  /// from on_data is not an error.
  [[nodiscard]] virtual caf::expected<long>
  stream(const std::string& path,
         const std::function<bool(std::string_view)>& on_data,
         const std::atomic<bool>& stop, std::chrono::milliseconds timeout,
         std::string* error_body = nullptr) = 0;

  virtual const api_counters& counters() const = 0;
};

struct client_options {
  std::chrono::milliseconds timeout{30'000};
  std::chrono::milliseconds connect_timeout{5'000};
};

/// libcurl behind api_client. Thread-safe (a handle per call).
std::shared_ptr<api_client> make_curl_api_client(cluster_access access,
                                                 client_options opts = {});

} // namespace det::k8s
