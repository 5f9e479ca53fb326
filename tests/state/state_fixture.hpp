#pragma once

// A cluster_state plus one-line builders for the events tests need. ok()
// applies an event at the next position and requires success and sound
// invariants; refused() requires errc::invalid_event and an unchanged state
// and returns the message.

#include "messages/errc.hpp"
#include "state/cluster_state.hpp"
#include "state/queries.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace det::state::test {

class state_fixture : public ::testing::Test {
protected:
  cluster_state s;

  caf::error push(const domain_event& ev) {
    recorded_event meta;
    meta.position = s.position + 1;
    meta.stream = stream_of(ev);
    return apply(s, meta, ev);
  }

  void ok(const domain_event& ev) {
    auto err = push(ev);
    ASSERT_FALSE(err) << render(err);
    auto broken = check_invariants(s);
    ASSERT_TRUE(broken.empty()) << type_name_of(ev) << ": " << broken.front();
  }

  std::string refused(const domain_event& ev) {
    auto before = s;
    auto err = push(ev);
    EXPECT_EQ(code_of(err), errc::invalid_event) << render(err);
    EXPECT_TRUE(s == before) << "a refused event changed the state";
    return render(err);
  }

  // -- builders ---------------------------------------------------------------

  void pool(const std::string& name = "default",
            const std::string& provider = "") {
    pool_configured p;
    p.pool = name;
    p.provider = provider;
    p.max_instances = 5;
    ok(p);
  }

  void agent(const std::string& id, int32_t slots,
             const std::string& pool_name = "default",
             const std::string& instance = "", int64_t at = 100) {
    ok(agent_connected{id, pool_name, slots, "cuda", instance, at});
  }

  void experiment(int64_t id, int32_t slots_per_trial = 1,
                  int32_t max_restarts = 5,
                  const std::string& pool_name = "default") {
    experiment_submitted e;
    e.experiment_id = id;
    e.pool = pool_name;
    e.slots_per_trial = slots_per_trial;
    e.max_restarts = max_restarts;
    e.config = {
        {"searcher", {{"metric", "loss"}, {"smaller_is_better", true}}}};
    ok(e);
  }

  void trial(int64_t id, int64_t experiment_id) {
    ok(trial_created{
        id, experiment_id, {{"lr", 0.1}}, "r" + std::to_string(id), 200});
  }

  static trial_placed placement(int64_t trial, const std::string& alloc,
                                std::vector<slot_assignment> as,
                                int64_t at = 300) {
    return trial_placed{trial, alloc, std::move(as), at};
  }

  void place(int64_t trial, const std::string& alloc,
             std::vector<slot_assignment> as, int64_t at = 300) {
    ok(placement(trial, alloc, std::move(as), at));
  }

  /// A cluster with something in every record type: a static and an aws
  /// pool, agents (one on an instance, one disconnected), an open spot
  /// request, an outstanding launch, and trials pending, running (on two
  /// agents), checkpointed, exited and completed.
  void busy_cluster() {
    ok(master_started{"c1", "h", 1, "v", 0});
    pool();
    pool("aws", "aws");
    ok(instance_launch_requested{"aws", 1, "tok-1", 2, false, 10});
    ok(instance_pending{"i-1", "aws", 1, 20});
    ok(instance_running{"i-1", 30});
    ok(instance_launch_requested{"aws", 2, "tok-2", 1, true, 40});
    ok(spot_request_opened{"sir-1", "aws", 2, 50});
    ok(instance_pending{"i-2", "aws", 0, 60});
    ok(instance_terminate_requested{"i-2", "idle", 70});
    agent("i-1", 4, "aws", "i-1", 80);
    agent("a1", 2);
    agent("a2", 2);
    agent("a3", 1);
    ok(agent_disconnected{"a3", "closed", 5000, 90});
    experiment(1, 2, 3);
    experiment(2, 1, 0, "aws");
    ok(experiment_searcher_updated{1, {{"next", 4}}, 0.25});
    trial(1, 1);
    trial(2, 1);
    trial(3, 1);
    trial(4, 2);
    trial(5, 2);
    place(1, "1.1", {{"a1", {0}}, {"a2", {1}}});
    ok(trial_running{1, "1.1", 400});
    ok(trial_checkpointed{1, "ck-1", 50, {{"f", 1}}, "1.1", 450});
    ok(trial_metrics_reported{
        1, "1.1", "validation", 50, {{"loss", 1.5}}, 460});
    place(2, "2.1", {{"a1", {1}}, {"a2", {0}}});
    ok(trial_exited{2, "2.1", 1, "failed", 500});
    place(4, "4.1", {{"i-1", {2}}});
    ok(trial_preemption_requested{4, "4.1", "priority", 510});
    place(5, "5.1", {{"i-1", {0}}});
    ok(trial_exited{5, "5.1", 0, "completed", 520});
  }

  const trial_info& t(int64_t id) { return s.trials.at(id); }

  const agent_info& a(const std::string& id) { return s.agents.at(id); }
};

/// Whether `haystack` contains `needle`, for EXPECT_TRUE with a message.
inline bool has(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

} // namespace det::state::test
