#include "api/resource_routes.hpp"

#include "api/allocation_views.hpp"
#include "api/route_util.hpp"
#include "http/grpc_error.hpp"

namespace det::api {

using http::grpc_code;
using http::http_request;
using http::responder;

namespace {

constexpr const char* csv_type = "text/csv";

/// The window of a raw route's query, or answers 400 naming the parameter.
std::optional<time_window> window_param(const http_request& req,
                                        const responder& res) {
  std::string why;
  auto w = window_of(req.query, why);
  if (!w)
    res.send_error(grpc_code::invalid_argument, why);
  return w;
}

/// The aggregation of an aggregated route's query, or answers 400.
std::optional<aggregation> aggregation_param(const http_request& req,
                                             const responder& res) {
  std::string why;
  auto a = aggregation_of(req.query, why);
  if (!a)
    res.send_error(grpc_code::invalid_argument, why);
  return a;
}

} // namespace

void add_resource_routes(http::router& r, ctx_ptr ctx) {
  r.get("/api/v1/resources/allocation/raw",
        [ctx](http_request req, responder res) {
          if (auto w = window_param(req, res))
            answer_view(
                ctx, req, res,
                [w = *w](const state::cluster_state& s, int64_t now) {
                  return raw_allocation_response(s, w, now);
                },
                "");
        });
  r.get("/api/v1/resources/allocation/aggregated",
        [ctx](http_request req, responder res) {
          if (auto a = aggregation_param(req, res))
            answer_view(
                ctx, req, res,
                [a = *a](const state::cluster_state& s, int64_t now) {
                  return aggregated_allocation_response(s, a, now);
                },
                "");
        });
  r.get("/resources/allocation/raw", [ctx](http_request req, responder res) {
    if (auto w = window_param(req, res))
      answer_text_view(
          ctx, req, res,
          [w = *w](const state::cluster_state& s, int64_t now) {
            return raw_allocation_csv(s, w, now);
          },
          csv_type);
  });
  r.get("/resources/allocation/aggregated",
        [ctx](http_request req, responder res) {
          if (auto a = aggregation_param(req, res))
            answer_text_view(
                ctx, req, res,
                [a = *a](const state::cluster_state& s, int64_t now) {
                  return aggregated_allocation_csv(s, a, now);
                },
                csv_type);
        });
  r.get("/resources/allocation/allocations-csv",
        [ctx](http_request req, responder res) {
          if (auto w = window_param(req, res))
            answer_text_view(
                ctx, req, res,
                [w = *w](const state::cluster_state& s, int64_t now) {
                  return allocations_csv(s, w, now);
                },
                csv_type);
        });
  r.get("/tasks", [ctx](http_request req, responder res) {
    answer_view(
        ctx, req, res,
        [](const state::cluster_state& s, int64_t) {
          return legacy_tasks_response(s);
        },
        "");
  });
}

} // namespace det::api
