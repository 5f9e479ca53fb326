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

  void list(provider_done<caf::expected<provider_inventory>> done) override {
    ++lists;
    provider_inventory inv;
    for (const auto& l : launches)
      for (int k = 0; k < l.count; ++k)
        inv.instances.push_back(
            {"i-" + std::to_string(l.launch_seq) + "-" + std::to_string(k),
             "running", l.client_token, ""});
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

caf::behavior silent_agent(caf::event_based_actor*) {
  return {[](caf::message&) {}};
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
    if (prov)
      anon_send_exit(prov, caf::exit_reason::user_shutdown);
    stop_master();
  }

  /// The master, then the pool's provisioner: no ticks (tick_interval 0),
  /// so whatever it decides, a wake made it decide.
  void start_cluster(std::chrono::milliseconds gap = 0ms, int burst = 1) {
    start(store);
    provisioner_options po;
    po.pool = "default";
    po.cluster_id = "actor-test";
    po.tick_interval = 0ms;
    po.min_decision_gap = gap;
    po.decision_burst = burst;
    po.now_us = [this] { return now; };
    prov = spawn_provisioner(sys, master, provider, po);
    run();
  }

  void submit(int slots = 1) {
    auto id = request<int64_t>(master, submit_atom::value,
                               experiment_config(slots), std::string{"u"});
    CAF_REQUIRE(id > 0);
    run();
  }

  void connect_agent(const std::string& id, int slots) {
    auto conn = sys.spawn(silent_agent);
    agent_hello h{id, "default", slots, "cpu", "", {}, {}};
    anon_send(master, connect_atom::value, h, conn);
    run();
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(provisioner_actor_tests, fixture)

// Before wakes, a trial that no agent could hold waited for the next tick
// (1 s in production) before the provisioner even looked.
CAF_TEST(an unschedulable trial is launched for without waiting for a tick) {
  start_cluster();
  auto lists_before = provider->lists;
  submit();
  CAF_REQUIRE_EQUAL(provider->launches.size(), 1u);
  CAF_CHECK_EQUAL(provider->launches[0].count, 1);
  CAF_CHECK_GREATER(provider->lists, lists_before);
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
  auto lists_before = provider->lists;
  submit();
  CAF_CHECK_GREATER(provider->lists, lists_before); // it did decide
  CAF_CHECK_EQUAL(provider->launches.size(), 0u);
}

CAF_TEST(wakes during a cycle are coalesced into one more cycle) {
  start_cluster();
  auto lists_before = provider->lists;
  for (int i = 0; i < 20; ++i)
    anon_send(prov, wake_atom::value);
  run();
  // The first wake starts a cycle; the other 19 arrive while it waits for
  // the master and make one cycle more.
  CAF_CHECK_EQUAL(provider->lists - lists_before, 2);
}

CAF_TEST(wakes within the minimum gap wait for its end) {
  start_cluster(50ms);
  // run() would also fire the gap's timer: run only what is due now.
  auto run_due = [this] {
    while (sched.try_run_once()) {
    }
  };
  auto lists_before = provider->lists;
  anon_send(prov, wake_atom::value);
  run_due();
  CAF_CHECK_EQUAL(provider->lists - lists_before, 1);
  anon_send(prov, wake_atom::value);
  anon_send(prov, wake_atom::value);
  run_due();
  CAF_CHECK_EQUAL(provider->lists - lists_before, 1); // within the gap
  sched.advance_time(49ms);
  run_due();
  CAF_CHECK_EQUAL(provider->lists - lists_before, 1);
  sched.advance_time(1ms);
  run_due();
  CAF_CHECK_EQUAL(provider->lists - lists_before, 2); // both, as one
  sched.advance_time(50ms);
  run_due();
  CAF_CHECK_EQUAL(provider->lists - lists_before, 2); // nothing more asked
  // Past the gap, a wake is decided at once.
  anon_send(prov, wake_atom::value);
  run_due();
  CAF_CHECK_EQUAL(provider->lists - lists_before, 3);
}

CAF_TEST(a burst of wakes decides at once then at the average rate) {
  start_cluster(50ms, 3);
  auto run_due = [this] {
    while (sched.try_run_once()) {
    }
  };
  auto lists_before = provider->lists;
  for (int i = 1; i <= 3; ++i) {
    anon_send(prov, wake_atom::value);
    run_due();
    CAF_CHECK_EQUAL(provider->lists - lists_before, i);
  }
  // Three cycles started within 150 ms: the fourth waits for the first to
  // be 150 ms old.
  sched.advance_time(100ms);
  anon_send(prov, wake_atom::value);
  run_due();
  CAF_CHECK_EQUAL(provider->lists - lists_before, 3);
  sched.advance_time(50ms);
  run_due();
  CAF_CHECK_EQUAL(provider->lists - lists_before, 4);
}

CAF_TEST_FIXTURE_SCOPE_END()
