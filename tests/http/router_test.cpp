#include "http/grpc_error.hpp"
#include "http/router.hpp"
#include "messages/errc.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <random>

using namespace det::http;
using nlohmann::json;

namespace {

/// Dispatches a request and returns the synchronous answer.
http_response call(const router& r, std::string method, std::string path,
                   std::string* seen = nullptr) {
  http_request req;
  req.method = std::move(method);
  req.path = std::move(path);
  http_response out;
  out.status = -1;
  r.dispatch(std::move(req),
             responder::capture([&](http_response res) { out = res; }));
  (void)seen;
  return out;
}

handler echo_params() {
  return [](http_request req, responder res) {
    json j = json::object();
    for (const auto& [k, v] : req.params)
      j[k] = v;
    res.send_json(j.dump());
  };
}

} // namespace

TEST(router, parameters_are_bound_from_the_path) {
  router r;
  r.post("/api/v1/experiments/{id}/kill", echo_params());
  r.get("/api/v1/trials/{trial_id}/metrics", echo_params());
  auto a = call(r, "POST", "/api/v1/experiments/42/kill");
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(json::parse(a.body), (json{{"id", "42"}}));
  auto b = call(r, "GET", "/api/v1/trials/7/metrics");
  EXPECT_EQ(json::parse(b.body), (json{{"trial_id", "7"}}));
}

TEST(router, path_segments_are_percent_decoded_after_splitting) {
  router r;
  r.get("/api/v1/users/{name}", echo_params());
  auto a = call(r, "GET", "/api/v1/users/a%2Fb%20c");
  EXPECT_EQ(json::parse(a.body), (json{{"name", "a/b c"}}));
}

TEST(router, a_literal_segment_wins_over_a_parameter) {
  router r;
  r.get("/api/v1/trials/{id}",
        [](http_request, responder res) { res.send_json("\"param\""); });
  r.get("/api/v1/trials/search",
        [](http_request, responder res) { res.send_json("\"literal\""); });
  EXPECT_EQ(call(r, "GET", "/api/v1/trials/search").body, "\"literal\"");
  EXPECT_EQ(call(r, "GET", "/api/v1/trials/9").body, "\"param\"");
}

TEST(router, a_rest_parameter_captures_the_remaining_path) {
  router r;
  r.get("/det/{file*}", echo_params());
  EXPECT_EQ(json::parse(call(r, "GET", "/det/static/js/app.js").body),
            (json{{"file", "static/js/app.js"}}));
}

TEST(router, an_unknown_path_is_404_in_the_upstream_error_shape) {
  router r;
  r.get("/api/v1/experiments", echo_params());
  auto a = call(r, "GET", "/api/v1/nothing");
  EXPECT_EQ(a.status, 404);
  auto j = json::parse(a.body);
  EXPECT_EQ(j["error"]["code"], 5);
  EXPECT_EQ(j["error"]["reason"], "NotFound");
  EXPECT_TRUE(j["error"]["error"].is_string());
}

TEST(router, a_known_path_with_the_wrong_method_is_405_with_allow) {
  router r;
  r.get("/api/v1/experiments", echo_params());
  r.post("/api/v1/experiments", echo_params());
  auto a = call(r, "DELETE", "/api/v1/experiments");
  EXPECT_EQ(a.status, 405);
  EXPECT_EQ(a.headers.get("allow"), "GET, POST");
  auto j = json::parse(a.body);
  EXPECT_EQ(j["error"]["reason"], "Unimplemented");
}

TEST(router, a_throwing_handler_is_answered_with_internal) {
  router r;
  r.get("/boom", [](http_request, responder) -> void {
    throw std::runtime_error("kaput");
  });
  auto a = call(r, "GET", "/boom");
  EXPECT_EQ(a.status, 500);
  EXPECT_EQ(json::parse(a.body)["error"]["reason"], "Internal");
}

TEST(router, malformed_and_duplicate_patterns_are_reported) {
  router ok;
  ok.get("/a/{id}", echo_params());
  EXPECT_FALSE(ok.error());
  router bad;
  bad.get("no-slash", echo_params());
  EXPECT_EQ(det::code_of(bad.error()), det::errc::invalid_argument);
  router dup;
  dup.get("/a", echo_params()).get("/a/", echo_params());
  EXPECT_TRUE(dup.error());
  router rest;
  rest.get("/a/{x*}/b", echo_params());
  EXPECT_TRUE(rest.error());
}

TEST(responder, only_the_first_answer_counts) {
  int calls = 0;
  auto res = responder::capture([&](http_response) { ++calls; });
  res.send_json("1");
  res.send_json("2");
  res.send_error(grpc_code::internal, "x");
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(res.answered());
}

TEST(responder, a_dropped_responder_answers_internal) {
  http_response got;
  {
    auto res = responder::capture([&](http_response r) { got = r; });
  }
  EXPECT_EQ(got.status, 500);
}

struct code_row {
  grpc_code code;
  int http;
  const char* reason;
};

class grpc_table : public ::testing::TestWithParam<code_row> {};

TEST_P(grpc_table, each_code_maps_to_the_grpc_gateway_status) {
  auto row = GetParam();
  EXPECT_EQ(http_status_of(row.code), row.http);
  auto r = error_response(row.code, "msg");
  EXPECT_EQ(r.status, row.http);
  auto j = json::parse(r.body);
  EXPECT_EQ(j["error"]["reason"], row.reason);
  EXPECT_EQ(j["error"]["error"], "msg");
}

INSTANTIATE_TEST_SUITE_P(
    upstream, grpc_table,
    ::testing::Values(
        code_row{grpc_code::invalid_argument, 400, "InvalidArgument"},
        code_row{grpc_code::failed_precondition, 400, "FailedPrecondition"},
        code_row{grpc_code::out_of_range, 400, "OutOfRange"},
        code_row{grpc_code::unauthenticated, 401, "Unauthenticated"},
        code_row{grpc_code::permission_denied, 403, "PermissionDenied"},
        code_row{grpc_code::not_found, 404, "NotFound"},
        code_row{grpc_code::already_exists, 409, "AlreadyExists"},
        code_row{grpc_code::aborted, 409, "Aborted"},
        code_row{grpc_code::resource_exhausted, 429, "ResourceExhausted"},
        code_row{grpc_code::cancelled, 408, "Canceled"},
        code_row{grpc_code::unimplemented, 501, "Unimplemented"},
        code_row{grpc_code::unavailable, 503, "Unavailable"},
        code_row{grpc_code::deadline_exceeded, 504, "DeadlineExceeded"},
        code_row{grpc_code::internal, 500, "Internal"},
        code_row{grpc_code::unknown, 500, "Internal"}));

TEST(grpc_error, the_body_has_code_reason_and_error) {
  auto j = json::parse(error_body(grpc_code::not_found, "experiment 3"));
  EXPECT_EQ(
      j,
      (json{
          {"error",
           {{"code", 5}, {"reason", "NotFound"}, {"error", "experiment 3"}}}}));
}

TEST(grpc_error, det_errors_map_to_grpc_codes) {
  using det::errc;
  EXPECT_EQ(grpc_code_of(det::make_error(errc::not_found, "x")),
            grpc_code::not_found);
  EXPECT_EQ(grpc_code_of(det::make_error(errc::invalid_argument, "x")),
            grpc_code::invalid_argument);
  EXPECT_EQ(grpc_code_of(det::make_error(errc::store_unavailable, "x")),
            grpc_code::unavailable);
  auto r = error_response(det::make_error(errc::not_found, "trial 9"));
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(
      json::parse(r.body)["error"]["error"].get<std::string>().find("trial 9"),
      std::string::npos);
}

TEST(grpc_error, stream_lines_use_the_runtime_stream_error_shape) {
  EXPECT_EQ(result_line("{\"a\":1}"), "{\"result\":{\"a\":1}}");
  auto j = json::parse(stream_error_line(grpc_code::not_found, "gone"));
  EXPECT_EQ(j["error"]["grpcCode"], 5);
  EXPECT_EQ(j["error"]["httpCode"], 404);
  EXPECT_EQ(j["error"]["message"], "gone");
  EXPECT_EQ(j["error"]["httpStatus"], "Not Found");
  EXPECT_TRUE(j["error"]["details"].is_array());
}

TEST(router, the_guard_sees_bound_parameters_and_decides_before_the_handler) {
  router r;
  r.get("/api/v1/trials/{trial_id}", [](http_request req, responder res) {
    res.send_json(json{{"user", req.principal.username}}.dump());
  });
  r.set_guard([](http_request req, responder res, const handler& next) {
    if (req.param("trial_id") == "1") {
      req.principal.username = "alice";
      return next(std::move(req), std::move(res));
    }
    res.send_error(grpc_code::permission_denied, "not yours");
  });
  auto mine = call(r, "GET", "/api/v1/trials/1");
  EXPECT_EQ(mine.status, 200);
  EXPECT_EQ(json::parse(mine.body)["user"], "alice");
  EXPECT_EQ(call(r, "GET", "/api/v1/trials/2").status, 403);
  // Unknown paths are answered without the guard.
  EXPECT_EQ(call(r, "GET", "/api/v1/nothing").status, 404);
}

TEST(router, the_fallback_answers_unknown_gets_and_runs_without_the_guard) {
  router r;
  r.get("/api/v1/x", [](http_request, responder res) { res.send_json("{}"); });
  int guarded = 0;
  r.set_guard([&guarded](http_request req, responder res, const handler& next) {
    ++guarded;
    next(std::move(req), std::move(res));
  });
  r.set_fallback([](http_request req, responder res) {
    res.send(http_response::text(200, "app for " + req.path));
  });
  EXPECT_EQ(call(r, "GET", "/experiments/3").body, "app for /experiments/3");
  EXPECT_EQ(guarded, 0);
  // Other methods on unknown paths, and known paths, are as before.
  EXPECT_EQ(call(r, "POST", "/experiments/3").status, 404);
  EXPECT_EQ(call(r, "POST", "/api/v1/x").status, 405);
  EXPECT_EQ(call(r, "GET", "/api/v1/x").body, "{}");
  EXPECT_EQ(guarded, 1);
  EXPECT_EQ(r.table().size(), 1u); // the fallback is not a route
}

TEST(router, a_fallback_that_throws_is_a_500) {
  router r;
  r.set_fallback([](http_request, responder) -> void {
    throw std::runtime_error("boom");
  });
  EXPECT_EQ(call(r, "GET", "/anything").status, 500);
}

// The segment tree must pick what trying every route picks: the handler,
// whether the path is known, the allowed methods in their order, and the
// bound parameters, over random route tables and paths (literals that
// collide after percent-decoding, parameters beside literals at the same
// depth, "{rest*}" of zero or more segments, ties between equal scores).
TEST(router, the_segment_tree_answers_as_the_scan_of_every_route) {
  std::mt19937 rng{20261201};
  const std::vector<std::string> pieces{"a", "b", "%61", "{p}", "{q}"};
  const std::vector<std::string> path_pieces{"a", "b", "c", "%61", "%2F"};
  const std::vector<std::string> methods{"GET", "POST", "DELETE"};
  auto pick = [&](const auto& v) {
    return v[std::uniform_int_distribution<size_t>{0, v.size() - 1}(rng)];
  };
  size_t known = 0, matched = 0, compared = 0;
  for (int table = 0; table < 300; ++table) {
    router r;
    int routes = std::uniform_int_distribution<int>{1, 40}(rng);
    for (int i = 0; i < routes; ++i) {
      std::string pattern;
      int depth = std::uniform_int_distribution<int>{0, 4}(rng);
      for (int d = 0; d < depth; ++d)
        pattern += "/" + pick(pieces);
      if (rng() % 5 == 0)
        pattern += "/{rest*}";
      if (pattern.empty())
        pattern = "/";
      // Duplicates and parameters named twice are refused or kept as
      // the router decides; both matchers see the same table either way.
      r.add(pick(methods), pattern, echo_params());
    }
    for (int q = 0; q < 60; ++q) {
      std::string path;
      int depth = std::uniform_int_distribution<int>{0, 5}(rng);
      for (int d = 0; d < depth; ++d)
        path += "/" + pick(path_pieces);
      if (path.empty())
        path = "/";
      auto method = pick(methods);
      auto tree = r.match(method, path);
      auto scan = r.match_by_scan(method, path);
      ++compared;
      known += scan.path_known ? 1 : 0;
      matched += scan.h != nullptr ? 1 : 0;
      ASSERT_EQ(tree.h, scan.h) << method << " " << path;
      ASSERT_EQ(tree.path_known, scan.path_known) << path;
      ASSERT_EQ(tree.allow, scan.allow) << path;
      ASSERT_EQ(tree.params, scan.params) << path;
    }
  }
  // The random tables must exercise both outcomes, not only misses.
  EXPECT_GT(matched, compared / 10);
  EXPECT_GT(compared - known, compared / 10);
}
