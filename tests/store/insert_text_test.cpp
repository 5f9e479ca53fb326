#include "store/insert_text.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

TEST(insert_text, quotes_and_backslashes_are_doubled_inside_an_escape_literal) {
  std::string sql;
  append_sql_literal(sql, "it's a \\u00e9 path\\");
  EXPECT_EQ(sql, "E'it''s a \\\\u00e9 path\\\\'");
}

} // namespace
} // namespace det
