#include "store/copy_text.hpp"

#include "messages/errc.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

TEST(copy_text, escapes_are_undone_and_null_is_marked) {
  std::vector<std::string> f;
  std::vector<bool> nulls;
  split_copy_line("a\\tb\t\\N\tback\\\\slash\\n\t\\101\\x42", f, nulls);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0], "a\tb");
  EXPECT_TRUE(nulls[1]);
  EXPECT_EQ(f[2], "back\\slash\n");
  EXPECT_EQ(f[3], "AB");
}

TEST(copy_text, an_event_row_is_parsed_into_its_fields) {
  recorded_event rec;
  auto err = parse_event_line("42\ttrial/7\t3\ttrial_created\t1\t{\"a\": "
                              "\"x\\\\\\\\y\"}\t1700000000000000",
                              rec);
  ASSERT_FALSE(err) << render(err);
  EXPECT_EQ(rec.position, 42);
  EXPECT_EQ(rec.stream, "trial/7");
  EXPECT_EQ(rec.stream_version, 3);
  EXPECT_EQ(rec.body.type, "trial_created");
  EXPECT_EQ(rec.body.schema_version, 1);
  EXPECT_EQ(rec.body.payload, "{\"a\": \"x\\\\y\"}");
  EXPECT_EQ(rec.recorded_at_us, 1700000000000000);
}

TEST(copy_text, a_row_with_a_bad_number_or_too_few_fields_is_refused) {
  recorded_event rec;
  EXPECT_EQ(code_of(parse_event_line("x\ts\t1\tt\t1\t{}\t0", rec)),
            errc::invalid_event);
  EXPECT_EQ(code_of(parse_event_line("1\ts\t1", rec)), errc::invalid_event);
}

TEST(copy_text, a_written_row_reads_back_field_for_field) {
  new_event ev{"trial/\\7\tx",
               {"trial_created", 2, "{\"a\":\"l1\\nl2\ttab\r\\\\\"}\n"}};
  std::string line;
  append_copy_row(line, 42, ev, 3);
  EXPECT_EQ(line.find('\n'), std::string::npos) << "a row is one line";
  recorded_event rec;
  auto err = parse_event_line(line + "\t0", rec);
  ASSERT_FALSE(err) << render(err);
  EXPECT_EQ(rec.position, 42);
  EXPECT_EQ(rec.stream, ev.stream);
  EXPECT_EQ(rec.stream_version, 3);
  EXPECT_EQ(rec.body.type, ev.body.type);
  EXPECT_EQ(rec.body.schema_version, 2);
  EXPECT_EQ(rec.body.payload, ev.body.payload);
}

} // namespace
} // namespace det
