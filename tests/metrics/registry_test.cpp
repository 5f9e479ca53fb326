// The thread-safe metrics registry.

#include "metrics/registry.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>
#include <vector>

using namespace det::metrics;

TEST(registry, counters_add_per_label_set) {
  registry r;
  auto c = r.make_counter("calls_total", "Calls.");
  c.inc({{"op", "Run"}});
  c.inc({{"op", "Run"}}, 2);
  c.inc({{"op", "Describe"}});
  auto text = r.text();
  EXPECT_NE(text.find("calls_total{op=\"Run\"} 3\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("calls_total{op=\"Describe\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE calls_total counter\n"), std::string::npos);
}

TEST(registry, histogram_buckets_are_cumulative_with_sum_and_count) {
  registry r;
  auto h = r.make_histogram("lat_seconds", "Latency.", {0.01, 0.1});
  h.observe(0.005);
  h.observe(0.05);
  h.observe(0.05);
  h.observe(3);
  auto text = r.text();
  EXPECT_NE(text.find("lat_seconds_bucket{le=\"0.01\"} 1\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("lat_seconds_bucket{le=\"0.1\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("lat_seconds_bucket{le=\"+Inf\"} 4\n"),
            std::string::npos);
  EXPECT_NE(text.find("lat_seconds_sum 3.1"), std::string::npos);
  EXPECT_NE(text.find("lat_seconds_count 4\n"), std::string::npos);
}

TEST(registry, an_unobserved_histogram_shows_zeros) {
  registry r;
  r.make_histogram("idle_seconds", "Idle.", {1});
  auto text = r.text();
  EXPECT_NE(text.find("idle_seconds_bucket{le=\"+Inf\"} 0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("idle_seconds_count 0\n"), std::string::npos);
}

TEST(registry, a_name_registered_with_another_type_is_refused) {
  registry r;
  r.make_counter("x_total", "X.");
  EXPECT_THROW(r.make_histogram("x_total", "X.", {1}), std::logic_error);
  EXPECT_THROW(r.make_counter("bad-name", "X."), std::logic_error);
}

TEST(registry, concurrent_increments_are_all_counted) {
  registry r;
  auto c = r.make_counter("hits_total", "Hits.");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i)
        c.inc({{"pool", "default"}});
    });
  for (auto& t : threads)
    t.join();
  EXPECT_NE(r.text().find("hits_total{pool=\"default\"} 40000\n"),
            std::string::npos);
}
