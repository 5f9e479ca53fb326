// read/metrics_history: a trial's reports are loaded once, then followed;
// reports that arrive during a load are neither lost nor doubled; the
// bound forgets the trials used longest ago.

#include "read/metrics_history.hpp"

#include "messages/errc.hpp"

#include <gtest/gtest.h>

namespace det::read {
namespace {

domain_event report(int64_t trial, int64_t steps,
                    const char* group = "training") {
  trial_metrics_reported ev;
  ev.trial_id = trial;
  ev.allocation_id = std::to_string(trial) + ".1";
  ev.kind = group;
  ev.steps_completed = steps;
  ev.metrics = {{"loss", 1.0 / static_cast<double>(steps + 1)}};
  ev.at_us = 1000 + steps;
  return ev;
}

/// A log of events, positions from 1, that loads a trial's reports.
struct fake_log {
  std::vector<domain_event> events;
  int loads = 0;
  /// Runs in the middle of the next load (after the log was read).
  std::function<void()> during_load;

  int64_t add(domain_event ev) {
    events.push_back(std::move(ev));
    return static_cast<int64_t>(events.size());
  }

  metrics_history::loader loader() {
    return [this](int64_t trial) {
      ++loads;
      std::vector<metric_report> out;
      for (size_t i = 0; i < events.size(); ++i)
        if (auto r = report_of(static_cast<int64_t>(i + 1), events[i]);
            r && r->trial_id == trial)
          out.push_back(*r);
      if (during_load) {
        auto f = std::move(during_load);
        during_load = nullptr;
        f();
      }
      return caf::expected<std::vector<metric_report>>{std::move(out)};
    };
  }
};

std::vector<int64_t> steps_of(const report_list& l) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < l.size(); ++i)
    out.push_back(l[i].steps);
  return out;
}

TEST(metrics_history, a_trial_is_read_from_the_log_once_then_followed) {
  fake_log log;
  metrics_history h;
  log.add(report(1, 1));
  log.add(report(2, 1));
  log.add(report(1, 2, "validation"));
  auto first = h.reports(1, log.loader());
  ASSERT_TRUE(first);
  EXPECT_EQ(steps_of(*first), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ((*first)[1].group, "validation");
  EXPECT_EQ((*first)[1].metrics, R"({"loss":0.3333333333333333})");
  // Followed from the master's durable batches, without another load.
  auto last = log.add(report(1, 3));
  h.observe({log.events.back()}, last);
  auto again = h.reports(1, log.loader());
  ASSERT_TRUE(again);
  EXPECT_EQ(steps_of(*again), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(log.loads, 1);
  // The snapshot taken before is unchanged.
  EXPECT_EQ(first->size(), 2u);
}

TEST(metrics_history, a_trial_created_while_followed_is_never_loaded) {
  fake_log log;
  metrics_history h;
  trial_created c;
  c.trial_id = 7;
  c.experiment_id = 1;
  auto p = log.add(c);
  h.observe({log.events.back()}, p);
  p = log.add(report(7, 1));
  h.observe({log.events.back()}, p);
  auto got = h.reports(7, log.loader());
  ASSERT_TRUE(got);
  EXPECT_EQ(steps_of(*got), (std::vector<int64_t>{1}));
  EXPECT_EQ(log.loads, 0);
}

TEST(metrics_history,
     reports_that_arrive_during_a_load_are_kept_once_in_order) {
  fake_log log;
  metrics_history h;
  log.add(report(1, 1));
  auto p2 = log.add(report(1, 2));
  // While the load runs (it has read positions 1-2), the master publishes
  // position 2 again (durable before the load began) and 3 (after).
  log.during_load = [&] {
    auto p3 = log.add(report(1, 3));
    h.observe({log.events[1]}, p2);
    h.observe({log.events[2]}, p3);
  };
  auto got = h.reports(1, log.loader());
  ASSERT_TRUE(got);
  EXPECT_EQ(steps_of(*got), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(h.held(), 3u);
}

TEST(metrics_history, the_bound_forgets_the_trial_used_longest_ago) {
  fake_log log;
  metrics_history h{5};
  for (int s = 0; s < 4; ++s)
    log.add(report(1, s));
  for (int s = 0; s < 3; ++s)
    log.add(report(2, s));
  ASSERT_TRUE(h.reports(1, log.loader()));
  ASSERT_TRUE(h.reports(2, log.loader()));
  EXPECT_EQ(log.loads, 2);
  EXPECT_EQ(h.held(), 3u) << "trial 1 (4 reports) went to make room";
  auto back = h.reports(1, log.loader());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->size(), 4u);
  EXPECT_EQ(log.loads, 3);
  // A trial larger than the bound alone is still served.
  metrics_history tiny{2};
  auto big = tiny.reports(1, log.loader());
  ASSERT_TRUE(big);
  EXPECT_EQ(big->size(), 4u);
}

TEST(metrics_history, many_reports_are_indexed_across_blocks) {
  fake_log log;
  metrics_history h;
  auto n = static_cast<int64_t>(report_list::block_size * 2 + 7);
  for (int64_t s = 0; s < n; ++s)
    log.add(report(1, s));
  auto got = h.reports(1, log.loader());
  ASSERT_TRUE(got);
  ASSERT_EQ(got->size(), static_cast<size_t>(n));
  for (int64_t s = 0; s < n; ++s)
    ASSERT_EQ((*got)[static_cast<size_t>(s)].steps, s);
}

TEST(metrics_history, a_failed_load_is_reported_and_tried_again_next_time) {
  metrics_history h;
  int calls = 0;
  auto failing = [&](int64_t) -> caf::expected<std::vector<metric_report>> {
    ++calls;
    return make_error(errc::store_unavailable, "database down");
  };
  EXPECT_FALSE(h.reports(1, failing));
  // Reports published meanwhile are not held for a trial not loaded.
  h.observe({report(1, 1)}, 1);
  EXPECT_EQ(h.held(), 0u);
  fake_log log;
  log.add(report(1, 1));
  auto got = h.reports(1, log.loader());
  ASSERT_TRUE(got);
  EXPECT_EQ(got->size(), 1u);
  EXPECT_EQ(calls, 1);
}

TEST(metrics_history, a_chart_samples_evenly_and_keeps_the_ends) {
  fake_log log;
  metrics_history h;
  for (int64_t s = 0; s < 1000; ++s)
    log.add(report(1, s, s % 10 == 0 ? "validation" : "training"));
  auto got = h.reports(1, log.loader());
  ASSERT_TRUE(got);
  auto all = sample_reports(*got, "validation", 0, 1000000, 500);
  ASSERT_EQ(all.size(), 100u); // no more than asked: every one
  auto some = sample_reports(*got, "training", 0, 1000000, 50);
  ASSERT_EQ(some.size(), 50u);
  EXPECT_EQ((*got)[some.front()].steps, 1);
  EXPECT_EQ((*got)[some.back()].steps, 999);
  for (size_t k = 1; k < some.size(); ++k) {
    EXPECT_LT(some[k - 1], some[k]);
    EXPECT_EQ((*got)[some[k]].group, "training");
  }
  // A step range, and a single point (the last).
  auto range = sample_reports(*got, "training", 100, 199, 1000);
  ASSERT_EQ(range.size(), 90u);
  EXPECT_EQ((*got)[range.front()].steps, 101);
  auto one = sample_reports(*got, "training", 0, 1000000, 1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ((*got)[one[0]].steps, 999);
  EXPECT_TRUE(sample_reports(*got, "nope", 0, 1000000, 10).empty());
}

} // namespace
TEST(metrics_history, a_later_run_rolls_back_what_it_trains_again) {
  // Run 1 reports steps 1, 2, 3 and fails; run 2 resumes from a
  // checkpoint at step 2 (reports 3, 4); run 3 starts over from nothing
  // (reports 1). Validation at step 3 of run 1 is rolled back by run 2's
  // validation, not by its training.
  fake_log log;
  auto in_run = [](domain_event ev, const char* alloc) {
    std::get<trial_metrics_reported>(ev).allocation_id = alloc;
    return ev;
  };
  for (int64_t s : {1, 2, 3})
    log.add(in_run(report(1, s), "1.1"));
  log.add(in_run(report(1, 3, "validation"), "1.1"));
  for (int64_t s : {3, 4})
    log.add(in_run(report(1, s), "1.2"));
  metrics_history h;
  auto got = h.reports(1, log.loader());
  ASSERT_TRUE(got);
  EXPECT_EQ(rolled_back(*got),
            (std::vector<bool>{false, false, true, false, false, false}));
  auto shown = sample_reports(*got, "training", 0, 1000000, 100);
  std::vector<int64_t> steps;
  for (auto i : shown)
    steps.push_back((*got)[i].steps);
  EXPECT_EQ(steps, (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ((*got)[shown[2]].allocation_id, "1.2");

  log.add(in_run(report(1, 1), "1.3"));
  metrics_history fresh;
  got = fresh.reports(1, log.loader());
  ASSERT_TRUE(got);
  EXPECT_EQ(rolled_back(*got),
            (std::vector<bool>{true, true, true, false, true, true, false}));
}

} // namespace det::read
