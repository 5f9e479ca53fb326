// login_throttle: failures past the free ones double the wait up to the
// cap; keys are forgotten; a success clears them; memory stays bounded.

#include "policy/login_throttle.hpp"

#include <gtest/gtest.h>

namespace det::policy {
namespace {

constexpr int64_t s = 1000000;

TEST(login_throttle,
     the_free_failures_cost_nothing_then_waits_double_to_the_cap) {
  login_throttle t;
  int64_t now = 1000 * s;
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(t.wait_us("alice", "10.0.0.1", now), 0) << i;
    t.failed("alice", "10.0.0.1", now);
  }
  EXPECT_EQ(t.wait_us("alice", "10.0.0.1", now), 1 * s);
  t.failed("alice", "10.0.0.1", now);
  EXPECT_EQ(t.wait_us("alice", "10.0.0.1", now), 2 * s);
  for (int i = 0; i < 20; ++i)
    t.failed("alice", "10.0.0.1", now);
  EXPECT_EQ(t.wait_us("alice", "10.0.0.1", now), 60 * s) << "capped";
  EXPECT_EQ(t.wait_us("alice", "10.0.0.1", now + 60 * s), 0)
      << "never locked out for longer than the cap";
}

TEST(login_throttle, guessing_from_one_address_slows_every_name_it_tries) {
  login_throttle t;
  int64_t now = 1000 * s;
  for (int i = 0; i < 19; ++i)
    t.failed("user" + std::to_string(i), "10.0.0.9", now);
  EXPECT_EQ(t.wait_us("someone-new", "10.0.0.9", now), 0)
      << "an address shared by many users may fail more often than a name";
  for (int i = 19; i < 23; ++i)
    t.failed("user" + std::to_string(i), "10.0.0.9", now);
  EXPECT_GT(t.wait_us("someone-new", "10.0.0.9", now), 0);
  EXPECT_EQ(t.wait_us("someone-new", "10.0.0.8", now), 0);
}

TEST(login_throttle, guessing_one_name_from_many_addresses_slows_that_name) {
  login_throttle t;
  int64_t now = 1000 * s;
  for (int i = 0; i < 8; ++i)
    t.failed("alice", "10.0.1." + std::to_string(i), now);
  EXPECT_GT(t.wait_us("alice", "10.0.2.1", now), 0);
  EXPECT_EQ(t.wait_us("bob", "10.0.2.1", now), 0);
}

TEST(login_throttle, failures_are_forgotten_and_a_success_clears_them) {
  login_throttle t;
  int64_t now = 1000 * s;
  for (int i = 0; i < 7; ++i)
    t.failed("alice", "10.0.0.1", now);
  EXPECT_GT(t.wait_us("alice", "10.0.0.1", now), 0);
  EXPECT_EQ(t.wait_us("alice", "10.0.0.1", now + 15 * 60 * s), 0);
  t.failed("alice", "10.0.0.1", now + 15 * 60 * s);
  EXPECT_EQ(t.wait_us("alice", "10.0.0.1", now + 15 * 60 * s), 0)
      << "a failure after the forget period counts from one again";
  for (int i = 0; i < 7; ++i)
    t.failed("bob", "10.0.0.2", now);
  t.succeeded("bob");
  EXPECT_EQ(t.wait_us("bob", "10.0.0.2", now), 0);
}

TEST(login_throttle, a_success_does_not_clear_the_address) {
  login_throttle t;
  int64_t now = 1000 * s;
  for (int i = 0; i < 25; ++i)
    t.failed("victim", "10.0.0.3", now);
  t.succeeded("mallory");
  EXPECT_GT(t.wait_us("mallory", "10.0.0.3", now), 0);
}

TEST(login_throttle, a_flood_of_names_keeps_memory_bounded_and_the_worst_keys) {
  login_throttle_config cfg;
  cfg.max_keys = 100;
  login_throttle t{cfg};
  int64_t now = 1000 * s;
  for (int i = 0; i < 10; ++i)
    t.failed("alice", "10.0.0.1", now);
  for (int i = 0; i < 1000; ++i)
    t.failed("name" + std::to_string(i), "10.0.0.1", now);
  EXPECT_GT(t.wait_us("alice", "10.0.0.2", now), 0)
      << "the most-failed name survived the flood";
}

} // namespace
} // namespace det::policy
