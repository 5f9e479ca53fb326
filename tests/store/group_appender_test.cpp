#include "store/group_appender.hpp"

#include "messages/errc.hpp"
#include "store/memory_event_store.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
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
  std::vector<group_appender::ticket> futs;
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

// A store whose every append_many blocks until the test lets that call
// through, so that the test knows what queued meanwhile.
class turnstile_store : public memory_event_store {
public:
  std::vector<caf::expected<append_result>>
  append_many(const std::vector<append_request>& reqs) override {
    {
      std::unique_lock<std::mutex> lock{mtx};
      batch_sizes.push_back(reqs.size());
      entered.notify_all();
      open.wait(lock, [this] { return passes > 0; });
      --passes;
    }
    return memory_event_store::append_many(reqs);
  }
  void wait_for_calls(size_t n) {
    std::unique_lock<std::mutex> lock{mtx};
    entered.wait(lock, [&] { return batch_sizes.size() >= n; });
  }
  void let_through(int n) {
    std::lock_guard<std::mutex> guard{mtx};
    passes += n;
    open.notify_all();
  }
  std::mutex mtx;
  std::condition_variable entered, open;
  int passes = 0;
  std::vector<size_t> batch_sizes;
};

TEST(group_appender, callers_released_by_a_commit_share_the_next_one) {
  // Callers acknowledged together come back one after another. When the
  // first to come back started a batch of its own, the others missed it
  // and waited a whole commit more (two half batches per flush).
  constexpr int callers = 16;
  turnstile_store store;
  group_appender::options o;
  // Generous bounds: the batch must end because every caller is back, not
  // because a slow sanitized thread missed a gap.
  o.fill_gap = std::chrono::seconds{30};
  o.max_fill_wait = std::chrono::seconds{60};
  o.max_fill_share = 1e9; // the test's commits take no time
  {
    group_appender app{store, o};
    std::mutex mtx;
    std::condition_variable cv;
    int queued = 0, back = 0;
    bool first_back = false, rest_back = false;
    auto signal = [&](int& counter) {
      std::lock_guard<std::mutex> guard{mtx};
      ++counter;
      cv.notify_all();
    };
    auto await = [&](auto pred) {
      std::unique_lock<std::mutex> lock{mtx};
      cv.wait(lock, pred);
    };
    // A first batch of one holds the door while every caller queues its
    // first append behind it: the second batch has them all.
    auto first = app.submit(one("first"));
    store.wait_for_calls(1);
    std::vector<std::thread> ts;
    for (int c = 0; c < callers; ++c)
      ts.emplace_back([&, c] {
        auto stream = "c/" + std::to_string(c);
        auto t = app.submit(one(stream, 0));
        signal(queued);
        auto r = t.get();
        ASSERT_TRUE(r) << render(r.error());
        // Caller 0 comes back first, alone; the others after it queued.
        await([&] { return c == 0 ? first_back : rest_back; });
        t = app.submit(one(stream, 1));
        signal(back);
        r = t.get();
        ASSERT_TRUE(r) << render(r.error());
      });
    await([&] { return queued == callers; });
    store.let_through(100);
    ASSERT_TRUE(first.get());
    {
      std::lock_guard<std::mutex> guard{mtx};
      first_back = true;
      cv.notify_all();
    }
    await([&] { return back == 1; });
    {
      std::lock_guard<std::mutex> guard{mtx};
      rest_back = true;
      cv.notify_all();
    }
    for (auto& t : ts)
      t.join();
    // The third batch's fill woke once, when the last caller came back
    // (or never, when they were all back before it began), not once per
    // caller.
    EXPECT_LE(app.stats().fill_wakeups, 1u);
  }
  EXPECT_EQ(store.batch_sizes, (std::vector<size_t>{1, callers, callers}));
  EXPECT_EQ(*store.last_position(), 1 + 2 * callers);
}

TEST(group_appender, a_lone_caller_after_a_full_batch_is_not_held_long) {
  // The fill wait ends when nobody comes within fill_gap: a caller alone
  // after a batch of many is committed, not kept for max_fill_wait.
  memory_event_store store;
  group_appender::options o;
  o.fill_gap = std::chrono::milliseconds{1};
  o.max_fill_wait = std::chrono::hours{1};
  group_appender app{store, o};
  std::vector<group_appender::ticket> ts;
  for (int i = 0; i < 20; ++i)
    ts.push_back(app.submit(one("s/" + std::to_string(i))));
  for (auto& t : ts)
    ASSERT_TRUE(t.get());
  EXPECT_TRUE(app.submit(one("alone")).get());
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
