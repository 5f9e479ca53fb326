// det-inspect's aligned tables.

#include "inspect/table.hpp"

#include <gtest/gtest.h>

using namespace det::inspection;
using nlohmann::json;

TEST(table, columns_are_padded_to_the_widest_cell_and_numbers_right_aligned) {
  auto text = format_table({"ID", "NAME", "SLOTS"},
                           {{"1", "a", "4"}, {"12", "longer", "16"}},
                           {true, false, true});
  EXPECT_EQ(text, "ID  NAME    SLOTS\n"
                  " 1  a           4\n"
                  "12  longer     16\n");
}

TEST(table, the_last_left_aligned_column_has_no_trailing_spaces) {
  auto text = format_table({"A", "B"}, {{"x", "y"}, {"xx", "yyyy"}});
  EXPECT_EQ(text, "A   B\nx   y\nxx  yyyy\n");
}

TEST(table, width_counts_utf8_characters_not_bytes) {
  auto text = format_table({"N", "X"}, {{"é", "1"}, {"ab", "2"}});
  EXPECT_EQ(text, "N   X\né   1\nab  2\n");
}

TEST(table, cells_render_json_values) {
  EXPECT_EQ(cell_text(json{}), "-");
  EXPECT_EQ(cell_text(true), "yes");
  EXPECT_EQ(cell_text(false), "no");
  EXPECT_EQ(cell_text(42), "42");
  EXPECT_EQ(cell_text(0.125), "0.125");
  EXPECT_EQ(cell_text("two\nlines"), "two lines");
  EXPECT_EQ(cell_text(""), "-");
  EXPECT_EQ(cell_text(json{{"a", 1}}), "{\"a\":1}");
}

TEST(table, rows_use_column_keys_and_show_missing_as_dash) {
  json rows = json::array(
      {{{"id", 1}, {"state", "ACTIVE"}}, {{"id", 20}, {"state", nullptr}}});
  auto text = format_rows(
      rows, {{"id", "ID"}, {"state", "STATE"}, {"absent", "ABSENT"}});
  EXPECT_EQ(text, "ID  STATE   ABSENT\n"
                  " 1  ACTIVE       -\n"
                  "20  -            -\n");
  EXPECT_EQ(format_rows(json::array(), {{"id", "ID"}}), "(none)\n");
}

TEST(table, truncate_cuts_with_an_ellipsis) {
  EXPECT_EQ(det::inspection::truncate("abcdef", 10), "abcdef");
  EXPECT_EQ(det::inspection::truncate("abcdefghijkl", 8), "abcde...");
}
