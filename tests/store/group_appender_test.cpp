#include "store/group_appender.hpp"

#include "messages/errc.hpp"
#include "store/memory_event_store.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <thread>

namespace det {
namespace {

// A store whose first append_many blocks until released, so that requests
// submitted meanwhile are known to queue behind it.
class gated_store : public memory_event_store {
public:
  std::vector<caf::expected<append_result>>
  append_many(const std::vector<append_request>& reqs) override {
    {
      std::unique_lock<std::mutex> lock{mtx};
      ++calls;
      batch_sizes.push_back(reqs.size());
      entered.notify_all();
      open.wait(lock, [this] { return released; });
    }
    return memory_event_store::append_many(reqs);
  }
  void wait_for_calls(int n) {
    std::unique_lock<std::mutex> lock{mtx};
    entered.wait(lock, [&] { return calls >= n; });
  }
  void release() {
    std::lock_guard<std::mutex> guard{mtx};
    released = true;
    open.notify_all();
  }
  std::mutex mtx;
  std::condition_variable entered, open;
  bool released = false;
  int calls = 0;
  std::vector<size_t> batch_sizes;
};

append_request one(const std::string& stream,
                   std::optional<int64_t> expect = std::nullopt) {
  append_request r{{{stream, {"e", 1, "{}"}}}, {}};
  if (expect)
    r.expected.push_back({stream, expect});
  return r;
}

TEST(group_appender, requests_queued_during_a_commit_share_the_next_one) {
  gated_store store;
  std::vector<std::future<caf::expected<append_result>>> futs;
  {
    group_appender app{store};
    futs.push_back(app.submit(one("s/0")));
    store.wait_for_calls(1); // the first batch is committing
    for (int i = 1; i <= 50; ++i)
      futs.push_back(app.submit(one("s/" + std::to_string(i))));
    store.release();
    for (auto& f : futs)
      ASSERT_TRUE(f.get());
    auto st = app.stats();
    EXPECT_EQ(st.batches, 2u);
    EXPECT_EQ(st.requests, 51u);
  }
  EXPECT_EQ(store.batch_sizes, (std::vector<size_t>{1, 50}));
  EXPECT_EQ(*store.last_position(), 51);
}

TEST(group_appender, a_conflict_fails_only_its_own_caller) {
  memory_event_store store;
  group_appender app{store};
  auto a = app.submit(one("s/1", 0));
  auto b = app.submit(one("s/1", 0));
  auto c = app.submit(one("s/2", 0));
  auto ra = a.get(), rb = b.get(), rc = c.get();
  EXPECT_TRUE(ra);
  ASSERT_FALSE(rb);
  EXPECT_EQ(code_of(rb.error()), errc::conflict);
  EXPECT_TRUE(rc);
}

TEST(group_appender, a_failed_commit_reports_every_caller_of_the_batch) {
  memory_event_store store;
  store.fail_next_append();
  group_appender app{store};
  auto r = app.submit(one("s/1")).get();
  ASSERT_FALSE(r);
  EXPECT_EQ(code_of(r.error()), errc::store_unavailable);
  EXPECT_TRUE(app.submit(one("s/1")).get());
}

TEST(group_appender,
     many_threads_get_contiguous_positions_and_gapless_streams) {
  memory_event_store store;
  constexpr int threads = 16, per_thread = 200;
  {
    group_appender app{store};
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t)
      ts.emplace_back([&app, t] {
        auto stream = "t/" + std::to_string(t);
        for (int i = 0; i < per_thread; ++i) {
          auto r = app.submit(one(stream, i)).get();
          ASSERT_TRUE(r) << render(r.error());
        }
      });
    for (auto& t : ts)
      t.join();
  }
  EXPECT_EQ(*store.last_position(), threads * per_thread);
  for (int t = 0; t < threads; ++t)
    EXPECT_EQ(*store.stream_version("t/" + std::to_string(t)), per_thread);
}

TEST(group_appender, posted_tasks_run_in_order_with_appends) {
  memory_event_store store;
  int64_t seen = -1;
  {
    group_appender app{store};
    app.submit(one("s/1"), [](caf::expected<append_result>) {});
    app.post([&seen](event_store& s) { seen = *s.last_position(); });
  }
  EXPECT_EQ(seen, 1);
}

} // namespace
} // namespace det
