#pragma once

// Method + path-pattern routing for the REST API. Patterns are literal
// segments and parameters: "/api/v1/experiments/{id}/kill"; a final
// "{name*}" captures the rest of the path ("/det/{file*}"). Requests are
// matched after the trailing slash is stripped; each path segment is
// percent-decoded before it is compared or bound. A literal segment beats a
// parameter at the same position, so "/api/v1/trials/search" wins over
// "/api/v1/trials/{id}". No match for the path: 404 NotFound; the path
// matches but not the method: 405 with an Allow header. Both in the
// upstream error JSON.
//
// Build the router once before the server starts; afterwards it is
// read-only and dispatch() may run on several I/O threads at once.

#include "http/http_message.hpp"
#include "http/responder.hpp"

#include <caf/error.hpp>

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace det::http {

/// A request handler. Runs on a server I/O thread and must not block: it
/// answers through the responder, possibly later from another thread.
using handler = std::function<void(http_request req, responder res)>;

/// Runs before every matched route's handler (authentication): it calls
/// `next` (at once or later, from any thread) to let the request through,
/// possibly after filling req.principal, or answers itself to refuse it.
/// Unmatched paths are answered 404/405 without it.
using request_guard =
    std::function<void(http_request req, responder res, const handler& next)>;

class router {
public:
  /// Registers `h` for `method` ("GET", ...) and `pattern`. A malformed
  /// pattern or a duplicate (method, pattern) is remembered and reported by
  /// error(); the route is not added.
  router& add(std::string_view method, std::string_view pattern, handler h);
  router& get(std::string_view pattern, handler h);
  router& post(std::string_view pattern, handler h);
  router& put(std::string_view pattern, handler h);
  router& patch(std::string_view pattern, handler h);
  router& del(std::string_view pattern, handler h);

  /// Installs the guard (one; a later call replaces it).
  router& set_guard(request_guard g);

  /// Answers GET requests for paths that no route knows, instead of the
  /// 404 (the WebUI's files and its client-side pages). It runs without
  /// the guard: whatever it serves is public. One; a later call replaces it.
  router& set_fallback(handler h);

  /// Every registered route as (method, pattern), in registration order
  /// (the route table of docs/api.md is checked against it).
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> table() const;

  /// The first registration error (errc::invalid_argument), or none.
  [[nodiscard]] caf::error error() const;

  /// Result of match(): the handler (if any) and the bound parameters.
  struct match_result {
    const handler* h = nullptr;     ///< null: no route for method + path
    bool path_known = false;        ///< some route matches the path
    std::vector<std::string> allow; ///< methods for the path, when known
    std::vector<std::pair<std::string, std::string>> params;
  };

  /// Looks up `path` (already normalised, not decoded): walks the routes'
  /// segment tree to the routes that fit the path, then picks among them
  /// as match_by_scan() does.
  [[nodiscard]] match_result match(std::string_view method,
                                   std::string_view path) const;

  /// The same answer by trying every route in registration order: the
  /// reference match() is checked against (tests/http/router_test.cpp).
  [[nodiscard]] match_result match_by_scan(std::string_view method,
                                           std::string_view path) const;

  /// Routes `req`: binds req.params and calls the handler, or answers
  /// 404/405. A handler that throws is answered with 500 (Internal).
  void dispatch(http_request req, responder res) const;

private:
  struct segment {
    std::string text; ///< literal text, or the parameter name
    bool param = false;
    bool rest = false; ///< "{name*}": matches the remaining segments
  };
  struct route {
    std::string method;
    std::string pattern;
    std::vector<segment> segments;
    handler h;
  };

  /// A node of the segment tree: the routes whose pattern fits the path
  /// so far. Children are indexes into nodes_ (0, the root, is never a
  /// child).
  struct node {
    std::map<std::string, size_t, std::less<>> literal;
    size_t param = 0;
    std::vector<size_t> ends;  ///< routes whose pattern ends here
    std::vector<size_t> rests; ///< routes whose "{name*}" starts here
  };

  /// Score of a match (higher is more specific), or -1 for no match.
  static long long
  match_route(const route& r, const std::vector<std::string>& segs,
              std::vector<std::pair<std::string, std::string>>* params);
  /// Picks among `candidates` (indexes into routes_, ascending): the
  /// methods allowed and the best-scoring route for `method`.
  match_result pick(std::string_view method,
                    const std::vector<std::string>& segs,
                    const std::vector<size_t>& candidates) const;
  void fitting(size_t at, const std::vector<std::string>& segs, size_t depth,
               std::vector<size_t>& out) const;

  std::vector<route> routes_;
  std::vector<node> nodes_{1};
  request_guard guard_;
  handler fallback_;
  caf::error error_;
};

} // namespace det::http
