#include "api/views_cluster.hpp"
#include "read/read_model.hpp"
#include "read/replica.hpp"
#include "tests/state/command_generator.hpp"
#include "tests/support/gunzip.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

using namespace det;
using namespace std::chrono_literals;

namespace {

/// The master's side: a state that random events are applied to, as
/// master_core applies what it decides.
struct log_writer {
  state::cluster_state st;
  state::test::command_generator gen{7};

  std::vector<domain_event> next_batch(size_t n) {
    std::vector<domain_event> out;
    for (size_t i = 0; i < n; ++i) {
      auto ev = gen.next(st);
      recorded_event meta;
      meta.position = st.position + 1;
      meta.stream = stream_of(ev);
      EXPECT_FALSE(state::apply(st, meta, ev));
      out.push_back(std::move(ev));
    }
    return out;
  }
};

struct answer {
  bool served = false;
  int64_t position = 0;
  std::string text;
};

/// Runs `render` on the model at min_position and waits for the answer.
answer read_at(read::read_model& m, int64_t min_position,
               std::function<std::string(const read::read_view&)> render,
               std::chrono::milliseconds timeout = 10s) {
  std::promise<answer> p;
  auto f = p.get_future();
  auto shared = std::make_shared<std::promise<answer>>(std::move(p));
  m.read(
      min_position, std::chrono::steady_clock::now() + timeout,
      [shared, render](const read::read_view& v) {
        shared->set_value({true, v.position, render(v)});
      },
      [shared](int64_t pos, const std::string& why) {
        shared->set_value({false, pos, why});
      });
  return f.get();
}

read::read_options replicas(size_t n) {
  read::read_options ro;
  ro.replicas = n;
  return ro;
}

/// The next batch of `n` events, published once "durable" (the position is
/// read after the batch is made).
void publish(read::read_model& model, log_writer& master, size_t n) {
  auto batch = master.next_batch(n);
  model.publish(std::move(batch), master.st.position);
}

} // namespace

TEST(read_model,
     a_replica_fed_the_durable_events_equals_the_master_at_each_position) {
  log_writer master;
  read::read_model model{master.st, replicas(1)};
  for (int round = 0; round < 60; ++round) {
    auto batch = master.next_batch(1 + static_cast<size_t>(round % 5));
    model.publish(batch, master.st.position);
    auto expected = state::to_snapshot(master.st).dump();
    auto got = read_at(model, master.st.position, [](const read::read_view& v) {
      return state::to_snapshot(v.state).dump();
    });
    ASSERT_TRUE(got.served) << got.text;
    EXPECT_EQ(got.position, master.st.position);
    ASSERT_EQ(got.text, expected) << "round " << round;
  }
}

TEST(read_model,
     a_read_that_names_a_later_position_waits_for_it_and_sees_the_write) {
  log_writer master;
  read::read_options one;
  one.replicas = 1;
  read::read_model model{master.st, one};
  auto first = master.next_batch(3);
  model.publish(first, master.st.position);
  auto target = master.st.position + 2;

  std::promise<answer> waiting;
  auto waited = waiting.get_future();
  model.read(
      target, std::chrono::steady_clock::now() + 30s,
      [&waiting](const read::read_view& v) {
        waiting.set_value({true, v.position, ""});
      },
      [&waiting](int64_t pos, const std::string& why) {
        waiting.set_value({false, pos, why});
      });
  // A read queued behind it on the same replica is answered: the first one
  // had its turn and is still waiting for `target`.
  auto later = read_at(model, 0, [](const read::read_view&) { return ""; });
  ASSERT_TRUE(later.served);
  EXPECT_EQ(waited.wait_for(0s), std::future_status::timeout);

  auto second = master.next_batch(2);
  model.publish(second, master.st.position);
  auto got = waited.get();
  ASSERT_TRUE(got.served);
  EXPECT_GE(got.position, target);
}

TEST(read_model, a_read_whose_position_never_comes_is_refused_at_its_deadline) {
  log_writer master;
  read::read_model model{master.st, replicas(2)};
  publish(model, master, 2);
  auto got = read_at(
      model, master.st.position + 100,
      [](const read::read_view&) { return "served"; }, 50ms);
  EXPECT_FALSE(got.served);
  EXPECT_NE(got.text.find("did not reach position "
                          + std::to_string(master.st.position + 100)),
            std::string::npos)
      << got.text;
}

TEST(read_model, stopping_the_model_refuses_the_reads_still_waiting) {
  log_writer master;
  std::promise<answer> p;
  auto f = p.get_future();
  {
    read::read_model model{master.st, replicas(1)};
    model.read(
        5, std::chrono::steady_clock::now() + 1h,
        [&p](const read::read_view&) {
          p.set_value({true, 0, ""});
        },
        [&p](int64_t pos, const std::string& why) {
          p.set_value({false, pos, why});
        });
  }
  auto got = f.get();
  EXPECT_FALSE(got.served);
  EXPECT_NE(got.text.find("stopped"), std::string::npos);
}

TEST(read_model, rendered_rows_equal_fresh_renders_after_random_events) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    log_writer master;
    master.gen = state::test::command_generator{seed};
    read::read_model model{master.st, replicas(1)};
    for (int round = 0; round < 150; ++round) {
      publish(model, master, 1 + static_cast<size_t>(round % 3));
      api::page all;
      api::page some{1, 3};
      // Each page read twice: the second answer is the one kept (until a
      // row of its kind changes).
      auto read_pages = [&](const read::read_view& v) {
        return *api::experiments_page_text(v, {}, all) + "\n"
               + *api::experiments_page_text(v, {}, some) + "\n"
               + *api::agents_page_text(v, all) + "\n"
               + *api::agents_page_text(v, some);
      };
      auto got = read_at(model, master.st.position, read_pages);
      ASSERT_TRUE(got.served);
      auto again = read_at(model, master.st.position, read_pages);
      ASSERT_EQ(again.text, got.text);
      auto fresh = api::experiments_page(master.st, {}, all).dump() + "\n"
                   + api::experiments_page(master.st, {}, some).dump() + "\n"
                   + api::agents_response(master.st, all).dump() + "\n"
                   + api::agents_response(master.st, some).dump();
      ASSERT_EQ(got.text, fresh) << "seed " << seed << " round " << round;
      // The same pages gzip-coded, joined from the rows' compressed bytes.
      auto gz = api::body_coding::gzip;
      auto coded =
          read_at(model, master.st.position, [&](const read::read_view& v) {
            return test::gunzip(*api::experiments_page_text(v, {}, all, gz))
                   + "\n"
                   + test::gunzip(*api::experiments_page_text(v, {}, some, gz))
                   + "\n" + test::gunzip(*api::agents_page_text(v, all, gz))
                   + "\n" + test::gunzip(*api::agents_page_text(v, some, gz));
          });
      ASSERT_EQ(coded.text, fresh) << "seed " << seed << " round " << round;
    }
    EXPECT_GT(master.st.experiments.size(), 0u);
    EXPECT_GT(master.st.agents.size(), 0u);
  }
}

TEST(read_model, a_row_is_rendered_once_until_its_record_changes) {
  log_writer master;
  read::read_model model{master.st, replicas(1)};
  while (master.st.experiments.size() < 3)
    publish(model, master, 1);
  int renders = 0;
  auto count = [&renders](const read::read_view& v) {
    for (const auto& [id, e] : v.state.experiments)
      v.rows.experiment(id, [&] {
        ++renders;
        return std::string{"x"};
      });
    return std::string{};
  };
  read_at(model, master.st.position, count);
  auto first = renders;
  EXPECT_EQ(first, static_cast<int>(master.st.experiments.size()));
  read_at(model, master.st.position, count);
  EXPECT_EQ(renders, first);
}

TEST(read_model, the_last_owner_may_let_go_from_inside_a_read) {
  // A read's function can hold the last reference to what owns the model
  // (a route's context); the model then ends on its own replica's thread,
  // which must neither join itself nor crash.
  log_writer master;
  std::promise<void> destroyed;
  auto gone = destroyed.get_future();
  std::shared_ptr<read::read_model> model{
      new read::read_model{master.st, replicas(2)},
      [&destroyed](read::read_model* m) {
        delete m;
        destroyed.set_value();
      }};
  auto* raw = model.get();
  std::promise<int64_t> served;
  auto at = served.get_future();
  raw->read(
      0, std::chrono::steady_clock::now() + 10s,
      [owner = std::move(model), &served](const read::read_view& v) {
        served.set_value(v.position);
      },
      [](int64_t, const std::string&) {});
  EXPECT_EQ(at.get(), 0);
  EXPECT_EQ(gone.wait_for(10s), std::future_status::ready);
}

// Whoever sees a batch on any replica must find published_position() at
// least that far: a request that learned of an allocation from one replica
// and then reads another at published_position() would otherwise be served
// a state from before it (the allocation token refused as unknown). Reads
// wait on every replica for the next position, so each sees the batch the
// moment its replica applies it, racing the publisher.
TEST(read_model,
     a_batch_seen_on_any_replica_is_already_the_published_position) {
  log_writer master;
  read::read_options four;
  four.replicas = 4;
  read::read_model model{master.st, four};
  std::atomic<int> behind{0};
  for (int round = 0; round < 300; ++round) {
    auto next = master.st.position + 1;
    std::vector<std::future<answer>> seen;
    for (size_t r = 0; r < four.replicas; ++r) {
      auto p = std::make_shared<std::promise<answer>>();
      seen.push_back(p->get_future());
      model.read(
          next, std::chrono::steady_clock::now() + 10s,
          [p, &model, &behind](const read::read_view& v) {
            if (model.published_position() < v.position)
              ++behind;
            p->set_value({true, v.position, ""});
          },
          [p](int64_t pos, const std::string& why) {
            p->set_value({false, pos, why});
          });
    }
    publish(model, master, 1);
    for (auto& f : seen)
      ASSERT_TRUE(f.get().served);
  }
  EXPECT_EQ(behind.load(), 0)
      << "reads saw a batch before it was the published position";
}

namespace {

/// What the snapshot function saw, in order, and on which thread.
struct snapshots_seen {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::pair<int64_t, std::string>> states; ///< position, text
  std::vector<std::thread::id> threads;
  /// Snapshots finished (read_options::snapshot_taken), and what each
  /// reported: position, time taken, when the next may come.
  size_t taken = 0;
  std::vector<std::array<int64_t, 3>> reports;

  void wait_taken(size_t n) {
    std::unique_lock<std::mutex> lock{mu};
    ASSERT_TRUE(cv.wait_for(lock, 10s, [&] { return taken >= n; }))
        << "only " << taken << " snapshots finished of " << n;
  }

  void wait_for(size_t n) {
    std::unique_lock<std::mutex> lock{mu};
    ASSERT_TRUE(cv.wait_for(lock, 10s, [&] { return states.size() >= n; }))
        << "only " << states.size() << " snapshots of " << n;
  }
};

} // namespace

TEST(
    read_model,
    snapshots_come_every_n_events_from_a_thread_of_their_own_at_the_batch_end) {
  log_writer master;
  auto seen = std::make_shared<snapshots_seen>();
  auto ro = replicas(1);
  ro.snapshot_every = 3;
  ro.snapshot = [seen](const state::cluster_state& s) {
    std::lock_guard<std::mutex> guard{seen->mu};
    seen->states.emplace_back(s.position, state::to_snapshot(s).dump());
    seen->threads.push_back(std::this_thread::get_id());
  };
  // A clock that stands still: a snapshot takes no time, so no pause
  // follows it.
  ro.steady_us = [] { return int64_t{1}; };
  ro.snapshot_taken = [seen](int64_t, int64_t, int64_t) {
    std::lock_guard<std::mutex> guard{seen->mu};
    ++seen->taken;
    seen->cv.notify_all();
  };
  read::read_model model{master.st, std::move(ro)};
  // Batches ending at 2, 4, 5, 7, 8, 12: snapshots due at 4 (4 past 0), 7
  // (3 past 4) and 12 (5 past 7), each of the whole batch's end. Each is
  // awaited before the next batch (none is asked for while one is under
  // way).
  std::vector<std::string> expected;
  for (size_t n : {2, 2, 1, 2, 1, 4}) {
    publish(model, master, n);
    auto p = master.st.position;
    if (p == 4 || p == 7 || p == 12) {
      expected.push_back(state::to_snapshot(master.st).dump());
      seen->wait_taken(expected.size());
    }
  }
  seen->wait_for(3);
  std::lock_guard<std::mutex> guard{seen->mu};
  ASSERT_EQ(seen->states.size(), 3u);
  EXPECT_EQ(seen->states[0].first, 4);
  EXPECT_EQ(seen->states[1].first, 7);
  EXPECT_EQ(seen->states[2].first, 12);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(seen->states[i].second, expected[i]) << "snapshot " << i;
    EXPECT_NE(seen->threads[i], std::this_thread::get_id());
  }
}

// A snapshot of a big state under a fast log would otherwise follow the
// last one back to back: the snapshots keep to their share of the time.
TEST(read_model, a_snapshot_waits_out_its_share_of_the_time_before_the_next) {
  log_writer master;
  auto seen = std::make_shared<snapshots_seen>();
  auto clock = std::make_shared<std::atomic<int64_t>>(1000000);
  // The first snapshot holds until released, to show that none is asked
  // for while one is under way.
  auto release = std::make_shared<std::promise<void>>();
  auto released = release->get_future().share();
  auto ro = replicas(1);
  ro.snapshot_every = 2;
  ro.snapshot_share = 0.1; // a pause of 9 times what a snapshot took
  ro.steady_us = [clock] { return clock->load(); };
  // The wall clock is stepped back an hour during each snapshot (an NTP
  // correction): the pacing does not see it, or the snapshot at 10 would
  // wait that hour out.
  auto wall = std::make_shared<std::atomic<int64_t>>(1700000000000000);
  ro.now_us = [wall] { return wall->load(); };
  ro.snapshot = [seen, clock, wall, released](const state::cluster_state& s) {
    released.wait();
    clock->fetch_add(10000); // each snapshot takes 10 ms
    wall->fetch_sub(int64_t{3600} * 1000000);
    std::lock_guard<std::mutex> guard{seen->mu};
    seen->states.emplace_back(s.position, "");
  };
  ro.snapshot_taken = [seen](int64_t at, int64_t took, int64_t next) {
    std::lock_guard<std::mutex> guard{seen->mu};
    ++seen->taken;
    seen->reports.push_back({at, took, next});
    seen->cv.notify_all();
  };
  read::read_model model{master.st, std::move(ro)};
  struct releaser {
    std::shared_ptr<std::promise<void>> p;
    ~releaser() { p->set_value(); }
  };
  {
    releaser let_go{release};
    publish(model, master, 2); // due at 2: under way until released
    publish(model, master, 2); // due by count at 4, but one is under way
  }
  seen->wait_taken(1);
  publish(model, master, 2); // 6: within the pause (10 ms in, 90 ms owed)
  clock->fetch_add(89999);
  publish(model, master, 2); // 8: still 1 us short
  clock->fetch_add(1);
  publish(model, master, 2); // 10: the pause is over
  seen->wait_taken(2);
  std::lock_guard<std::mutex> guard{seen->mu};
  ASSERT_EQ(seen->states.size(), 2u);
  EXPECT_EQ(seen->states[0].first, 2);
  EXPECT_EQ(seen->states[1].first, 10);
  ASSERT_EQ(seen->reports.size(), 2u);
  EXPECT_EQ(seen->reports[0][0], 2);
  EXPECT_EQ(seen->reports[0][1], 10000);
  EXPECT_EQ(seen->reports[0][2], 1000000 + 10000 + 90000);
  EXPECT_EQ(seen->reports[1][0], 10);
}

TEST(read_model, a_slow_snapshot_holds_up_no_read) {
  log_writer master;
  // The snapshot function blocks until the read below was answered: with
  // the snapshot taken on a replica that serves reads, the read would wait
  // behind it and this test would time out.
  auto release = std::make_shared<std::promise<void>>();
  auto released = release->get_future().share();
  auto started = std::make_shared<std::promise<void>>();
  auto ro = replicas(1);
  ro.snapshot_every = 1;
  ro.snapshot = [released, started, once = std::make_shared<std::once_flag>()](
                    const state::cluster_state&) {
    std::call_once(*once, [&] { started->set_value(); });
    released.wait();
  };
  read::read_model model{master.st, std::move(ro)};
  // Lets the snapshot go on however the test ends (before the model stops).
  struct releaser {
    std::shared_ptr<std::promise<void>> p;
    bool done = false;
    void operator()() {
      if (!std::exchange(done, true))
        p->set_value();
    }
    ~releaser() { (*this)(); }
  } let_go{release};
  publish(model, master, 3);
  ASSERT_EQ(started->get_future().wait_for(10s), std::future_status::ready);
  auto answered = std::make_shared<std::promise<int64_t>>();
  auto got = answered->get_future();
  model.read(
      master.st.position, std::chrono::steady_clock::now() + 10s,
      [answered](const read::read_view& v) { answered->set_value(v.position); },
      [answered](int64_t, const std::string&) { answered->set_value(-1); });
  auto status = got.wait_for(5s);
  let_go();
  ASSERT_EQ(status, std::future_status::ready)
      << "the read waited behind the snapshot";
  EXPECT_EQ(got.get(), master.st.position);
}
