// next_log_batch: which queued events go into one PutLogEvents call.

#include "policy/log_batch.hpp"

#include <gtest/gtest.h>

#include <string>

using det::policy::log_batch_limits;
using det::policy::next_log_batch;
using det::policy::queued_log_event;

namespace {

constexpr int64_t now = 1'750'000'000'000; // ms
constexpr int64_t hour = 3'600'000;

std::deque<queued_log_event> events(size_t n, int64_t ts = now,
                                    size_t message_bytes = 10) {
  std::deque<queued_log_event> q;
  for (size_t i = 0; i < n; ++i)
    q.push_back({ts, std::string(message_bytes, 'x'), "c" + std::to_string(i)});
  return q;
}

} // namespace

TEST(log_batch, at_most_ten_thousand_events_go_in_one_call) {
  auto q = events(10'001);
  auto b = next_log_batch(q, now);
  EXPECT_EQ(b.events.size(), 10'000u);
  EXPECT_EQ(b.consumed, 10'000u);
  EXPECT_EQ(b.cursor, "c9999");
}

TEST(log_batch, bytes_count_each_message_plus_26_up_to_one_mebibyte) {
  // 1000-byte messages: 1026 bytes each; 1048576 / 1026 = 1022 fit.
  auto q = events(2000, now, 1000);
  auto b = next_log_batch(q, now);
  EXPECT_EQ(b.events.size(), 1022u);
  EXPECT_EQ(b.bytes, 1022u * 1026u);
  EXPECT_LE(b.bytes, 1'048'576u);
  // One more would not fit.
  EXPECT_GT(b.bytes + 1026, 1'048'576u);
}

TEST(log_batch, an_event_of_exactly_the_remaining_room_still_fits) {
  log_batch_limits l;
  l.max_bytes = 100;
  std::deque<queued_log_event> q{{now, std::string(24, 'a'), ""},
                                 {now, std::string(24, 'b'), ""},
                                 {now, "c", ""}};
  auto b = next_log_batch(q, now, l);
  EXPECT_EQ(b.events.size(), 2u); // 50 + 50 = 100; the third would be 127
  EXPECT_EQ(b.bytes, 100u);
}

TEST(log_batch, a_batch_never_spans_more_than_24_hours) {
  std::deque<queued_log_event> q{{now - 40 * hour, "old", "c1"},
                                 {now - 7 * hour, "mid", "c2"},
                                 {now - 6 * hour, "new", "c3"}};
  auto first = next_log_batch(q, now);
  ASSERT_EQ(first.events.size(), 1u);
  EXPECT_EQ(first.events[0].message, "old");
  EXPECT_EQ(first.cursor, "c1");
  q.pop_front();
  auto second = next_log_batch(q, now);
  EXPECT_EQ(second.events.size(), 2u);
  EXPECT_EQ(second.cursor, "c3");
}

TEST(log_batch, exactly_24_hours_apart_is_still_one_batch) {
  std::deque<queued_log_event> q{{now - 24 * hour, "a", ""}, {now, "b", ""}};
  EXPECT_EQ(next_log_batch(q, now).events.size(), 2u);
}

TEST(log_batch, events_go_out_in_time_order_and_the_cursor_is_the_last_read) {
  // journald order is not time order (a clock stepped back, or own lines
  // interleaved): the prefix is sorted for the call, the resume point is
  // the last event read.
  std::deque<queued_log_event> q{{now - 5, "b", "c1"},
                                 {now - 9, "a", "c2"},
                                 {now - 1, "c", ""},
                                 {now - 5, "b2", "c3"}};
  auto b = next_log_batch(q, now);
  ASSERT_EQ(b.events.size(), 4u);
  EXPECT_EQ(b.events[0].message, "a");
  EXPECT_EQ(b.events[1].message, "b");
  EXPECT_EQ(b.events[2].message, "b2"); // equal stamps keep their order
  EXPECT_EQ(b.events[3].message, "c");
  EXPECT_EQ(b.cursor, "c3");
}

TEST(log_batch, events_older_than_14_days_are_dropped_and_counted) {
  std::deque<queued_log_event> q{{now - 15 * 24 * hour, "ancient", "c1"},
                                 {now, "fresh", "c2"}};
  auto b = next_log_batch(q, now);
  ASSERT_EQ(b.events.size(), 1u);
  EXPECT_EQ(b.events[0].message, "fresh");
  EXPECT_EQ(b.dropped_too_old, 1u);
  EXPECT_EQ(b.consumed, 2u);
  EXPECT_EQ(b.cursor, "c2");
}

TEST(log_batch, only_too_old_events_consume_the_queue_with_nothing_to_send) {
  std::deque<queued_log_event> q{{now - 20 * 24 * hour, "x", "c1"}};
  auto b = next_log_batch(q, now);
  EXPECT_TRUE(b.events.empty());
  EXPECT_EQ(b.consumed, 1u);
  EXPECT_EQ(b.cursor, "c1");
}

TEST(log_batch, events_more_than_2_hours_ahead_are_stamped_now) {
  std::deque<queued_log_event> q{{now + 3 * hour, "skewed", ""},
                                 {now + hour, "near", ""}};
  auto b = next_log_batch(q, now);
  ASSERT_EQ(b.events.size(), 2u);
  EXPECT_EQ(b.events[0].timestamp_ms, now);
  EXPECT_EQ(b.events[0].message, "skewed");
  EXPECT_EQ(b.events[1].timestamp_ms, now + hour);
  EXPECT_EQ(b.restamped_future, 1u);
}

TEST(log_batch, bad_utf8_is_replaced_empty_becomes_a_dash_long_is_cut) {
  log_batch_limits l;
  l.max_message_bytes = 8;
  std::deque<queued_log_event> q{{now, std::string{"a\xff"}, ""},
                                 {now, "", ""},
                                 {now, std::string(20, 'z'), ""}};
  auto b = next_log_batch(q, now, l);
  ASSERT_EQ(b.events.size(), 3u);
  EXPECT_EQ(b.events[0].message, "a\xEF\xBF\xBD");
  EXPECT_EQ(b.events[1].message, "-");
  EXPECT_EQ(b.events[2].message, std::string(8, 'z'));
  EXPECT_EQ(b.truncated, 1u);
}

TEST(log_batch, an_empty_queue_gives_an_empty_batch) {
  std::deque<queued_log_event> q;
  auto b = next_log_batch(q, now);
  EXPECT_TRUE(b.events.empty());
  EXPECT_EQ(b.consumed, 0u);
}
