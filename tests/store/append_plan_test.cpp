#include "store/append_plan.hpp"

#include "messages/errc.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

int64_t none(const std::string&) {
  return 0;
}

TEST(append_plan, versions_continue_from_the_current_and_the_tentative_ones) {
  tentative_versions tent;
  std::vector<int64_t> v;
  auto current = [](const std::string& s) { return s == "a" ? 5 : 0; };
  append_request r{
      {{"a", {"t", 1, "{}"}}, {"b", {"t", 1, "{}"}}, {"a", {"t", 1, "{}"}}},
      {}};
  ASSERT_FALSE(plan_append(r, current, tent, v));
  EXPECT_EQ(v, (std::vector<int64_t>{6, 1, 7}));
  // A second request of the same batch sees the first one's versions.
  append_request r2{{{"a", {"t", 1, "{}"}}}, {{"a", 7}}};
  ASSERT_FALSE(plan_append(r2, current, tent, v));
  EXPECT_EQ(v, (std::vector<int64_t>{8}));
}

TEST(append_plan, a_refused_request_leaves_the_tentative_versions_alone) {
  tentative_versions tent{{"a", 3}};
  std::vector<int64_t> v;
  append_request conflict{{{"a", {"t", 1, "{}"}}}, {{"a", 2}}};
  auto err = plan_append(conflict, none, tent, v);
  EXPECT_EQ(code_of(err), errc::conflict);
  append_request bad{{{"a", {"t", 1, "{}"}}, {"b", {"t", 1, "nope"}}}, {}};
  EXPECT_EQ(code_of(plan_append(bad, none, tent, v)), errc::invalid_argument);
  EXPECT_EQ(tent, (tentative_versions{{"a", 3}}));
}

TEST(append_plan, each_malformed_event_is_named) {
  struct row {
    new_event ev;
    std::string says;
  };
  std::vector<row> rows{
      {{"", {"t", 1, "{}"}}, "empty stream id"},
      {{"s", {"", 1, "{}"}}, "empty type"},
      {{"s", {"t", 0, "{}"}}, "schema version must be at least 1"},
      {{"s", {"t", 1, "[]"}}, "not a JSON object"},
      {{"s", {"t", 1, "{\"a\":}"}}, "not a JSON object"},
      {{"s", {"t", 1, ""}}, "not a JSON object"},
  };
  for (const auto& r : rows) {
    tentative_versions tent;
    std::vector<int64_t> v;
    auto err = plan_append({{r.ev}, {}}, none, tent, v);
    EXPECT_NE(render(err).find(r.says), std::string::npos)
        << render(err) << " should say " << r.says;
  }
}

TEST(append_plan, checksums_differ_when_one_byte_differs) {
  EXPECT_EQ(checksum("abc"), checksum("abc"));
  EXPECT_NE(checksum("abc"), checksum("abd"));
  EXPECT_EQ(checksum("").size(), 16u);
}

} // namespace
} // namespace det
