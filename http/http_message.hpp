#pragma once

// Plain request and response values that the transport hands to handlers and
// takes back from them. No Beast types: code outside api/ includes this
// header without paying for Boost. Values are copied or moved between the
// server's I/O threads and whatever thread a handler answers from; none of
// them is shared or synchronised.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace det::http {

/// Ordered name/value pairs; names compare ASCII case-insensitively
/// (HTTP headers). Insertion order and repeated names are preserved.
class header_map {
public:
  using entry = std::pair<std::string, std::string>;

  void add(std::string name, std::string value);
  /// Replaces every entry named `name` by one entry.
  void set(std::string name, std::string value);
  void erase(std::string_view name);

  /// The first value named `name`, if any.
  [[nodiscard]] std::optional<std::string> get(std::string_view name) const;
  [[nodiscard]] std::vector<std::string> get_all(std::string_view name) const;
  [[nodiscard]] bool contains(std::string_view name) const;

  [[nodiscard]] const std::vector<entry>& entries() const { return entries_; }
  [[nodiscard]] bool empty() const { return entries_.empty(); }

private:
  std::vector<entry> entries_;
};

/// Decoded query parameters in the order sent; keys are case-sensitive and
/// may repeat (`levels=A&levels=B`).
class query_params {
public:
  using entry = std::pair<std::string, std::string>;

  void add(std::string key, std::string value);
  [[nodiscard]] std::optional<std::string> get(std::string_view key) const;
  [[nodiscard]] std::vector<std::string> get_all(std::string_view key) const;
  [[nodiscard]] bool contains(std::string_view key) const;
  [[nodiscard]] const std::vector<entry>& entries() const { return entries_; }

private:
  std::vector<entry> entries_;
};

/// One HTTP request as the router and handlers see it.
struct http_request {
  std::string method; ///< upper case as sent: "GET", "POST", ...
  std::string target; ///< raw request target, "/a/b/?x=1"
  std::string path;   ///< target without query, trailing '/' removed
  query_params query; ///< percent-decoded, '+' read as space
  header_map headers; ///< case-insensitive names
  std::string body;   ///< may be empty (bodyless POSTs are normal)
  std::vector<std::pair<std::string, std::string>> params; ///< from the route
  std::string remote_address; ///< peer IP address, for logs
  bool tls = false;           ///< arrived over HTTPS

  /// Who sent it, as the router's guard established (empty before, and on
  /// routes that need no authentication).
  struct principal_info {
    std::string username;
    bool admin = false;
    /// Set when a trial's allocation token authenticated the request; the
    /// username is then the experiment's owner.
    std::string allocation_id;
    /// That allocation's trial (0: a task's allocation, or a user).
    int64_t trial_id = 0;
  } principal;

  /// The path parameter `name` bound by the route pattern ("{id}"), or "".
  [[nodiscard]] std::string param(std::string_view name) const;
};

/// One complete (non-streamed) HTTP response. Content-Type defaults to
/// application/json when the handler sets none; Content-Length, Connection
/// and Date are the server's business.
///
/// The body is `body`, or, when set, `shared_body`: text someone else keeps
/// too (a read replica's kept list answer, read/fragments.hpp), written to
/// the socket from where it lies and held until written. It must not change
/// once shared; `body` is then empty.
struct http_response {
  int status = 200;
  header_map headers;
  std::string body;
  std::shared_ptr<const std::string> shared_body;

  /// The body's bytes, whichever member holds them.
  [[nodiscard]] std::string_view body_text() const {
    return shared_body ? std::string_view{*shared_body}
                       : std::string_view{body};
  }

  /// A response with `body` and Content-Type application/json.
  [[nodiscard]] static http_response json(int status, std::string body);
  /// The same with a shared body (not copied).
  [[nodiscard]] static http_response
  json(int status, std::shared_ptr<const std::string> body);
  /// A response with `body` and Content-Type text/plain.
  [[nodiscard]] static http_response text(int status, std::string body);
};

/// The standard reason phrase for `status` ("Not Found"), "" if unknown.
[[nodiscard]] const char* status_text(int status);

} // namespace det::http
