// The event_store contract, run against both implementations: the in-memory
// store and PostgreSQL (a fresh database on the test server).

#include "messages/errc.hpp"
#include "messages/events.hpp"
#include "store/memory_event_store.hpp"
#include "store/pg_event_store.hpp"
#include "tests/support/test_pg.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det {
namespace {

using factory = std::function<std::unique_ptr<event_store>()>;

new_event ev(const std::string& stream, const std::string& type,
             nlohmann::json payload = nlohmann::json::object()) {
  return {stream, {type, 1, payload.dump()}};
}

append_request req(std::vector<new_event> evs,
                   std::vector<stream_expectation> exp = {}) {
  return {std::move(evs), std::move(exp)};
}

std::vector<recorded_event> read_all(event_store& s, read_options o = {}) {
  std::vector<recorded_event> out;
  auto err = s.read(o, [&](recorded_event&& r) {
    out.push_back(std::move(r));
    return caf::error{};
  });
  EXPECT_FALSE(err) << render(err);
  return out;
}

class store_contract : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    if (GetParam() == "memory") {
      store = std::make_unique<memory_event_store>();
    } else {
      pg_store_options o;
      o.url = test::fresh_database("store_contract");
      auto s = pg_event_store::open(o);
      ASSERT_TRUE(s) << render(s.error());
      store = std::move(*s);
    }
  }
  std::unique_ptr<event_store> store;
};

TEST_P(store_contract,
       a_decoded_read_hands_over_each_event_decoded_or_why_it_is_not) {
  ASSERT_TRUE(
      store->append(req({to_new_event(master_started{"c", "h", 1, "v"}),
                         {"x/1", {"event_from_the_future", 1, "{}"}},
                         to_new_event(master_started{"c", "h", 2, "v"})})));
  std::vector<int64_t> positions;
  std::vector<std::string> outcomes;
  auto err = store->read_decoded(
      {}, [&](recorded_event&& rec, caf::expected<domain_event>&& e) {
        positions.push_back(rec.position);
        outcomes.push_back(e ? std::to_string(std::get<master_started>(*e).pid)
                             : render(e.error()));
        return caf::error{};
      });
  ASSERT_FALSE(err) << render(err);
  EXPECT_EQ(positions, (std::vector<int64_t>{1, 2, 3}));
  ASSERT_EQ(outcomes.size(), 3u);
  EXPECT_EQ(outcomes[0], "1");
  EXPECT_NE(outcomes[1].find("event_from_the_future"), std::string::npos)
      << outcomes[1];
  EXPECT_EQ(outcomes[2], "2");
  // A visitor's error stops the read and is returned.
  int seen = 0;
  err = store->read_decoded({}, [&](recorded_event&&,
                                    caf::expected<domain_event>&&) {
    return ++seen == 2 ? make_error(errc::conflict, "enough") : caf::error{};
  });
  EXPECT_EQ(code_of(err), errc::conflict);
  EXPECT_EQ(seen, 2);
}

TEST_P(store_contract,
       appended_events_read_back_in_order_with_contiguous_positions) {
  auto a =
      store->append(req({ev("trial/1", "a", {{"x", 1}}), ev("trial/2", "b")}));
  ASSERT_TRUE(a) << render(a.error());
  EXPECT_EQ(a->first_position, 1);
  EXPECT_EQ(a->last_position, 2);
  auto b = store->append(
      req({ev("trial/1", "c", {{"s", "tab\there \\ \"q\" \n it's \\u0041"}})}));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->first_position, 3);
  auto all = read_all(*store);
  ASSERT_EQ(all.size(), 3u);
  for (size_t i = 0; i < all.size(); ++i)
    EXPECT_EQ(all[i].position, static_cast<int64_t>(i + 1));
  EXPECT_EQ(all[0].stream, "trial/1");
  EXPECT_EQ(all[0].stream_version, 1);
  EXPECT_EQ(all[1].stream_version, 1);
  EXPECT_EQ(all[2].stream_version, 2);
  EXPECT_EQ(all[2].body.type, "c");
  EXPECT_EQ(nlohmann::json::parse(all[2].body.payload)["s"],
            "tab\there \\ \"q\" \n it's \\u0041");
  EXPECT_GT(all[0].recorded_at_us, 0);
  EXPECT_EQ(*store->last_position(), 3);
  EXPECT_EQ(*store->stream_version("trial/1"), 2);
  EXPECT_EQ(*store->stream_version("trial/404"), 0);
}

TEST_P(store_contract,
       a_stale_expected_version_is_a_conflict_and_writes_nothing) {
  ASSERT_TRUE(store->append(req({ev("s/1", "a"), ev("s/1", "a")})));
  auto r = store->append(req({ev("s/1", "b"), ev("s/2", "b")}, {{"s/1", 1}}));
  ASSERT_FALSE(r);
  EXPECT_EQ(code_of(r.error()), errc::conflict);
  EXPECT_NE(render(r.error()).find("s/1 is at version 2, expected 1"),
            std::string::npos)
      << render(r.error());
  EXPECT_EQ(read_all(*store).size(), 2u);
  EXPECT_EQ(*store->stream_version("s/2"), 0);
  auto ok = store->append(req({ev("s/1", "b")}, {{"s/1", 2}}));
  ASSERT_TRUE(ok) << render(ok.error());
  EXPECT_EQ(ok->first_position, 3);
}

TEST_P(store_contract, expecting_version_zero_means_the_stream_must_be_new) {
  ASSERT_TRUE(store->append(req({ev("s/new", "a")}, {{"s/new", 0}})));
  auto again = store->append(req({ev("s/new", "a")}, {{"s/new", 0}}));
  ASSERT_FALSE(again);
  EXPECT_EQ(code_of(again.error()), errc::conflict);
}

TEST_P(store_contract,
       one_conflicting_request_in_a_batch_does_not_fail_the_others) {
  std::vector<append_request> batch{
      req({ev("x/1", "a")}, {{"x/1", 0}}),
      req({ev("x/1", "a")}, {{"x/1", 0}}), // conflicts with the first
      req({ev("x/2", "a"), ev("x/1", "b")}, {{"x/1", 1}}),
  };
  auto res = store->append_many(batch);
  ASSERT_EQ(res.size(), 3u);
  ASSERT_TRUE(res[0]);
  ASSERT_FALSE(res[1]);
  EXPECT_EQ(code_of(res[1].error()), errc::conflict);
  ASSERT_TRUE(res[2]) << render(res[2].error());
  EXPECT_EQ(res[0]->first_position, 1);
  EXPECT_EQ(res[2]->first_position, 2);
  EXPECT_EQ(res[2]->last_position, 3);
  auto all = read_all(*store);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[2].stream, "x/1");
  EXPECT_EQ(all[2].stream_version, 2);
}

TEST_P(store_contract, malformed_requests_are_refused_without_writing) {
  auto bad_payload =
      store->append(req({ev("s/1", "a"), {"s/1", {"b", 1, "[1,2]"}}}));
  ASSERT_FALSE(bad_payload);
  EXPECT_EQ(code_of(bad_payload.error()), errc::invalid_argument);
  EXPECT_NE(render(bad_payload.error()).find("not a JSON object"),
            std::string::npos);
  auto not_json = store->append(req({{"s/1", {"b", 1, "{oops"}}}));
  ASSERT_FALSE(not_json);
  auto no_stream = store->append(req({{"", {"b", 1, "{}"}}}));
  ASSERT_FALSE(no_stream);
  EXPECT_NE(render(no_stream.error()).find("empty stream"), std::string::npos);
  auto empty = store->append(req({}));
  ASSERT_FALSE(empty);
  EXPECT_EQ(*store->last_position(), 0);
}

TEST_P(store_contract,
       reads_start_after_a_position_stop_at_another_and_filter_a_stream) {
  for (int i = 0; i < 10; ++i)
    ASSERT_TRUE(store->append(req({ev("s/" + std::to_string(i % 3), "e")})));
  read_options o;
  o.after = 3;
  o.up_to = 8;
  auto mid = read_all(*store, o);
  ASSERT_EQ(mid.size(), 5u);
  EXPECT_EQ(mid.front().position, 4);
  EXPECT_EQ(mid.back().position, 8);
  read_options one;
  one.stream = "s/1";
  auto s1 = read_all(*store, one);
  ASSERT_EQ(s1.size(), 3u);
  for (size_t i = 0; i < s1.size(); ++i)
    EXPECT_EQ(s1[i].stream_version, static_cast<int64_t>(i + 1));
}

TEST_P(store_contract, a_visitor_error_stops_the_read_and_is_returned) {
  for (int i = 0; i < 50; ++i)
    ASSERT_TRUE(store->append(req({ev("s/1", "e")})));
  int seen = 0;
  auto err = store->read({}, [&](recorded_event&& r) {
    ++seen;
    if (r.position == 7)
      return make_error(errc::invalid_event, "stop at 7");
    return caf::error{};
  });
  EXPECT_EQ(code_of(err), errc::invalid_event);
  EXPECT_EQ(seen, 7);
  // The store is still usable afterwards.
  ASSERT_TRUE(store->append(req({ev("s/1", "e")})));
  EXPECT_EQ(read_all(*store).size(), 51u);
}

TEST_P(store_contract,
       read_fields_projects_one_streams_events_of_one_type_in_order) {
  ASSERT_TRUE(store->append(
      req({ev("trial/1", "m",
              {{"kind", "training"}, {"n", 1}, {"o", {{"x", 0.5}}}}),
           ev("trial/2", "m", {{"kind", "other trial"}}),
           ev("trial/1", "placed", {{"kind", "not this type"}}),
           ev("trial/1", "m",
              {{"kind", "tab\there \"q\""}, {"o", {{"y", "\\n"}}}})})));
  std::vector<std::pair<int64_t, std::vector<std::string>>> got;
  auto err = store->read_fields(
      {"trial/1", "m", {"kind", "n", "o"}},
      [&](int64_t position, std::vector<std::string>& values) {
        got.emplace_back(position, values);
        return caf::error{};
      });
  ASSERT_FALSE(err) << render(err);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].first, 1);
  EXPECT_EQ(got[1].first, 4);
  // Each field is its JSON text ("" when absent); parsed, the values are
  // the appended ones (PostgreSQL renders jsonb with its own spacing).
  auto parse = [](const std::string& t) { return nlohmann::json::parse(t); };
  EXPECT_EQ(parse(got[0].second[0]), "training");
  EXPECT_EQ(parse(got[0].second[1]), 1);
  EXPECT_EQ(parse(got[0].second[2]), (nlohmann::json{{"x", 0.5}}));
  EXPECT_EQ(parse(got[1].second[0]), "tab\there \"q\"");
  EXPECT_EQ(got[1].second[1], "");
  EXPECT_EQ(parse(got[1].second[2]), (nlohmann::json{{"y", "\\n"}}));
  // A visitor's error stops the read and is returned; the store is still
  // usable.
  int seen = 0;
  err = store->read_fields({"trial/1", "m", {"kind"}},
                           [&](int64_t, std::vector<std::string>&) {
                             ++seen;
                             return make_error(errc::invalid_event, "stop");
                           });
  EXPECT_EQ(code_of(err), errc::invalid_event);
  EXPECT_EQ(seen, 1);
  EXPECT_EQ(read_all(*store).size(), 4u);
}

TEST_P(store_contract, the_newest_snapshot_at_or_before_a_position_is_loaded) {
  EXPECT_FALSE(store->latest_snapshot(INT64_MAX)->has_value());
  ASSERT_FALSE(store->save_snapshot({10, 1, R"({"n":10})", 0}));
  ASSERT_FALSE(store->save_snapshot({20, 1, R"({"n":20})", 0}));
  ASSERT_FALSE(store->save_snapshot({30, 1, R"({"n":30})", 0}));
  auto newest = store->latest_snapshot(INT64_MAX);
  ASSERT_TRUE(newest && newest->has_value());
  EXPECT_EQ((*newest)->position, 30);
  EXPECT_EQ((*newest)->state, R"({"n":30})");
  auto at25 = store->latest_snapshot(25);
  ASSERT_TRUE(at25 && at25->has_value());
  EXPECT_EQ((*at25)->position, 20);
  ASSERT_FALSE(store->prune_snapshots(2));
  EXPECT_EQ(*store->snapshot_positions(), (std::vector<int64_t>{20, 30}));
  EXPECT_FALSE(store->latest_snapshot(15)->has_value());
}

INSTANTIATE_TEST_SUITE_P(both, store_contract,
                         ::testing::Values("memory", "postgres"));

TEST(memory_store, a_corrupt_snapshot_is_reported_with_its_position) {
  memory_event_store s;
  ASSERT_FALSE(s.save_snapshot({5, 1, R"({"n":5})", 0}));
  s.corrupt_snapshot(5);
  auto snap = s.latest_snapshot(INT64_MAX);
  ASSERT_FALSE(snap);
  EXPECT_EQ(code_of(snap.error()), errc::corrupt_snapshot);
  EXPECT_NE(render(snap.error()).find("position 5"), std::string::npos);
}

} // namespace
} // namespace det
