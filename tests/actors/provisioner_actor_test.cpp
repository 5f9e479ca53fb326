#define CAF_SUITE provisioner_actor
#define FAIL(x) CAF_FAIL(x)

#include "actors/provisioner_actor.hpp"
#include "tests/actors/master_fixture.hpp"

#include "store/memory_event_store.hpp"

#include <caf/event_based_actor.hpp>

using namespace det;
using namespace det::actor_test;
using namespace std::chrono_literals;

namespace {

// Answers every call at once on the caller's thread (the provisioner turns
// the answer into a message to itself) and counts the calls.
struct fake_provider : instance_provider {
  int lists = 0;
  /// The provisioner asks for the grace once per decision.
  mutable int decisions = 0;
  std::vector<launch_spec> launches;
  std::vector<std::string> terminated;

  void launch(const launch_spec& spec,
              provider_done<caf::expected<launch_result>> done) override {
    launches.push_back(spec);
    launch_result r;
    for (int k = 0; k < spec.count; ++k)
      r.instance_ids.push_back("i-" + std::to_string(spec.launch_seq) + "-"
                               + std::to_string(k));
    done(r);
  }

  void terminate(std::vector<std::string> ids,
                 provider_done<caf::error> done) override {
    terminated.insert(terminated.end(), ids.begin(), ids.end());
    done(caf::error{});
  }

  int64_t consistency_grace_us() const override {
    ++decisions;
    return 0;
  }

  /// The state every launched instance is listed in, and the exits its
  /// tags claim.
  std::string listed_state = "running";
  std::vector<agent::exit_report> exit_claims;

  /// Listings kept unanswered (a slow cloud) while set.
  bool hold_lists = false;
  std::vector<provider_done<caf::expected<provider_inventory>>> held;

  void list(provider_done<caf::expected<provider_inventory>> done) override {
    ++lists;
    if (hold_lists) {
      held.push_back(std::move(done));
      return;
    }
    provider_inventory inv;
    for (const auto& l : launches)
      for (int k = 0; k < l.count; ++k) {
        auto id = "i-" + std::to_string(l.launch_seq) + "-" + std::to_string(k);
        inv.instances.push_back({id, listed_state, l.client_token, ""});
        if (!exit_claims.empty())
          inv.exit_claims[id] = exit_claims;
      }
    done(inv);
  }
};

std::string experiment_config(int slots) {
  return nlohmann::json{
      {"name", "prov-test"},
      {"entrypoint", "model_def:Trial"},
      {"hyperparameters", {{"lr", 0.1}}},
      {"resources", {{"slots_per_trial", slots}, {"resource_pool", "default"}}},
      {"searcher",
       {{"name", "single"},
        {"metric", "loss"},
        {"max_length", {{"batches", 100}}}}}}
      .dump();
}

/// An agent connection that only counts what the master sends it. (It
/// takes an argument: CAF 0.17 spawning a function actor without any binds
/// a reference to a null pointer, which UBSan stops on.)
caf::behavior silent_agent(caf::event_based_actor*, int* frames) {
  return {[frames](caf::message&) { ++*frames; }};
}

struct fixture : master_fixture {
  memory_event_store store;
  std::shared_ptr<fake_provider> provider = std::make_shared<fake_provider>();
  caf::actor prov;

  fixture() {
    auto& p = cluster.pools.front();
    p.provider = "aws";
    p.slots_per_instance = 1;
    p.max_instances = 10;
    p.instance_type = "t2.micro";
  }

  ~fixture() {
    // Listings a test left unanswered hold the provisioner's state (which
    // holds this provider): drop them, then stop the actors.
    provider->held.clear();
    if (prov)
      anon_send_exit(prov, caf::exit_reason::user_shutdown);
    stop_master();
  }

  /// The master, then the pool's provisioner: no ticks (tick_interval 0),
  /// so whatever it decides, a wake made it decide.
  void start_cluster(std::chrono::milliseconds gap = 0ms, int burst = 1,
                     std::chrono::milliseconds scale_up_delay = 0ms) {
    start(store);
    provisioner_options po;
    po.scale_up_delay = scale_up_delay;
    po.pool = "default";
    po.cluster_id = "actor-test";
    po.tick_interval = 0ms;
    po.min_decision_gap = gap;
    po.decision_burst = burst;
    po.now_us = [this] { return now; };
    prov = spawn_provisioner(sys, master, provider, po);
    run();
  }

  int64_t submit(int slots = 1) {
    auto id = master_fixture::submit(experiment_config(slots), "u");
    CAF_REQUIRE(id > 0);
    run();
    return id;
  }

  /// Runs what is due now, without firing timers.
  void run_due() {
    while (sched.try_run_once()) {
    }
  }

  /// Moves both clocks (the master's and the actors') by `d`, then runs
  /// what became due.
  void advance(std::chrono::milliseconds d) {
    now += d.count() * 1000;
    sched.advance_time(d);
    run_due();
  }

  /// submit() without firing timers.
  void submit_due(int slots = 1) {
    anon_send(master,
              command{experiment_submit{
                  nlohmann::json::parse(experiment_config(slots)), "u"}});
    run_due();
  }

  /// Frames the connected agents were sent.
  int frames = 0;

  void connect_agent(const std::string& id, int slots) {
    connect_agent_due(id, slots);
    run();
  }

  void connect_agent_due(const std::string& id, int slots) {
    auto conn = sys.spawn(silent_agent, &frames);
    agent_hello h{id, "default", slots, "cpu", "", {}, {}};
    anon_send(master, connect_atom::value, h, conn);
    run_due();
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(provisioner_actor_tests, fixture)

// Before wakes, a trial that no agent could hold waited for the next tick
// (1 s in production) before the provisioner even looked.
CAF_TEST(an unschedulable trial is launched for without waiting for a tick) {
  start_cluster();
  submit();
  CAF_REQUIRE_EQUAL(provider->launches.size(), 1u);
  CAF_CHECK_EQUAL(provider->launches[0].count, 1);
  // Decided from the state: no listing (no cloud call) on the way.
  CAF_CHECK_EQUAL(provider->lists, 0);
  // The launch is recorded: a second wake buys nothing more.
  submit();
  CAF_CHECK_EQUAL(provider->launches.size(), 2u);
  anon_send(prov, wake_atom::value);
  run();
  CAF_CHECK_EQUAL(provider->launches.size(), 2u);
}

CAF_TEST(a trial that fits a connected agent wakes the provisioner but buys
             nothing) {
  start_cluster();
  connect_agent("a1", 2);
  auto before = provider->decisions;
  submit();
  CAF_CHECK_GREATER(provider->decisions, before); // it did decide
  CAF_CHECK_EQUAL(provider->launches.size(), 0u);
}

// Deciding on every change must not buy and sell on every change: an
// instance bought for a trial that is gone at once stays (it is starting,
// then idle until max_idle_agent_period) and serves the next one.
CAF_TEST(demand that flickers buys one instance and terminates nothing) {
  start_cluster();
  for (int i = 0; i < 5; ++i) {
    auto id = submit();
    decide(experiment_kill{id});
    run();
  }
  CAF_CHECK_EQUAL(provider->launches.size(), 1u);
  CAF_CHECK(provider->terminated.empty());
}

CAF_TEST(wakes during a decision are coalesced into one more decision) {
  start_cluster();
  auto before = provider->decisions;
  for (int i = 0; i < 20; ++i)
    anon_send(prov, wake_atom::value);
  run();
  // The first wake starts a decision; the other 19 arrive while it waits
  // for the master and make one decision more.
  CAF_CHECK_EQUAL(provider->decisions - before, 2);
}

CAF_TEST(wakes within the minimum gap wait for its end) {
  start_cluster(50ms);
  // run() would also fire the gap's timer: run only what is due now.
  auto run_due = [this] {
    while (sched.try_run_once()) {
    }
  };
  auto before = provider->decisions;
  anon_send(prov, wake_atom::value);
  run_due();
  CAF_CHECK_EQUAL(provider->decisions - before, 1);
  anon_send(prov, wake_atom::value);
  anon_send(prov, wake_atom::value);
  run_due();
  CAF_CHECK_EQUAL(provider->decisions - before, 1); // within the gap
  sched.advance_time(49ms);
  run_due();
  CAF_CHECK_EQUAL(provider->decisions - before, 1);
  sched.advance_time(1ms);
  run_due();
  CAF_CHECK_EQUAL(provider->decisions - before, 2); // both, as one
  sched.advance_time(50ms);
  run_due();
  CAF_CHECK_EQUAL(provider->decisions - before, 2); // nothing more asked
  // Past the gap, a wake is decided at once.
  anon_send(prov, wake_atom::value);
  run_due();
  CAF_CHECK_EQUAL(provider->decisions - before, 3);
}

CAF_TEST(a burst of wakes decides at once then at the average rate) {
  start_cluster(50ms, 3);
  auto run_due = [this] {
    while (sched.try_run_once()) {
    }
  };
  auto before = provider->decisions;
  for (int i = 1; i <= 3; ++i) {
    anon_send(prov, wake_atom::value);
    run_due();
    CAF_CHECK_EQUAL(provider->decisions - before, i);
  }
  // Three decisions started within 150 ms: the fourth waits for the first to
  // be 150 ms old.
  sched.advance_time(100ms);
  anon_send(prov, wake_atom::value);
  run_due();
  CAF_CHECK_EQUAL(provider->decisions - before, 3);
  sched.advance_time(50ms);
  run_due();
  CAF_CHECK_EQUAL(provider->decisions - before, 4);
}

// Without the delay, an agent disabled for a moment (or a trial that
// restarts at once) bought an instance within milliseconds; upstream's
// provisioner acts every 5 s. These tests run only what is due (run()
// would fire the delay's timer at once).
CAF_TEST(demand is launched for once it has waited scale_up_delay) {
  start_cluster(0ms, 1, 5000ms);
  submit_due();
  CAF_CHECK_EQUAL(provider->launches.size(), 0u);
  advance(4s);
  CAF_CHECK_EQUAL(provider->launches.size(), 0u);
  // The wake set for the end of the delay decides without a tick.
  advance(1s);
  CAF_REQUIRE_EQUAL(provider->launches.size(), 1u);
  CAF_CHECK_EQUAL(provider->launches[0].count, 1);
}

CAF_TEST(demand met within scale_up_delay buys nothing) {
  start_cluster(0ms, 1, 5000ms);
  submit_due();
  advance(2s);
  connect_agent_due("a1", 1); // the trial is placed there
  advance(10s);
  anon_send(prov, wake_atom::value);
  run_due();
  CAF_CHECK_EQUAL(provider->launches.size(), 0u);
  // A later burst waits its own delay, from when it came, and is bought
  // in one launch.
  submit_due();
  advance(1s);
  submit_due();
  advance(3s);
  CAF_CHECK_EQUAL(provider->launches.size(), 0u);
  advance(1s);
  CAF_REQUIRE_EQUAL(provider->launches.size(), 1u);
  CAF_CHECK_EQUAL(provider->launches[0].count, 2);
}

CAF_TEST(instances min_instances asks for never wait for scale_up_delay) {
  cluster.pools.front().min_instances = 2;
  start_cluster(0ms, 1, 5000ms);
  anon_send(prov, wake_atom::value);
  run_due();
  CAF_REQUIRE_EQUAL(provider->launches.size(), 1u);
  CAF_CHECK_EQUAL(provider->launches[0].count, 2);
}

// The tick lists the provider and reconciles; a trial that waits while
// the cloud is slow to answer the listing is not held up by it.
CAF_TEST(the tick lists the provider and a wake does not wait for it) {
  start_cluster();
  provider->hold_lists = true;
  auto before = provider->decisions;
  anon_send(prov, tick_atom::value);
  run();
  CAF_CHECK_EQUAL(provider->lists, 1);
  CAF_CHECK_EQUAL(provider->decisions - before, 0); // waits for the cloud
  submit();
  CAF_CHECK_EQUAL(provider->launches.size(), 1u);
  anon_send(prov, tick_atom::value); // a listing is under way: no second
  run();
  CAF_CHECK_EQUAL(provider->lists, 1);
  auto decided = provider->decisions;
  provider->hold_lists = false;
  provider->held.front()(provider_inventory{});
  run();
  CAF_CHECK_EQUAL(provider->decisions - decided, 1); // on the listing
  CAF_CHECK_EQUAL(provider->launches.size(), 1u);
}

// The master was down when the trial ended; the agent wrote the exit into
// its instance's tags and stopped the instance. The provisioner finds it
// terminated: the trial ends as it really did (its exit code, not
// agent_lost), then the instance is reconciled as gone. A claim about an
// allocation that was never on that instance records nothing.
CAF_TEST(
    exits in the tags of a terminated instance end its trials as they ended) {
  start_cluster();
  submit();
  CAF_REQUIRE_EQUAL(provider->launches.size(), 1u);
  auto conn = sys.spawn(silent_agent, &frames);
  agent_hello h{"i-1-0", "default", 1, "cpu", "i-1-0", {}, {}};
  anon_send(master, connect_atom::value, h, conn);
  run();
  auto st = live_state();
  std::string alloc;
  int64_t trial = 0;
  for (const auto& [id, t] : st.trials)
    if (t.allocation) {
      alloc = t.allocation->id;
      trial = id;
    }
  CAF_REQUIRE(!alloc.empty());
  // The master restarts after the outage: the agent never reconnects.
  anon_send(master, disconn_atom::value, std::string{"i-1-0"},
            std::string{"closed"});
  run();
  provider->listed_state = "terminated";
  provider->exit_claims = {{alloc, 3, now}, {"999.1", 0, now}};
  anon_send(prov, tick_atom::value);
  run();
  st = live_state();
  const auto& t = st.trials.at(trial);
  CAF_CHECK(!t.allocation);
  CAF_CHECK_EQUAL(t.last_exit_code, 3);
  CAF_CHECK_NOT_EQUAL(t.last_exit_reason, "agent_lost");
  CAF_CHECK_EQUAL(st.instances.count("i-1-0"), 0u);
}

CAF_TEST_FIXTURE_SCOPE_END()
