#define CAF_SUITE experiment_actor
#define FAIL(x) CAF_FAIL(x)

// The experiment actors: each live experiment's searcher runs in its own
// actor, which proposes steps the master checks and appends. Driven with
// CAF's deterministic test coordinator and an injected clock.

#include "actors/agent_actor.hpp"
#include "tests/actors/master_fixture.hpp"

#include "messages/errc.hpp"
#include "state/queries.hpp"

#include <caf/event_based_actor.hpp>

using namespace det;
using namespace det::actor_test;

namespace {

struct orders {
  std::vector<start_order> starts;
  std::vector<std::string> preempts;
};

caf::behavior agent_conn(caf::event_based_actor*, orders* log) {
  return {
      [=](start_atom, start_order& o) { log->starts.push_back(o); },
      [=](preempt_atom, std::string& alloc, std::string&) {
        log->preempts.push_back(alloc);
      },
      [=](kill_atom, std::string&) {},
      [=](exitack_atom, std::string&) {},
  };
}

// Two trials of 100 batches; the searcher closes a trial when it reports
// its validation at 100 batches.
std::string random_config() {
  return nlohmann::json{
      {"name", "experiment-actor-test"},
      {"entrypoint", "model_def:Trial"},
      {"hyperparameters",
       {{"lr", {{"type", "double"}, {"minval", 0.001}, {"maxval", 0.1}}}}},
      {"resources", {{"slots_per_trial", 1}, {"resource_pool", "default"}}},
      {"searcher",
       {{"name", "random"},
        {"metric", "loss"},
        {"max_trials", 2},
        {"max_length", {{"batches", 100}}}}}}
      .dump();
}

/// The payloads of `type` in `log`, parsed.
std::vector<nlohmann::json> payloads(event_store& log,
                                     const std::string& type) {
  std::vector<nlohmann::json> out;
  for (const auto& r : events_of(log))
    if (r.body.type == type)
      out.push_back(nlohmann::json::parse(r.body.payload));
  return out;
}

struct fixture : master_fixture {
  fixture() {
    cluster = one_pool_cluster("experiment-actor-test");
    cluster.seed = 7;
  }

  agent_actor join(const std::string& id, int slots, orders& log) {
    auto conn = sys.spawn(agent_conn, &log);
    agent_hello h{id, "default", slots, "cpu", "", {}, {}};
    auto a = spawn_agent_actor(sys, master, h, conn);
    run();
    return a;
  }

  void validation(const std::string& alloc, int64_t steps, double loss) {
    decide(metrics_report{alloc, "validation", steps, {{"loss", loss}}});
    run();
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(experiment_actor_tests, fixture)

CAF_TEST(
    the experiment actor creates the trials and closes them on validations) {
  memory_event_store store;
  start(store);
  submit(random_config());
  run();
  // The submission itself creates no trial: the experiment's actor starts
  // its searcher and proposes them, appended as one step.
  auto submitted = events_of(store);
  auto st = live_state();
  CAF_REQUIRE_EQUAL(state::trials_of_experiment(st, 1).size(), 2u);
  auto updates = payloads(store, "experiment_searcher_updated");
  CAF_REQUIRE_EQUAL(updates.size(), 1u);
  CAF_CHECK_EQUAL(updates[0].at("inputs_through").get<int64_t>(), 0);
  orders log;
  auto agent = join("a1", 2, log);
  CAF_REQUIRE_EQUAL(log.starts.size(), 2u);
  CAF_CHECK_EQUAL(log.starts[0].target_length, 100);
  for (const auto& o : log.starts)
    anon_send(agent, running_atom::value, o.allocation_id);
  run();
  validation("1.1", 100, 0.5);
  // The validation was queued, fed to the actor, and its step closed the
  // trial: the agent is asked to checkpoint and stop it.
  CAF_CHECK_EQUAL(log.preempts, std::vector<std::string>{"1.1"});
  st = live_state();
  CAF_CHECK(state::find_experiment(st, 1)->searcher_inbox.empty());
  CAF_CHECK_EQUAL(state::find_experiment(st, 1)->searcher_inputs_queued, 1);
  validation("2.1", 100, 0.25);
  anon_send(agent, exited_atom::value, std::string{"1.1"}, int32_t{0});
  anon_send(agent, exited_atom::value, std::string{"2.1"}, int32_t{0});
  run();
  st = live_state();
  CAF_CHECK_EQUAL(state::to_string(state::find_experiment(st, 1)->status),
                  std::string{"COMPLETED"});
  CAF_CHECK(replay(store) == st);
  CAF_CHECK(state::check_invariants(st).empty());
  stop_master();
}

CAF_TEST(a master stopped between a validation and its step feeds it again) {
  // The reference run: the validation and the step that closes the trial.
  memory_event_store full;
  start(full);
  submit(random_config());
  orders log;
  auto agent = join("a1", 2, log);
  for (const auto& o : log.starts)
    anon_send(agent, running_atom::value, o.allocation_id);
  run();
  validation("1.1", 100, 0.5);
  auto reference = live_state();
  stop_master();
  // The same log cut right after the validation: the master stopped before
  // the searcher's step was durable.
  auto cut = last_position_of(full, "trial_metrics_reported");
  CAF_REQUIRE(cut > 0);
  memory_event_store crashed;
  copy_log(full, crashed, cut);
  auto rebuilt = replay(crashed);
  CAF_REQUIRE_EQUAL(rebuilt.experiments.at(1).searcher_inbox.size(), 1u);
  // A new master replays it, and the experiment's new actor takes the
  // queued validation: the same searcher state, the same trial closed.
  start(crashed, rebuilt);
  auto st = live_state();
  const auto& e = st.experiments.at(1);
  CAF_CHECK(e.searcher_inbox.empty());
  CAF_CHECK_EQUAL(e.searcher_state, reference.experiments.at(1).searcher_state);
  CAF_CHECK_EQUAL(e.progress, reference.experiments.at(1).progress);
  auto t1 = state::find_trial(st, 1);
  CAF_REQUIRE(t1->allocation.has_value());
  CAF_CHECK(t1->allocation->preemption_requested);
  CAF_CHECK_EQUAL(t1->allocation->preemption_reason, "searcher closed");
  auto t2 = state::find_trial(st, 2);
  CAF_CHECK(!t2->allocation->preemption_requested);
  CAF_CHECK(replay(crashed) == st);
  stop_master();
}

CAF_TEST(a step that does not follow the log is refused and changes nothing) {
  memory_event_store store;
  start(store);
  submit(random_config());
  run();
  auto before = events_of(store).size();
  // A second "first step", as an actor that missed the first would send.
  searcher_step stale;
  stale.experiment_id = 1;
  stale.first = true;
  stale.ops.push_back(policy::create_trial{9, {{"lr", 0.5}}, 1});
  caf::error got;
  auto res = self->request(master, caf::infinite, step_atom::value, stale);
  run();
  res.receive([](caf::ok_atom) {}, [&](caf::error& err) { got = err; });
  CAF_CHECK(code_of(got) == errc::conflict);
  CAF_CHECK_EQUAL(events_of(store).size(), before);
  // The experiment's actor still follows the log: its next step lands.
  orders log;
  auto agent = join("a1", 2, log);
  for (const auto& o : log.starts)
    anon_send(agent, running_atom::value, o.allocation_id);
  run();
  validation("1.1", 100, 0.5);
  CAF_CHECK_EQUAL(log.preempts, std::vector<std::string>{"1.1"});
  stop_master();
}

CAF_TEST(a searcher that cannot be restored ends its experiment
         and not the master) {
  memory_event_store store;
  start(store);
  submit(random_config());
  submit(random_config());
  run();
  stop_master();
  // Experiment 1's saved searcher is damaged (e.g. written by a release
  // whose searcher state this one cannot read).
  experiment_searcher_updated bad;
  bad.experiment_id = 1;
  bad.searcher_state = {{"searcher", {{"method", "nonsense"}}},
                        {"trials", nlohmann::json::array()}};
  bad.inputs_through = 0;
  CAF_REQUIRE(store.append({{to_new_event(bad)}, {}}));
  start(store, replay(store));
  auto st = live_state();
  const auto& e1 = st.experiments.at(1);
  CAF_CHECK_EQUAL(state::to_string(e1.status), std::string{"ERROR"});
  CAF_CHECK(e1.status_reason.find("the searcher cannot be restored")
            != std::string::npos);
  for (auto t : state::trials_of_experiment(st, 1))
    CAF_CHECK(state::is_terminal(t->status));
  // The master and the other experiment carry on.
  CAF_CHECK_EQUAL(state::to_string(st.experiments.at(2).status),
                  std::string{"ACTIVE"});
  auto id = submit(random_config());
  CAF_CHECK_EQUAL(id, 3);
  run();
  CAF_CHECK_EQUAL(state::trials_of_experiment(live_state(), 3).size(), 2u);
  CAF_CHECK(replay(store) == live_state());
  stop_master();
}

CAF_TEST_FIXTURE_SCOPE_END()
