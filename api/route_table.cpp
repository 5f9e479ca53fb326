#include "api/route_table.hpp"

#include "api/api_auth.hpp"

namespace det::api {

std::string_view to_string(access a) {
  switch (a) {
  case access::anyone:
    return "anyone";
  case access::signed_in:
    return "signed_in";
  case access::users_only:
    return "users_only";
  case access::admin:
    return "admin";
  }
  return "?";
}

void add_routes(http::router& r, const route_ctx& ctx,
                const std::vector<route_row>& rows) {
  for (const auto& row : rows) {
    auto fn = row.handler;
    http::handler h;
    if (row.who == access::admin)
      h = [ctx, fn](http::http_request req, http::responder res) {
        if (require_admin(req, res))
          fn(ctx, req, res);
      };
    else
      h = [ctx, fn](http::http_request req, http::responder res) {
        fn(ctx, req, res);
      };
    r.add(row.method, row.path, std::move(h));
  }
}

bool under_prefix(std::string_view path, std::string_view prefix) {
  return path.substr(0, prefix.size()) == prefix
         && (path.size() == prefix.size() || path[prefix.size()] == '/');
}

} // namespace det::api
