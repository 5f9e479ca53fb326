// A cluster's own log as det-sim's input: events appended to the
// in-memory store, the jobs read back through event_store::read.
#include "sim/log_trace.hpp"

#include "store/memory_event_store.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using namespace det;

namespace {

new_event logged(const std::string& stream, const std::string& type,
                 const nlohmann::json& payload) {
  return {stream, {type, 1, payload.dump()}};
}

constexpr int64_t sec = 1000000;

} // namespace

TEST(sim_log_trace, a_trial_runs_for_the_sum_of_its_runs) {
  memory_event_store store;
  append_request r;
  r.events = {
      logged("experiment/1", "experiment_submitted",
             {{"experiment_id", 1},
              {"pool", "gpu"},
              {"owner", "ann"},
              {"slots_per_trial", 8},
              {"at_us", 100 * sec}}),
      logged("trial/1", "trial_created",
             {{"trial_id", 1}, {"experiment_id", 1}, {"at_us", 100 * sec}}),
      logged("trial/2", "trial_created",
             {{"trial_id", 2}, {"experiment_id", 1}, {"at_us", 160 * sec}}),
      logged("trial/1", "trial_placed",
             {{"trial_id", 1}, {"at_us", 300 * sec}}),
      logged("trial/1", "trial_exited",
             {{"trial_id", 1}, {"at_us", 900 * sec}}),
      logged("trial/1", "trial_placed",
             {{"trial_id", 1}, {"at_us", 1000 * sec}}),
      logged("trial/1", "trial_exited",
             {{"trial_id", 1}, {"at_us", 1400 * sec}}),
  };
  ASSERT_TRUE(store.append(r));
  sim::trace t;
  ASSERT_FALSE(sim::jobs_from_log(store, "", t));
  // Trial 2 never ran: nothing says how long it would have.
  ASSERT_EQ(t.jobs.size(), 1u);
  EXPECT_EQ(t.jobs[0].submit_s, 0);
  EXPECT_EQ(t.jobs[0].duration_s, 600 + 400);
  EXPECT_EQ(t.jobs[0].gpus, 8);
  EXPECT_EQ(t.jobs[0].group, "ann");
  EXPECT_EQ(t.origin_epoch_s, 100);
  sim::trace other;
  ASSERT_FALSE(sim::jobs_from_log(store, "cpu", other));
  EXPECT_TRUE(other.jobs.empty());
}
