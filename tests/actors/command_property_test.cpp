#define CAF_SUITE command_property
#define FAIL(x) CAF_FAIL(x)

// A property test of the whole actor tree: random sequences of commands
// (submit, agents joining, leaving and coming back, trials running,
// checkpointing, reporting metrics, failing and completing, kills, pauses,
// activations, time passing) sent to the master under CAF's deterministic
// test coordinator with an injected clock. After every command:
//  - the invariants hold after every event of the log,
//  - replay from zero gives the master's state, and so does every snapshot
//    the master took plus the events after it,
//  - every searcher input the log queued for a live experiment has been
//    consumed by its actor (nothing waits once the actors are idle).
// Seeds are fixed, so a failure names the seed that reproduces it.

#include "actors/agent_actor.hpp"
#include "tests/actors/master_fixture.hpp"

#include "state/queries.hpp"

#include <caf/event_based_actor.hpp>

#include <random>

using namespace det;
using namespace det::actor_test;

namespace {

// An agent's connection that counts the orders it gets. (CAF 0.17 spawns
// a function actor without arguments through a null pointer: UBSan.)
caf::behavior sink(caf::event_based_actor*, int* orders) {
  return {
      [=](start_atom, start_order&) { ++*orders; },
      [=](preempt_atom, std::string&, std::string&) { ++*orders; },
      [=](kill_atom, std::string&) { ++*orders; },
      [=](exitack_atom, std::string&) {},
  };
}

std::string config_for(std::mt19937_64& rng) {
  auto pick = [&](int n) {
    return static_cast<int>(rng() % static_cast<uint64_t>(n));
  };
  nlohmann::json searcher;
  switch (pick(4)) {
  case 0:
    searcher = {{"name", "single"},
                {"metric", "loss"},
                {"max_length", {{"batches", 100}}}};
    break;
  case 1:
    searcher = {{"name", "random"},
                {"metric", "loss"},
                {"max_trials", 1 + pick(4)},
                {"max_length", {{"batches", 100}}}};
    break;
  case 2:
    searcher = {{"name", "grid"},
                {"metric", "loss"},
                {"max_length", {{"batches", 100}}}};
    break;
  default:
    searcher = {{"name", "adaptive_asha"},
                {"metric", "loss"},
                {"max_trials", 2 + pick(4)},
                {"max_rungs", 2},
                {"divisor", 2},
                {"max_length", {{"batches", 400}}}};
    break;
  }
  return nlohmann::json{
      {"name", "property"},
      {"entrypoint", "model_def:Trial"},
      {"max_restarts", pick(3)},
      {"hyperparameters",
       {{"lr", {{"type", "double"}, {"minval", 0.001}, {"maxval", 0.1}}},
        {"layers", {{"type", "categorical"}, {"vals", {1, 2}}}}}},
      {"resources",
       {{"slots_per_trial", 1 + pick(2)}, {"resource_pool", "default"}}},
      {"searcher", searcher}}
      .dump();
}

struct fixture : master_fixture {
  memory_event_store store;
  std::map<std::string, agent_actor> agents;
  int agent_count = 0;
  int orders = 0;

  fixture() {
    cluster = one_pool_cluster("property");
    cluster.seed = 11;
    cluster.agent_reconnect_wait_us = 30 * sec;
    cluster.preemption_timeout_us = 60 * sec;
    snapshot_every = 40;
  }

  // Sends a command the master may refuse (a pause of an ended experiment,
  // a report for an allocation that is gone): refusals are part of the game.
  // Its answer goes nowhere.
  template <class... Ts> void attempt(Ts&&... xs) {
    caf::anon_send(master, std::forward<Ts>(xs)...);
    run();
  }

  void join(const std::string& id, int slots,
            std::vector<std::string> running) {
    auto conn = sys.spawn(sink, &orders);
    agent_hello h{id, "default", slots, "cpu", "", std::move(running), {}};
    agents[id] = spawn_agent_actor(sys, master, h, conn);
    run();
  }

  // One random command, drawn against the live state.
  void step(std::mt19937_64& rng) {
    auto pick = [&](size_t n) {
      return n == 0 ? size_t{0} : static_cast<size_t>(rng() % n);
    };
    sync(0, 0);
    const auto& st = replayed;
    std::vector<const state::trial_info*> holding;
    for (const auto& [id, t] : st.trials)
      if (t.allocation)
        holding.push_back(&t);
    std::vector<int64_t> experiments;
    for (const auto& [id, e] : st.experiments)
      experiments.push_back(id);
    auto kind = pick(20);
    if (getenv("DET_PROPERTY_TRACE"))
      fprintf(stderr, "  command %d\n", int(kind));
    switch (kind) {
    case 0:
    case 1: {
      int live = 0;
      for (const auto& [id, e] : st.experiments)
        live += state::is_terminal(e.status) ? 0 : 1;
      if (live < 4)
        attempt(command{experiment_submit{
            nlohmann::json::parse(config_for(rng)), "determined"}});
      break;
    }
    case 2:
    case 3:
      if (agents.size() < 5)
        join("a" + std::to_string(++agent_count), 1 + static_cast<int>(pick(4)),
             {});
      break;
    case 4: // an agent leaves
      if (!agents.empty()) {
        auto i = std::next(agents.begin(),
                           static_cast<std::ptrdiff_t>(pick(agents.size())));
        anon_send(i->second, disconn_atom::value, std::string{"gone"});
        agents.erase(i);
        run();
      }
      break;
    case 5: { // a known agent comes back, with or without its runs
      std::vector<const state::agent_info*> away;
      for (const auto& [id, a] : st.agents)
        if (a.status != state::agent_status::connected && agents.count(id) == 0)
          away.push_back(&a);
      if (away.empty())
        break;
      auto a = away[pick(away.size())];
      std::vector<std::string> running;
      if (pick(2) == 0)
        running = state::allocations_on_agent(st, a->id);
      join(a->id, static_cast<int>(a->slots.size()), std::move(running));
      break;
    }
    case 6:
    case 7:
    case 8:
    case 9:
    case 10: { // a trial reports: running, checkpoint, metrics
      if (holding.empty())
        break;
      auto t = holding[pick(holding.size())];
      const auto& alloc = t->allocation->id;
      auto agent = agents.find(t->allocation->assignments.front().agent_id);
      if (agent != agents.end())
        anon_send(agent->second, running_atom::value, alloc);
      run();
      auto steps = int64_t{100} * (1 + static_cast<int64_t>(pick(4)));
      attempt(command{
          checkpoint_report{alloc, "ck-" + alloc + "-" + std::to_string(steps),
                            steps, nlohmann::json::object()}});
      attempt(command{metrics_report{
          alloc, pick(2) == 0 ? "training" : "validation", steps,
          nlohmann::json{{"loss", 1.0 / static_cast<double>(1 + pick(50))}}}});
      break;
    }
    case 11:
    case 12:
    case 13: { // an allocation exits: completed or failed
      if (holding.empty())
        break;
      auto t = holding[pick(holding.size())];
      auto agent = agents.find(t->allocation->assignments.front().agent_id);
      if (agent == agents.end())
        break;
      anon_send(agent->second, exited_atom::value, t->allocation->id,
                static_cast<int32_t>(pick(3) == 0 ? 1 : 0));
      run();
      break;
    }
    case 14:
      if (!experiments.empty())
        attempt(
            command{experiment_kill{experiments[pick(experiments.size())]}});
      break;
    case 15:
      if (!st.trials.empty())
        attempt(command{
            trial_kill{static_cast<int64_t>(1 + pick(st.trials.size()))}});
      break;
    case 16:
      if (!experiments.empty())
        attempt(
            command{experiment_pause{experiments[pick(experiments.size())]}});
      break;
    case 17:
      if (!experiments.empty())
        attempt(command{
            experiment_activate{experiments[pick(experiments.size())]}});
      break;
    default: // time passes: reconnect waits and preemption timeouts run out
      now += static_cast<int64_t>(1 + pick(45)) * sec;
      anon_send(master, tick_atom::value);
      run();
      break;
    }
  }

  // The log replayed so far (each event once, invariants after each), and
  // the snapshots already checked.
  state::cluster_state replayed;
  std::set<int64_t> snapshots_checked;

  // Applies the events appended since the last call to `replayed`,
  // checking the invariants after each.
  void sync(uint64_t seed, int round) {
    read_options ro;
    ro.after = replayed.position;
    auto err = store.read(ro, [&](recorded_event&& r) {
      if (auto bad = state::apply(replayed, r))
        return bad;
      auto broken = state::check_invariants(replayed);
      if (!broken.empty())
        CAF_FAIL("seed " << seed << " round " << round << " position "
                         << r.position << ": " << broken.front());
      return caf::error{};
    });
    CAF_REQUIRE(!err);
  }

  // The properties, checked against the log as it is now.
  void check(uint64_t seed, int round) {
    sync(seed, round);
    auto live = live_state();
    auto events = events_of(store);
    if (!(replayed == live))
      CAF_FAIL("seed " << seed << " round " << round
                       << ": replay from zero differs from the master");
    auto positions = store.snapshot_positions();
    CAF_REQUIRE(positions);
    for (auto p : *positions) {
      if (!snapshots_checked.insert(p).second)
        continue;
      auto snap = store.latest_snapshot(p);
      CAF_REQUIRE(snap && *snap);
      auto from = state::from_snapshot(nlohmann::json::parse((*snap)->state));
      CAF_REQUIRE(from);
      for (const auto& r : events)
        if (r.position > p)
          CAF_REQUIRE(!state::apply(*from, r));
      if (!(*from == live))
        CAF_FAIL("seed " << seed << " round " << round << ": snapshot at " << p
                         << " plus the tail differs from the master");
    }
    for (const auto& [id, e] : live.experiments)
      if (!state::is_terminal(e.status) && !e.searcher_inbox.empty())
        CAF_FAIL("seed " << seed << " round " << round << ": experiment " << id
                         << " has " << e.searcher_inbox.size()
                         << " searcher inputs nobody consumed");
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(command_property_tests, fixture)

CAF_TEST(random commands keep the log replayable and every input consumed) {
  start(store);
  for (uint64_t seed : {1u, 2u, 3u, 4u}) {
    std::mt19937_64 rng{seed};
    for (int round = 0; round < 200; ++round) {
      if (getenv("DET_PROPERTY_TRACE"))
        fprintf(stderr, "seed %d round %d\n", int(seed), round);
      step(rng);
      if (round % 10 == 9)
        check(seed, round);
    }
    check(seed, 200);
  }
  auto st = live_state();
  if (getenv("DET_PROPERTY_TRACE"))
    fprintf(stderr, "%s\n", nlohmann::json(st.applied_by_type).dump().c_str());
  // The run did something: trials ran to completion and failed.
  int ended = 0;
  for (const auto& [id, t] : st.trials)
    ended += state::is_terminal(t.status) ? 1 : 0;
  CAF_CHECK(st.experiments.size() >= 3u);
  CAF_CHECK(ended > 0);
  CAF_CHECK(orders > 0);
  CAF_CHECK(!store.snapshot_positions()->empty());
  stop_master();
}

CAF_TEST_FIXTURE_SCOPE_END()
