#define CAF_SUITE trial_actor
#define FAIL(x) CAF_FAIL(x)

// The trial actors: each trial's orders go through its actor, and an
// exited trial's next step (restart, error, cancel) is its actor's
// proposal, checked and appended by the master. Deterministic test
// coordinator, injected clock.

#include "actors/agent_actor.hpp"
#include "tests/actors/master_fixture.hpp"

#include "messages/errc.hpp"
#include "state/queries.hpp"

#include <caf/event_based_actor.hpp>

using namespace det;
using namespace det::actor_test;

namespace {

struct orders {
  std::vector<std::string> starts;
  std::vector<std::string> kills;
};

caf::behavior agent_conn(caf::event_based_actor*, orders* log) {
  return {
      [=](start_atom, start_order& o) {
        log->starts.push_back(o.allocation_id);
      },
      [=](preempt_atom, std::string&, std::string&) {},
      [=](kill_atom, std::string& alloc) { log->kills.push_back(alloc); },
      [=](exitack_atom, std::string&) {},
  };
}

std::string single_config(int max_restarts) {
  return nlohmann::json{
      {"name", "trial-actor-test"},
      {"entrypoint", "model_def:Trial"},
      {"max_restarts", max_restarts},
      {"hyperparameters", {{"lr", 0.1}}},
      {"resources", {{"slots_per_trial", 1}, {"resource_pool", "default"}}},
      {"searcher",
       {{"name", "single"},
        {"metric", "loss"},
        {"max_length", {{"batches", 100}}}}}}
      .dump();
}

std::vector<std::string> types_of(event_store& log) {
  std::vector<std::string> out;
  for (const auto& r : events_of(log))
    out.push_back(r.body.type);
  return out;
}

struct fixture : master_fixture {
  fixture() { cluster = one_pool_cluster("trial-actor-test"); }

  agent_actor join(const std::string& id, orders& log,
                   std::vector<std::string> running = {}) {
    auto conn = sys.spawn(agent_conn, &log);
    agent_hello h{id, "default", 1, "cpu", "", std::move(running), {}};
    auto a = spawn_agent_actor(sys, master, h, conn);
    run();
    return a;
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(trial_actor_tests, fixture)

CAF_TEST(a failing trial is restarted by its actor until max_restarts) {
  memory_event_store store;
  start(store);
  submit(single_config(1));
  orders log;
  auto agent = join("a1", log);
  CAF_REQUIRE_EQUAL(log.starts, std::vector<std::string>{"1.1"});
  anon_send(agent, exited_atom::value, std::string{"1.1"}, int32_t{3});
  run();
  // The trial's actor restarted it; the pool placed it again.
  CAF_REQUIRE_EQUAL(log.starts, (std::vector<std::string>{"1.1", "1.2"}));
  anon_send(agent, exited_atom::value, std::string{"1.2"}, int32_t{3});
  run();
  auto st = live_state();
  auto t = state::find_trial(st, 1);
  CAF_CHECK_EQUAL(state::to_string(t->status), std::string{"errored"});
  CAF_CHECK_EQUAL(t->restarts, 2);
  CAF_CHECK_EQUAL(state::to_string(state::find_experiment(st, 1)->status),
                  std::string{"ERROR"});
  auto types = types_of(store);
  CAF_CHECK_EQUAL(std::count(types.begin(), types.end(), "trial_restarted"), 1);
  CAF_CHECK_EQUAL(std::count(types.begin(), types.end(), "trial_errored"), 1);
  CAF_CHECK(replay(store) == st);
  stop_master();
}

CAF_TEST(a trial left exited by a stopped master is settled after replay) {
  memory_event_store full;
  start(full);
  submit(single_config(5));
  orders log;
  auto agent = join("a1", log);
  anon_send(agent, running_atom::value, std::string{"1.1"});
  run();
  decide(checkpoint_report{"1.1", "ck-30", 30, nlohmann::json::object()});
  anon_send(agent, exited_atom::value, std::string{"1.1"}, int32_t{1});
  run();
  stop_master();
  // Cut the log right after trial_exited: the master stopped before the
  // trial's actor proposed its restart.
  auto cut = last_position_of(full, "trial_exited");
  CAF_REQUIRE(cut > 0);
  memory_event_store crashed;
  copy_log(full, crashed, cut);
  auto rebuilt = replay(crashed);
  CAF_REQUIRE_EQUAL(state::to_string(state::find_trial(rebuilt, 1)->status),
                    std::string{"exited"});
  start(crashed, rebuilt);
  // The new trial actor restarts it (one failure, max_restarts 5), and a
  // returning agent gets it again from its checkpoint.
  orders again;
  join("a1", again);
  CAF_REQUIRE_EQUAL(again.starts, std::vector<std::string>{"1.2"});
  auto st = live_state();
  auto t = state::find_trial(st, 1);
  CAF_CHECK_EQUAL(t->restarts, 1);
  CAF_CHECK_EQUAL(t->allocation->id, "1.2");
  CAF_CHECK(replay(crashed) == st);
  stop_master();
}

CAF_TEST(a step for a trial that moved on is refused and changes nothing) {
  memory_event_store store;
  start(store);
  submit(single_config(5));
  orders log;
  join("a1", log);
  auto before = events_of(store).size();
  // Trial 1 is assigned, not exited: nothing to settle.
  trial_step stale;
  stale.trial_id = 1;
  stale.runs = 1;
  stale.verdict = trial_verdict::error;
  stale.reason = "stale";
  caf::error got;
  auto res = self->request(master, caf::infinite, command{stale});
  run();
  res.receive([](const std::string&) {}, [&](caf::error& err) { got = err; });
  CAF_CHECK(code_of(got) == errc::conflict);
  CAF_CHECK_EQUAL(events_of(store).size(), before);
  stop_master();
}

CAF_TEST_FIXTURE_SCOPE_END()
