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

void raw_json(const ctx_ptr& ctx, const http_request& req,
              const responder& res) {
  if (auto w = window_param(req, res))
    answer_view(
        ctx, req, res,
        [w = *w](const state::cluster_state& s, int64_t now) {
          return raw_allocation_response(s, w, now);
        },
        "");
}

void aggregated_json(const ctx_ptr& ctx, const http_request& req,
                     const responder& res) {
  if (auto a = aggregation_param(req, res))
    answer_view(
        ctx, req, res,
        [a = *a](const state::cluster_state& s, int64_t now) {
          return aggregated_allocation_response(s, a, now);
        },
        "");
}

void raw_csv(const ctx_ptr& ctx, const http_request& req,
             const responder& res) {
  if (auto w = window_param(req, res))
    answer_text_view(
        ctx, req, res,
        [w = *w](const state::cluster_state& s, int64_t now) {
          return raw_allocation_csv(s, w, now);
        },
        csv_type);
}

void aggregated_csv(const ctx_ptr& ctx, const http_request& req,
                    const responder& res) {
  if (auto a = aggregation_param(req, res))
    answer_text_view(
        ctx, req, res,
        [a = *a](const state::cluster_state& s, int64_t now) {
          return aggregated_allocation_csv(s, a, now);
        },
        csv_type);
}

void allocations_csv_route(const ctx_ptr& ctx, const http_request& req,
                           const responder& res) {
  if (auto w = window_param(req, res))
    answer_text_view(
        ctx, req, res,
        [w = *w](const state::cluster_state& s, int64_t now) {
          return allocations_csv(s, w, now);
        },
        csv_type);
}

void legacy_tasks(const ctx_ptr& ctx, const http_request& req,
                  const responder& res) {
  answer_view(
      ctx, req, res,
      [](const state::cluster_state& s, int64_t) {
        return legacy_tasks_response(s);
      },
      "");
}

} // namespace

const route_family& resource_routes() {
  static const route_family family{
      "resource_routes",
      {"/api/v1/resources", "/resources", "/tasks"},
      {
          // One line a row, past 80 columns, so the table reads as one.
          // clang-format off
          {"GET",    "/api/v1/resources/allocation/raw", &raw_json, access::signed_in},
          {"GET",    "/api/v1/resources/allocation/aggregated", &aggregated_json, access::signed_in},
          {"GET",    "/resources/allocation/raw", &raw_csv, access::signed_in},
          {"GET",    "/resources/allocation/aggregated", &aggregated_csv, access::signed_in},
          {"GET",    "/resources/allocation/allocations-csv", &allocations_csv_route, access::signed_in},
          {"GET",    "/tasks", &legacy_tasks, access::signed_in},
          // clang-format on
      }};
  return family;
}

} // namespace det::api
