#pragma once

// Where det-inspect gets its answers: the master's API (api_source) or the
// event log itself (db_source, for when the master is down). Both return
// the same JSON: views from inspect/views.hpp, events from
// inspect/log_queries.hpp, states in the snapshot form of state/. Blocking;
// det-inspect is single-threaded.

#include "inspect/log_queries.hpp"
#include "inspect/views.hpp"

#include <caf/expected.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace det::inspect_cli {

class source {
public:
  virtual ~source() = default;
  /// inspection::view() of the current state.
  virtual caf::expected<nlohmann::json> view(inspection::view_kind k) = 0;
  /// inspection::query_events().
  virtual caf::expected<nlohmann::json>
  events(const inspection::event_filter& f) = 0;
  /// The state after event `at` (the current state without it), decoded.
  virtual caf::expected<state::cluster_state>
  state(std::optional<int64_t> at) = 0;
};

struct api_options {
  std::string master_url;
  /// Bearer token; empty: none, or log in with user/password.
  std::string token;
  std::optional<std::string> user;
  std::string password;
};

/// One HTTP exchange with the master as det-inspect needs it. The transport
/// is wired in by the program (libcurl, in cmd/det_inspect) so that this
/// floor needs no HTTP client; tests script the answers.
struct http_exchange {
  std::string method;
  /// Absolute: the master's URL and the path.
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

struct http_answer {
  long status = 0;
  std::string body;
};

/// Any HTTP status is an answer; an error only when none came (refused,
/// timed out, unresolvable).
using http_transport =
    std::function<caf::expected<http_answer>(const http_exchange&)>;

/// Logs in first when a user is given; fails naming the reason.
caf::expected<std::unique_ptr<source>> make_api_source(const api_options& o,
                                                       http_transport http);

/// Opens the log read-only (no lock, no migration).
caf::expected<std::unique_ptr<source>> make_db_source(const std::string& url);

/// The upstream CLI's client-side password hash: lowercase hex
/// sha512("GubPEmmotfiK9TMD6Zdw" + password); "" stays "".
std::string salt_and_hash(const std::string& password);

} // namespace det::inspect_cli
