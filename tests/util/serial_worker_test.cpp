// serial_worker: jobs run in order on one thread; a full queue refuses;
// the worker may be destroyed by one of its own jobs.

#include "util/serial_worker.hpp"

#include <gtest/gtest.h>

#include <future>
#include <memory>
#include <vector>

namespace det::util {
namespace {

TEST(serial_worker, jobs_run_in_order_and_a_full_queue_refuses) {
  std::promise<void> gate, started;
  auto opened = gate.get_future().share();
  std::vector<int> order;
  {
    serial_worker w{2};
    // The first job occupies the thread until the gate opens (it is opened
    // before any assertion can leave this scope).
    ASSERT_TRUE(w.submit([opened, &started] {
      started.set_value();
      opened.wait();
    }));
    started.get_future().wait();
    bool one = w.submit([&order] { order.push_back(1); });
    bool two = w.submit([&order] { order.push_back(2); });
    bool three = w.submit([&order] { order.push_back(3); });
    gate.set_value();
    EXPECT_TRUE(one);
    EXPECT_TRUE(two);
    EXPECT_FALSE(three) << "a third waiting job was accepted";
  } // the destructor runs what was queued
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
}

TEST(serial_worker, a_job_holding_the_last_reference_may_destroy_it) {
  auto w = std::make_shared<serial_worker>(4);
  std::promise<void> ran;
  auto fut = ran.get_future();
  ASSERT_TRUE(w->submit([keep = w, &ran]() mutable {
    keep.reset(); // not the last yet
    ran.set_value();
  }));
  fut.wait();
  std::promise<void> last;
  auto last_done = last.get_future();
  std::weak_ptr<serial_worker> weak = w;
  ASSERT_TRUE(w->submit([keep = std::move(w), &last]() mutable {
    keep.reset(); // the last reference: the worker ends on its own thread
    last.set_value();
  }));
  last_done.wait();
  EXPECT_TRUE(weak.expired());
}

} // namespace
} // namespace det::util
