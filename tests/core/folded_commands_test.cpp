// The commands that replaced the master actor's own messages
// (core/commands_experiments.hpp, core/commands_agents.hpp,
// core/commands_users.hpp; also what connect_atom and disconn_atom decide):
// decided through master_core::decide, each gives the events, refusal and reply
// of the master_core method the master called for the old message. Two masters
// over their own logs walk the same story, one by the methods and one by the
// commands; after every step their decisions and, at the end, their states and
// logs are the same.

#include "core/experiments_parse.hpp"
#include "tests/core/core_cluster.hpp"

#include "messages/errc.hpp"

#include <gtest/gtest.h>

#include <functional>

namespace det {
namespace {

using namespace det::test;

using old_call = std::function<decision(master_core&, int64_t)>;

std::vector<std::string> encoded(const decision& d) {
  std::vector<std::string> out;
  for (const auto& ev : d.events) {
    auto n = to_new_event(ev);
    out.push_back(n.stream + " " + n.body.type + " " + n.body.payload);
  }
  return out;
}

struct twins {
  cluster by_method;
  cluster by_command;

  /// One step: `old` on one master, `c` on the other. Returns the
  /// command's decision.
  decision same(const old_call& old, const command& c) {
    auto x = by_method.run(old(*by_method.core, by_method.now));
    auto y = by_command.run(by_command.core->decide(c, by_command.now));
    EXPECT_EQ(encoded(x), encoded(y));
    EXPECT_EQ(bool(x.refusal), bool(y.refusal));
    if (x.refusal && y.refusal) {
      EXPECT_EQ(code_of(x.refusal), code_of(y.refusal));
      EXPECT_EQ(render(x.refusal), render(y.refusal));
    }
    auto reply = x.reply.is_null() ? nlohmann::json::object() : x.reply;
    if (!x.refusal)
      EXPECT_EQ(reply, y.reply);
    EXPECT_EQ(x.effects.size(), y.effects.size());
    return y;
  }

  /// A step both masters take the same way (what is not a command).
  void both(const old_call& f) {
    by_method.run(f(*by_method.core, by_method.now));
    by_command.run(f(*by_command.core, by_command.now));
  }

  void pass(int64_t us) {
    by_method.now += us;
    by_command.now += us;
  }
};

std::string alloc_of(master_core& core, int64_t trial) {
  auto t = state::find_trial(core.state(), trial);
  return t != nullptr && t->allocation ? t->allocation->id : std::string{};
}

TEST(folded_commands, decide_gives_what_the_methods_gave) {
  twins t;
  // Experiments: submitted (and a config that is not an object refused as
  // the master actor refused it).
  auto d = t.same(
      [](master_core& c, int64_t now) {
        return c.submit_experiment(experiment(), "alice", now);
      },
      experiment_submit{experiment(), "alice"});
  EXPECT_EQ(d.reply, (nlohmann::json{{"experiment_id", 1}}));
  expect_refused(t.by_command.core->decide(
                     experiment_submit{nlohmann::json::array(), "alice"},
                     t.by_command.now),
                 errc::invalid_argument,
                 "experiment config is not a JSON object");
  t.both([](master_core& c, int64_t now) {
    return c.agent_connected("a1", "default", 2, "cpu", "", {}, now);
  });
  t.same(
      [](master_core& c, int64_t now) {
        return c.agent_connected("a2", "default", 1, "cpu", "", {}, now);
      },
      agent_connect{"a2", "default", 1, "cpu", "", {}});
  auto alloc = alloc_of(*t.by_command.core, 1);
  ASSERT_FALSE(alloc.empty());
  ASSERT_EQ(alloc, alloc_of(*t.by_method.core, 1));
  // Allocations' reports.
  t.same([&](master_core& c,
             int64_t now) { return c.allocation_running(alloc, now); },
         allocation_running_report{alloc});
  t.pass(sec);
  t.same(
      [&](master_core& c, int64_t now) {
        return c.checkpoint_reported(alloc, "ck-50", 50,
                                     nlohmann::json{{"k", "v"}}, now);
      },
      checkpoint_report{alloc, "ck-50", 50, nlohmann::json{{"k", "v"}}});
  t.same(
      [&](master_core& c, int64_t now) {
        return c.metrics_reported(alloc, "validation", 50,
                                  nlohmann::json{{"loss", 0.5}}, now);
      },
      metrics_report{alloc, "validation", 50, nlohmann::json{{"loss", 0.5}}});
  t.same(
      [](master_core& c, int64_t now) {
        return c.checkpoint_reported("9.9", "ck-x", 1, {}, now);
      },
      checkpoint_report{"9.9", "ck-x", 1, nullptr});
  // A user's edit: no method of its own now (its fields are parsed at the
  // route, tests/core/master_core_test.cpp); both masters take it alike.
  auto edit = parse_experiment_edit(
      1, nlohmann::json{{"name", "renamed"}, {"notes", "n"}});
  ASSERT_TRUE(edit);
  edit->username = "alice";
  t.both([&](master_core& c, int64_t now) { return c.decide(*edit, now); });
  // Pause, pause again, activate.
  for (int i = 0; i < 2; ++i)
    t.same(
        [](master_core& c, int64_t now) { return c.pause_experiment(1, now); },
        experiment_pause{1});
  t.same(
      [](master_core& c, int64_t now) { return c.activate_experiment(1, now); },
      experiment_activate{1});
  // Operators and the cloud.
  t.same(
      [](master_core& c, int64_t now) {
        return c.set_slot_enabled("a2", 0, false, false, now);
      },
      slot_enable{"a2", 0, false, false});
  t.same(
      [](master_core& c, int64_t now) {
        return c.set_slot_enabled("a2", 7, false, false, now);
      },
      slot_enable{"a2", 7, false, false});
  t.same(
      [](master_core& c, int64_t now) {
        return c.set_agent_enabled("a2", true, false, now);
      },
      agent_enable{"a2", true, false});
  t.same(
      [](master_core& c, int64_t now) {
        return c.set_agent_enabled("nobody", false, true, now);
      },
      agent_enable{"nobody", false, true});
  t.same([](master_core& c,
            int64_t now) { return c.set_agent_slots("a2", 3, now); },
         agent_resize{"a2", 3});
  t.same([](master_core& c,
            int64_t now) { return c.set_agent_slots("a2", -1, now); },
         agent_resize{"a2", -1});
  alloc = alloc_of(*t.by_command.core, 1);
  auto spot_agent = state::find_trial(t.by_command.core->state(), 1)
                        ->allocation->assignments.front()
                        .agent_id;
  d = t.same([&](master_core& c,
                 int64_t now) { return c.spot_interruption(spot_agent, now); },
             spot_interruption_notice{spot_agent});
  EXPECT_TRUE(d.reply.contains("trials"));
  // The trial exits (asked to stop), and the exit is reported again.
  for (int i = 0; i < 2; ++i)
    t.same([&](master_core& c,
               int64_t now) { return c.allocation_exited(alloc, 0, now); },
           allocation_exit_report{alloc, 0});
  // Trials and experiments stopped.
  t.same([](master_core& c, int64_t now) { return c.kill_trial(1, now); },
         trial_kill{1});
  t.same([](master_core& c, int64_t now) { return c.kill_trial(99, now); },
         trial_kill{99});
  t.same(
      [](master_core& c, int64_t now) { return c.cancel_experiment(42, now); },
      experiment_cancel{42});
  t.same([](master_core& c, int64_t now) { return c.kill_experiment(1, now); },
         experiment_kill{1});
  t.same(
      [](master_core& c, int64_t now) {
        return c.archive_experiment(1, true, "alice", now);
      },
      experiment_archive{1, true, "alice"});
  t.same(
      [](master_core& c, int64_t now) {
        return c.continue_experiment(1, nlohmann::json::object(), "alice", now);
      },
      experiment_continue{1, nlohmann::json::object(), "alice"});
  t.same(
      [](master_core& c, int64_t now) {
        return c.archive_experiment(1, false, "alice", now);
      },
      experiment_archive{1, false, "alice"});
  d = t.same([](master_core& c,
                int64_t now) { return c.delete_experiment(1, "alice", now); },
             experiment_delete{1, "alice"});
  // (Refused alike while the continued experiment runs; else it counts.)
  EXPECT_TRUE(d.refusal || d.reply.contains("checkpointsDeleted"));
  // An agent's connection ends, and it comes back.
  t.same([](master_core& c,
            int64_t now) { return c.agent_disconnected("a2", "gone", now); },
         agent_disconnect{"a2", "gone"});
  t.same(
      [](master_core& c, int64_t now) {
        return c.agent_connected("a2", "default", 3, "cpu", "", {{"1.9", 0}},
                                 now);
      },
      agent_connect{"a2", "default", 3, "cpu", "", {{"1.9", 0}}});
  // Both masters hold the same state, and their logs replay to it.
  EXPECT_TRUE(t.by_method.core->state() == t.by_command.core->state());
  EXPECT_TRUE(t.by_command.replayed() == t.by_command.core->state());
}

TEST(folded_commands, a_user_change_replies_the_token_id_the_core_drew) {
  twins t;
  domain_event created = user_created{"bob", false, "hash", t.by_method.now};
  t.same([&](master_core& c, int64_t) { return c.change_users(created); },
         user_change{created});
  // The same user again: refused alike.
  auto d =
      t.same([&](master_core& c, int64_t) { return c.change_users(created); },
             user_change{created});
  expect_refused(d, errc::conflict, "already exists");
  // An access token: the caller's id is ignored, the reply names the one
  // written, and written_event gives the event as the log holds it.
  access_token_created asked;
  asked.token_id = 77;
  asked.username = "bob";
  asked.token_hash = std::string(64, 'a');
  asked.by = "bob";
  asked.at_us = t.by_command.now;
  auto x = t.by_method.run(t.by_method.core->change_users(asked));
  auto y = t.by_command.run(
      t.by_command.core->decide(user_change{asked}, t.by_command.now));
  ASSERT_FALSE(y.refusal) << render(y.refusal);
  ASSERT_EQ(encoded(x), encoded(y));
  ASSERT_EQ(y.events.size(), 1u);
  auto drawn = std::get<access_token_created>(y.events[0]).token_id;
  EXPECT_NE(drawn, 77);
  EXPECT_EQ(y.reply, (nlohmann::json{{"tokenId", drawn}}));
  auto written = written_event(asked, y.reply);
  EXPECT_EQ(to_new_event(written).body.payload,
            to_new_event(y.events[0]).body.payload);
  // Nothing written (a session that is not live): the event asked for.
  domain_event ended = session_ended{"bob", "no-such-hash", t.by_command.now};
  d = t.same([&](master_core& c, int64_t) { return c.change_users(ended); },
             user_change{ended});
  EXPECT_TRUE(d.events.empty());
  EXPECT_EQ(d.reply, nlohmann::json::object());
  EXPECT_EQ(to_new_event(written_event(ended, d.reply)).body.payload,
            to_new_event(ended).body.payload);
}

} // namespace
} // namespace det
