// store/pipelined_read.hpp: items reach the visitor in order across many
// chunks, and the producer fills visited items again in place (their
// strings' storage reused, not allocated anew for every row).

#include "store/pipelined_read.hpp"

#include "messages/errc.hpp"

#include <gtest/gtest.h>

#include <string>

namespace det {
namespace {

TEST(pipelined_read, items_arrive_in_order_and_visited_ones_are_filled_again) {
  constexpr int64_t rows = 20000;
  int64_t produced = 0;
  int64_t reused = 0; // items handed to the producer with storage left
  auto produce = [&](recorded_event& out, bool& done) -> caf::error {
    if (produced == rows) {
      done = true;
      return {};
    }
    if (out.body.payload.capacity() >= 100)
      ++reused;
    ++produced;
    out.position = produced;
    out.body.payload.assign(100, static_cast<char>('a' + produced % 26));
    return {};
  };
  int64_t seen = 0;
  auto visit = [&](recorded_event&& rec) -> caf::error {
    ++seen;
    EXPECT_EQ(rec.position, seen);
    EXPECT_EQ(rec.body.payload,
              std::string(100, static_cast<char>('a' + seen % 26)));
    return {};
  };
  auto err = pipelined_read(produce, visit, [] {});
  ASSERT_FALSE(err) << render(err);
  EXPECT_EQ(seen, rows);
  // At most the chunks in flight (8 queued, one being filled, one being
  // visited: 10 of 512) started without storage.
  EXPECT_GE(reused, rows - 10 * 512);
}

TEST(pipelined_read, a_visitor_that_fails_stops_the_producer) {
  int64_t produced = 0;
  bool stopped = false;
  auto produce = [&](recorded_event& out, bool& done) -> caf::error {
    out.position = ++produced;
    done = produced > 1000000;
    return {};
  };
  auto visit = [&](recorded_event&& rec) -> caf::error {
    if (rec.position == 700)
      return make_error(errc::invalid_event, "stop here");
    return {};
  };
  auto err = pipelined_read(produce, visit, [&] { stopped = true; });
  EXPECT_EQ(code_of(err), errc::invalid_event);
  EXPECT_TRUE(stopped);
  EXPECT_LT(produced, 1000000);
}

} // namespace
} // namespace det
