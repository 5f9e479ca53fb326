#define CAF_SUITE master_actor
#define FAIL(x) CAF_FAIL(x)

#include "actors/agent_actor.hpp"
#include "tests/actors/master_fixture.hpp"

#include "messages/errc.hpp"
#include "state/queries.hpp"
#include "store/pg_event_store.hpp"
#include "tests/support/test_pg.hpp"

#include <caf/event_based_actor.hpp>

using namespace det;
using namespace det::actor_test;

namespace {

// What the agent's connection received from the master.
struct probe_log {
  std::vector<start_order> starts;
  std::vector<std::string> preempts;
  std::vector<std::string> kills;
  std::vector<std::string> exit_acks;
};

caf::behavior probe(caf::event_based_actor*, probe_log* log) {
  return {
      [=](start_atom, start_order& o) { log->starts.push_back(o); },
      [=](preempt_atom, std::string& alloc, std::string&) {
        log->preempts.push_back(alloc);
      },
      [=](kill_atom, std::string& alloc) { log->kills.push_back(alloc); },
      [=](exitack_atom, std::string& alloc) {
        log->exit_acks.push_back(alloc);
      },
  };
}

std::string experiment_config() {
  return nlohmann::json{
      {"name", "actor-test"},
      {"entrypoint", "model_def:Trial"},
      {"max_restarts", 2},
      {"hyperparameters", {{"lr", 0.1}}},
      {"resources", {{"slots_per_trial", 1}, {"resource_pool", "default"}}},
      {"searcher",
       {{"name", "single"},
        {"metric", "loss"},
        {"max_length", {{"batches", 100}}}}}}
      .dump();
}

struct fixture : master_fixture {
  fixture() { cluster.agent_reconnect_wait_us = 30 * sec; }

  agent_actor join(const std::string& id, int slots, probe_log& plog,
                   std::vector<std::string> running = {}) {
    auto conn = sys.spawn(probe, &plog);
    agent_hello h{id, "default", slots, "cpu", "", std::move(running), {}};
    auto a = spawn_agent_actor(sys, master, h, conn);
    run();
    return a;
  }

  /// A master on `store` with experiment 1's trial running as allocation
  /// 1.1 on agent a1 (one slot); returns the agent's actor.
  agent_actor one_trial_running(memory_event_store& store, probe_log& plog) {
    start(store);
    submit(experiment_config());
    auto agent = join("a1", 1, plog);
    anon_send(agent, running_atom::value, std::string{"1.1"});
    run();
    return agent;
  }
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(master_actor_tests, fixture)

CAF_TEST(a submitted experiment runs on a joining agent and completes) {
  memory_event_store store;
  start(store);
  auto id = submit(experiment_config());
  CAF_CHECK_EQUAL(id, 1);
  probe_log plog;
  auto agent = join("a1", 2, plog);
  CAF_REQUIRE_EQUAL(plog.starts.size(), 1u);
  CAF_CHECK_EQUAL(plog.starts[0].allocation_id, "1.1");
  CAF_CHECK_EQUAL(plog.starts[0].target_length, 100);
  anon_send(agent, running_atom::value, std::string{"1.1"});
  run();
  decide(checkpoint_report{"1.1", "ck-100", 100, nlohmann::json::object()});
  decide(metrics_report{"1.1", "validation", 100, {{"loss", 0.25}}});
  CAF_REQUIRE_EQUAL(plog.preempts.size(), 1u);
  anon_send(agent, exited_atom::value, std::string{"1.1"}, int32_t{0});
  run();
  auto st = live_state();
  CAF_CHECK_EQUAL(state::to_string(state::find_experiment(st, 1)->status),
                  std::string{"COMPLETED"});
  // The master rebuilt from its log alone is the master we had.
  CAF_CHECK(replay(store) == st);
  CAF_CHECK(state::check_invariants(st).empty());
  stop_master();
}

CAF_TEST(a command sent with a callback is answered there once durable) {
  memory_event_store store;
  probe_log plog;
  one_trial_running(store, plog);
  // Each answer, with the position of the log's last metrics report when
  // it came.
  std::vector<std::pair<caf::expected<std::string>, int64_t>> answers;
  auto answer = [&](caf::expected<std::string> r) {
    answers.emplace_back(std::move(r),
                         last_position_of(store, "trial_metrics_reported"));
  };
  anon_send(master,
            command{metrics_report{"1.1", "training", 10, {{"loss", 0.5}}}},
            command_callback{answer});
  // No live allocation: refused, and nothing is written.
  anon_send(master,
            command{metrics_report{"9.1", "training", 10, {{"loss", 0.5}}}},
            command_callback{answer});
  run();
  CAF_REQUIRE_EQUAL(answers.size(), 2u);
  size_t ok = answers[0].first ? 0 : 1;
  const auto& refused = answers[1 - ok];
  CAF_REQUIRE(!refused.first);
  CAF_CHECK_EQUAL(
      render(refused.first.error()),
      render(make_error(errc::not_found, "no live allocation '9.1'")));
  // The report was in the log when its answer came.
  CAF_REQUIRE(answers[ok].first);
  CAF_CHECK(answers[ok].second > 0);
  auto reports = 0;
  for (const auto& r : events_of(store))
    reports += r.body.type == "trial_metrics_reported" ? 1 : 0;
  CAF_CHECK_EQUAL(reports, 1);
  stop_master();
}

CAF_TEST(appends acknowledged together reach the readers in one batch before any
             of their answers) {
  // What on_durable was handed: calls, events, the last position.
  size_t calls = 0, events = 0;
  int64_t published = 0;
  on_durable = [&](std::vector<domain_event> evs, int64_t last) {
    ++calls;
    events += evs.size();
    published = last;
  };
  memory_event_store store;
  probe_log plog;
  one_trial_running(store, plog);
  calls = events = 0;
  // Each answer, with how many of the reports readers had been given when
  // it came (the answers come in the reports' order, one event each).
  std::vector<size_t> seen_at_answer;
  for (int step = 1; step <= 5; ++step)
    anon_send(master,
              command{metrics_report{
                  "1.1", "training", 10 * step, {{"loss", 1.0 / step}}}},
              command_callback{[&](caf::expected<std::string> r) {
                CAF_CHECK(r);
                seen_at_answer.push_back(events);
              }});
  run();
  CAF_REQUIRE_EQUAL(seen_at_answer.size(), 5u);
  CAF_CHECK_EQUAL(events, 5u);
  // One commit's acknowledgements are carried out together: fewer hand-offs
  // to the readers than reports (one each before).
  CAF_CHECK_LESS(calls, 5u);
  CAF_CHECK_EQUAL(published, last_position_of(store, "trial_metrics_reported"));
  // And no report is answered before the readers have it.
  for (size_t i = 0; i < seen_at_answer.size(); ++i)
    CAF_CHECK_GREATER_OR_EQUAL(seen_at_answer[i], i + 1);
  stop_master();
}

CAF_TEST(an append acknowledged before a failed one is answered before the
             master stops) {
  memory_event_store store;
  probe_log plog;
  one_trial_running(store, plog);
  auto before = events_of(store).size();
  std::vector<int> answered(2, 0); // 1: answered, -1: refused
  for (int i = 0; i < 2; ++i)
    anon_send(master,
              command{metrics_report{
                  "1.1", "training", 10 * (i + 1), {{"loss", 0.5}}}},
              command_callback{[&answered, i](caf::expected<std::string> r) {
                answered[static_cast<size_t>(i)] = r ? 1 : -1;
              }});
  // Step until the first report is in the log; the second's append fails.
  for (int n = 0; n < 1000 && events_of(store).size() == before; ++n)
    sched.run_once();
  CAF_REQUIRE_EQUAL(events_of(store).size(), before + 1);
  store.fail_next_append();
  run();
  // The first report is in the log: its answer went out before the master
  // stopped for the second's failure, which is never answered.
  CAF_CHECK_EQUAL(answered[0], 1);
  CAF_CHECK_EQUAL(answered[1], 0);
  CAF_CHECK_EQUAL(events_of(store).size(), before + 1);
  stop_master();
}

CAF_TEST(
    an exit is acknowledged once the log holds it and a repeat writes nothing) {
  memory_event_store store;
  probe_log plog;
  auto agent = one_trial_running(store, plog);
  auto before = replay(store).position;
  anon_send(agent, exited_atom::value, std::string{"1.1"}, int32_t{1});
  run();
  CAF_CHECK_EQUAL(plog.exit_acks, std::vector<std::string>{"1.1"});
  auto after = replay(store);
  CAF_CHECK(after.position > before);
  // The agent did not hear the ack and sends the exit again; so does one
  // for an allocation that never existed: both acknowledged, none written.
  anon_send(agent, exited_atom::value, std::string{"1.1"}, int32_t{1});
  anon_send(agent, exited_atom::value, std::string{"7.1"}, int32_t{0});
  run();
  CAF_CHECK_EQUAL(plog.exit_acks,
                  (std::vector<std::string>{"1.1", "1.1", "7.1"}));
  CAF_CHECK_EQUAL(replay(store).position, after.position);
  stop_master();
}

CAF_TEST(a repeated exit is not acknowledged before the first one is durable) {
  memory_event_store store;
  probe_log plog;
  auto agent = one_trial_running(store, plog);
  // The exit and its repeat (the agent reconnected meanwhile) reach the
  // master while the writer has not run: the repeat writes nothing, but
  // the log does not hold the exit yet, so neither is acknowledged.
  anon_send(agent, exited_atom::value, std::string{"1.1"}, int32_t{0});
  anon_send(agent, exited_atom::value, std::string{"1.1"}, int32_t{0});
  auto writer_actor = caf::actor_cast<caf::abstract_actor*>(writer);
  sched.run_jobs_filtered([&](caf::resumable* r) {
    return dynamic_cast<caf::abstract_actor*>(r) != writer_actor;
  });
  CAF_CHECK_EQUAL(last_position_of(store, "trial_exited"), 0);
  CAF_CHECK(plog.exit_acks.empty());
  run();
  CAF_CHECK(last_position_of(store, "trial_exited") > 0);
  CAF_CHECK_EQUAL(plog.exit_acks, (std::vector<std::string>{"1.1", "1.1"}));
  stop_master();
}

CAF_TEST(a trial on a lost agent resumes on another agent from its checkpoint) {
  memory_event_store store;
  start(store);
  submit(experiment_config());
  probe_log first;
  auto a1 = join("a1", 1, first);
  CAF_REQUIRE_EQUAL(first.starts.size(), 1u);
  anon_send(a1, running_atom::value, std::string{"1.1"});
  run();
  decide(checkpoint_report{"1.1", "ck-40", 40, nlohmann::json::object()});
  anon_send(a1, disconn_atom::value, std::string{"connection lost"});
  run();
  now += 31 * sec; // past agent_reconnect_wait
  anon_send(master, tick_atom::value);
  run();
  probe_log second;
  join("a2", 1, second);
  CAF_REQUIRE_EQUAL(second.starts.size(), 1u);
  CAF_CHECK_EQUAL(second.starts[0].allocation_id, "1.2");
  CAF_REQUIRE(second.starts[0].resume_from.has_value());
  CAF_CHECK_EQUAL(second.starts[0].resume_from->uuid, "ck-40");
  auto st = live_state();
  CAF_CHECK_EQUAL(state::find_trial(st, 1)->restarts, 0);
  CAF_CHECK(replay(store) == st);
  stop_master();
}

CAF_TEST(a master rebuilt from a PostgreSQL log continues where it stopped) {
  auto url = test::fresh_database("master_actor_pg");
  auto opened = pg_event_store::open({url, lock_policy::wait, true, nullptr});
  CAF_REQUIRE(opened);
  auto& store = **opened;
  start(store);
  submit(experiment_config());
  probe_log plog;
  auto agent = join("a1", 2, plog);
  anon_send(agent, running_atom::value, std::string{"1.1"});
  run();
  auto before = live_state();
  stop_master();
  // Rebuild purely from the log, event for event.
  auto rebuilt = replay(store);
  CAF_CHECK(rebuilt == before);
  start(store, rebuilt);
  // The new master gives the agent its reconnect wait; the agent comes
  // back reporting its trial, which stays running (not restarted).
  probe_log again;
  join("a1", 2, again, {"1.1"});
  CAF_CHECK(again.starts.empty());
  auto st = live_state();
  CAF_CHECK_EQUAL(state::to_string(state::find_trial(st, 1)->status),
                  std::string{"running"});
  CAF_CHECK_EQUAL(state::find_trial(st, 1)->allocation->id, "1.1");
  CAF_CHECK(replay(store) == st);
  stop_master();
}

CAF_TEST(overlapping scheduling passes never place a trial twice) {
  memory_event_store store;
  start(store);
  auto config = nlohmann::json::parse(experiment_config());
  config["searcher"] = {{"name", "random"},
                        {"metric", "loss"},
                        {"max_trials", 6},
                        {"max_length", {{"batches", 10}}}};
  submit(config.dump());
  // Agents join and ticks arrive while passes are in flight: each asks
  // for a pass; the pool actor runs one at a time on a snapshot, and the
  // master checks each result against the state it has when it arrives.
  std::vector<probe_log> logs(3);
  std::vector<caf::actor> conns;
  for (int i = 0; i < 3; ++i) {
    auto conn = sys.spawn(probe, &logs[static_cast<size_t>(i)]);
    agent_hello h{"a" + std::to_string(i), "default", 2, "cpu", "", {}, {}};
    spawn_agent_actor(sys, master, h, conn);
    anon_send(master, tick_atom::value);
  }
  run();
  size_t starts = 0;
  std::set<std::string> allocs;
  for (const auto& l : logs)
    for (const auto& o : l.starts) {
      ++starts;
      allocs.insert(o.allocation_id);
    }
  CAF_CHECK_EQUAL(starts, 6u);
  CAF_CHECK_EQUAL(allocs.size(), 6u);
  auto st = live_state();
  CAF_CHECK(state::check_invariants(st).empty());
  CAF_CHECK(replay(store) == st);
  stop_master();
}

CAF_TEST(a command sees every change recorded before it and is recorded in the
             same turn) {
  memory_event_store store;
  probe_log plog;
  one_trial_running(store, plog);
  decide(checkpoint_report{"1.1", "ck-100", 100, nlohmann::json::object()});
  auto before = replay(store).position;
  // Sent back to back: the second is decided on the state the first
  // recorded, so the checkpoint's removal is already under way (decided
  // on a read, then recorded separately, both would pass).
  auto rm = command{remove_checkpoint_files{{"ck-100"}, {"*.bin"}, "admin"}};
  auto first = self->request(master, caf::infinite, rm);
  auto second = self->request(master, caf::infinite, rm);
  auto third =
      self->request(master, caf::infinite,
                    command{retain_logs{1, std::nullopt, 14, "admin"}});
  auto unknown =
      self->request(master, caf::infinite,
                    command{retain_logs{7, std::nullopt, 14, "admin"}});
  run();
  std::vector<std::string> answers;
  for (auto* f : {&first, &second, &third, &unknown})
    f->receive([&](const std::string& reply) { answers.push_back(reply); },
               [&](caf::error& err) { answers.push_back(render(err)); });
  CAF_REQUIRE_EQUAL(answers.size(), 4u);
  CAF_CHECK_EQUAL(answers[0], "{}");
  CAF_CHECK(answers[1].find("ck-100") != std::string::npos);
  CAF_CHECK(answers[1] != "{}");
  CAF_CHECK_EQUAL(answers[2], "{}");
  CAF_CHECK_EQUAL(answers[3], "not_found: experiment 7 not found");
  // Two events in the log, none for the refused commands.
  auto after = replay(store);
  CAF_CHECK_EQUAL(after.position, before + 2);
  CAF_CHECK_EQUAL(
      state::trials_of_experiment(after, 1).front()->log_retention_days,
      std::optional<int64_t>{14});
  CAF_CHECK(after == live_state());
  stop_master();
}

CAF_TEST_FIXTURE_SCOPE_END()
