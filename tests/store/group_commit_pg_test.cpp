// Group commit against a real PostgreSQL with many concurrent callers: an
// acknowledged append is already committed (another session sees it when
// its caller is told), positions run 1..N without a gap, and each caller's
// events are in the log in the order it appended them.

#include "messages/errc.hpp"
#include "store/group_appender.hpp"
#include "store/pg_event_store.hpp"
#include "tests/support/test_pg.hpp"

#include <pqxx/pqxx>

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace det {
namespace {

struct acked {
  std::string stream;
  int64_t first, last, version;
};

TEST(group_commit_pg,
     acknowledged_appends_of_concurrent_callers_are_committed_and_in_order) {
  auto url = test::fresh_database("group_commit_pg");
  pg_store_options o;
  o.url = url;
  auto store = pg_event_store::open(o);
  ASSERT_TRUE(store) << render(store.error());
  constexpr int callers = 12, appends = 40;
  std::mutex mtx;
  std::vector<acked> acks;
  {
    group_appender app{**store};
    std::vector<std::thread> ts;
    for (int c = 0; c < callers; ++c)
      ts.emplace_back([&, c] {
        // A session of the caller's own: what it sees was committed.
        pqxx::connection peer{url};
        auto stream = "caller/" + std::to_string(c);
        int64_t version = 0, seq = 0;
        for (int a = 0; a < appends; ++a) {
          append_request req;
          auto n = 1 + (c + a) % 2;
          for (int i = 0; i < n; ++i)
            req.events.push_back(
                {stream, {"tick", 1, nlohmann::json{{"seq", ++seq}}.dump()}});
          req.expected.push_back({stream, version});
          auto res = app.submit(std::move(req)).get();
          ASSERT_TRUE(res) << render(res.error());
          version += n;
          ASSERT_EQ(res->last_position - res->first_position + 1, n);
          pqxx::read_transaction tx{peer};
          auto r = tx.exec("SELECT stream_id, stream_version FROM events "
                           "WHERE position = "
                           + std::to_string(res->last_position));
          ASSERT_EQ(r.size(), 1u)
              << "acknowledged position " << res->last_position
              << " is not visible to another session";
          EXPECT_EQ(r[0][0].as<std::string>(), stream);
          EXPECT_EQ(r[0][1].as<int64_t>(), version);
          std::lock_guard<std::mutex> guard{mtx};
          acks.push_back(
              {stream, res->first_position, res->last_position, version});
        }
      });
    for (auto& t : ts)
      t.join();
    EXPECT_GT(app.stats().requests, app.stats().batches)
        << "no two appends ever shared a commit";
  }
  store->reset();

  o.lock = lock_policy::reader;
  auto reader = pg_event_store::open(o);
  ASSERT_TRUE(reader) << render(reader.error());
  int64_t expect_pos = 1;
  std::map<std::string, std::pair<int64_t, int64_t>> last_of; // version, seq
  std::map<int64_t, std::pair<std::string, int64_t>> by_pos;
  auto err = (*reader)->read({}, [&](recorded_event&& r) {
    EXPECT_EQ(r.position, expect_pos) << "gap or disorder in positions";
    expect_pos = r.position + 1;
    auto& [v, seq] = last_of[r.stream];
    EXPECT_EQ(r.stream_version, v + 1) << r.stream;
    auto s = nlohmann::json::parse(r.body.payload).at("seq").get<int64_t>();
    EXPECT_EQ(s, seq + 1) << r.stream << " out of its caller's order";
    v = r.stream_version;
    seq = s;
    by_pos[r.position] = {r.stream, r.stream_version};
    return caf::error{};
  });
  ASSERT_FALSE(err) << render(err);
  EXPECT_EQ(last_of.size(), static_cast<size_t>(callers));
  ASSERT_EQ(acks.size(), static_cast<size_t>(callers * appends));
  int64_t total = 0;
  for (const auto& [s, vs] : last_of)
    total += vs.first;
  EXPECT_EQ(expect_pos - 1, total);
  for (const auto& a : acks) {
    for (auto p = a.first; p <= a.last; ++p)
      EXPECT_EQ(by_pos[p].first, a.stream) << "position " << p;
    EXPECT_EQ(by_pos[a.last].second, a.version);
  }
}

} // namespace
} // namespace det
