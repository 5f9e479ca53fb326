#include "store/insert_text.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

TEST(insert_text, quotes_and_backslashes_are_doubled_inside_an_escape_literal) {
  std::string sql;
  append_sql_literal(sql, "it's a \\u00e9 path\\");
  EXPECT_EQ(sql, "E'it''s a \\\\u00e9 path\\\\'");
}

TEST(insert_text, rows_follow_the_prefix_separated_by_commas) {
  std::string sql;
  append_insert_prefix(sql);
  new_event ev{"trial/1", {"trial_created", 2, "{\"a\":\"b'c\"}"}};
  append_insert_row(sql, 7, ev, 3);
  append_insert_row(sql, 8, ev, 4);
  EXPECT_EQ(sql, "INSERT INTO events (position, stream_id, stream_version, "
                 "type, schema_version, payload) VALUES "
                 "(7,E'trial/1',3,E'trial_created',2,E'{\"a\":\"b''c\"}'),"
                 "(8,E'trial/1',4,E'trial_created',2,E'{\"a\":\"b''c\"}')");
}

} // namespace
} // namespace det
