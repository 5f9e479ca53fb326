// pg_snapshot_writer against a real PostgreSQL: what it saves reads back
// through the event store byte for byte, old snapshots go, a lost
// connection is made again, and a snapshot held up by the database holds
// up no append (it has a connection of its own).

#include "messages/errc.hpp"
#include "store/pg_event_store.hpp"
#include "store/pg_snapshot_writer.hpp"
#include "tests/support/test_pg.hpp"

#include <pqxx/pqxx>

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>

namespace det {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<pg_event_store> open_store(const std::string& url) {
  pg_store_options o;
  o.url = url;
  auto store = pg_event_store::open(o);
  EXPECT_TRUE(store) << render(store.error());
  return store ? std::move(*store) : nullptr;
}

snapshot snap_at(int64_t position, std::string text) {
  snapshot s;
  s.position = position;
  s.state = std::move(text);
  return s;
}

TEST(snapshot_writer_pg, a_saved_snapshot_reads_back_verbatim_and_old_ones_go) {
  auto url = test::fresh_database("snapshot_writer_pg_a");
  auto store = open_store(url);
  ASSERT_TRUE(store);
  pg_snapshot_writer w{url};
  // Quotes, backslashes, dollar quoting and non-ASCII pass as they are.
  std::string tricky = R"({"a":"it's \\ $$x$$ \"q\" é 世界"})";
  for (int64_t p = 1; p <= 5; ++p)
    ASSERT_FALSE(w.save(snap_at(p * 10, tricky + std::to_string(p)), 3));
  auto positions = store->snapshot_positions();
  ASSERT_TRUE(positions);
  EXPECT_EQ(*positions, (std::vector<int64_t>{30, 40, 50}));
  auto latest = store->latest_snapshot(45);
  ASSERT_TRUE(latest) << render(latest.error());
  ASSERT_TRUE(latest->has_value());
  EXPECT_EQ((*latest)->position, 40);
  EXPECT_EQ((*latest)->state, tricky + "4");
  // The same position again replaces it.
  ASSERT_FALSE(w.save(snap_at(50, "{}"), 3));
  latest = store->latest_snapshot(50);
  ASSERT_TRUE(latest && latest->has_value());
  EXPECT_EQ((*latest)->state, "{}");
}

TEST(snapshot_writer_pg, a_lost_connection_is_made_again_at_the_next_save) {
  auto url = test::fresh_database("snapshot_writer_pg_b");
  auto store = open_store(url);
  ASSERT_TRUE(store);
  pg_snapshot_writer w{url};
  ASSERT_FALSE(w.save(snap_at(1, "{}"), 3));
  {
    pqxx::connection admin{url};
    pqxx::nontransaction tx{admin};
    auto r =
        tx.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                "datname = current_database() AND application_name = "
                + tx.quote(snapshot_session_name));
    ASSERT_EQ(r.size(), 1u) << "the writer's session is not named";
  }
  // The first save after the loss may fail, naming what it did; the next
  // one connects again.
  auto first = w.save(snap_at(2, "{}"), 3);
  if (first)
    EXPECT_NE(render(first).find("snapshot"), std::string::npos)
        << render(first);
  ASSERT_FALSE(w.save(snap_at(3, "{}"), 3));
  auto latest = store->latest_snapshot(100);
  ASSERT_TRUE(latest && latest->has_value());
  EXPECT_EQ((*latest)->position, 3);
}

TEST(snapshot_writer_pg,
     a_snapshot_held_up_in_the_database_holds_up_no_append) {
  auto url = test::fresh_database("snapshot_writer_pg_c");
  auto store = open_store(url);
  ASSERT_TRUE(store);
  pg_snapshot_writer w{url};
  // Another session locks the snapshots table: the save waits on it.
  pqxx::connection locker{url};
  pqxx::work lock_tx{locker};
  lock_tx.exec("LOCK TABLE snapshots IN ACCESS EXCLUSIVE MODE");
  auto saved = std::async(std::launch::async,
                          [&] { return w.save(snap_at(1, "{}"), 3); });
  EXPECT_EQ(saved.wait_for(300ms), std::future_status::timeout)
      << "the lock did not hold the save up: the test shows nothing";
  // Meanwhile the log takes appends.
  append_request req;
  req.events.push_back({"s", {"tick", 1, "{}"}});
  req.expected.push_back({"s", 0});
  auto appended =
      std::async(std::launch::async, [&] { return store->append(req); });
  auto status = appended.wait_for(10s);
  lock_tx.abort();
  ASSERT_EQ(status, std::future_status::ready)
      << "an append waited behind the snapshot";
  auto res = appended.get();
  ASSERT_TRUE(res) << render(res.error());
  EXPECT_EQ(res->last_position, 1);
  ASSERT_FALSE(saved.get());
}

} // namespace
} // namespace det
