#include "store/copy_text.hpp"

#include "messages/errc.hpp"

#include <gtest/gtest.h>

#include <charconv>
#include <iterator>
#include <random>
#include <string>
#include <vector>

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

// The reader hands parse_event_line the same recorded_event row after row
// (store/pipelined_read.hpp): each row must read as split_copy_line reads
// it, whatever the row before left in the event.
TEST(copy_text,
     rows_parsed_into_a_reused_event_read_as_split_copy_line_reads_them) {
  std::mt19937_64 rng{5};
  auto pick = [&](size_t n) {
    return std::uniform_int_distribution<size_t>{0, n - 1}(rng);
  };
  const std::string pieces[] = {"1",    "42",  "-3",  "x",    "\\N",
                                "",     "a",   "\\t", "\\\\", "\\101",
                                "\\x4", "\\n", "{}",  "\\",   "trial/7"};
  auto field = [&] {
    std::string f;
    auto n = pick(4);
    for (size_t k = 0; k < n; ++k)
      f += pieces[pick(std::size(pieces))];
    if (pick(50) == 0)
      f += std::string(70000 + pick(1000), 'p'); // past the kept capacity
    return f;
  };
  recorded_event reused;
  for (int k = 0; k < 10000; ++k) {
    auto fields = pick(10) == 0 ? pick(9) + 1 : 7;
    std::string line;
    for (size_t i = 0; i < fields; ++i) {
      if (i)
        line += '\t';
      // Mostly numbers where numbers go, so most rows are taken.
      bool number = i == 0 || i == 2 || i == 4 || i == 6;
      line += number && pick(4) != 0 ? std::to_string(pick(100000)) : field();
    }
    if (pick(2) == 0)
      line += '\n';
    SCOPED_TRACE(line.substr(0, 200));
    recorded_event fresh;
    auto err_fresh = parse_event_line(line, fresh);
    auto err_reused = parse_event_line(line, reused);
    ASSERT_EQ(render(err_fresh), render(err_reused));
    // The reference: split_copy_line's fields.
    std::vector<std::string> f;
    std::vector<bool> nulls;
    split_copy_line(line, f, nulls);
    if (f.size() != 7) {
      EXPECT_TRUE(err_fresh);
      continue;
    }
    auto integer = [](const std::string& t, int64_t& out) {
      auto r = std::from_chars(t.data(), t.data() + t.size(), out);
      return r.ec == std::errc{} && r.ptr == t.data() + t.size();
    };
    int64_t position = 0, version = 0, schema = 0, at = 0;
    bool ok = integer(f[0], position) && integer(f[2], version)
              && integer(f[4], schema);
    EXPECT_EQ(ok, !err_fresh);
    if (!ok)
      continue;
    if (!integer(f[6], at))
      at = 0;
    for (const auto* rec : {&fresh, &reused}) {
      EXPECT_EQ(rec->position, position);
      EXPECT_EQ(rec->stream, f[1]);
      EXPECT_EQ(rec->stream_version, version);
      EXPECT_EQ(rec->body.type, f[3]);
      EXPECT_EQ(rec->body.schema_version, static_cast<int32_t>(schema));
      EXPECT_EQ(rec->body.payload, f[5]);
      EXPECT_EQ(rec->recorded_at_us, at);
    }
    // A large payload's storage is not kept for the rows after it.
    if (f[5].size() < (64 << 10))
      EXPECT_LE(reused.body.payload.capacity(), size_t{64 << 10});
  }
}

} // namespace
} // namespace det
