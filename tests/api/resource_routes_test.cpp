// The resource family's table (api/resource_routes.cpp) as a caller meets
// it: no session is 401 on every row; a window without its bounds is 400
// naming the parameter, on the JSON and the CSV rows alike; the CSV rows
// answer CSV.

#include "api/resource_routes.hpp"
#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace det;
using namespace det::test;

namespace {

using resource_routes = master_api_test;

TEST_F(resource_routes, every_row_refuses_no_session) {
  expect_401_without_a_session(api::resource_routes());
}

TEST_F(resource_routes, a_window_without_bounds_is_400_and_csv_is_csv) {
  for (const char* path :
       {"/api/v1/resources/allocation/raw", "/resources/allocation/raw",
        "/resources/allocation/allocations-csv"}) {
    auto r = call("GET", path);
    EXPECT_EQ(r.status, 400) << path << ": " << r.body;
    EXPECT_EQ(json::parse(r.body)["error"]["error"],
              "timestamp_after: required (YYYY-MM-DDTHH:MM:SSZ)")
        << path;
  }
  auto csv = call("GET", "/resources/allocation/raw?timestamp_after="
                         "2024-05-01T00:00:00Z&timestamp_before="
                         "2024-05-02T00:00:00Z");
  ASSERT_EQ(csv.status, 200) << csv.body;
  EXPECT_EQ(csv.headers.get("Content-Type").value_or(""), "text/csv");
  EXPECT_EQ(csv.body.rfind("experiment_id,kind,username", 0), 0u) << csv.body;
  EXPECT_TRUE(get("/tasks").is_object());
}

} // namespace
