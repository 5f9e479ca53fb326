#define CAF_SUITE experiment_creation_actor
#define FAIL(x) CAF_FAIL(x)

#include "actors/agent_actor.hpp"
#include "actors/experiment_creation_actor.hpp"
#include "tests/actors/master_fixture.hpp"

#include "messages/errc.hpp"
#include "messages/model_archive.hpp"
#include "state/queries.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include <map>
#include <memory>
#include <optional>

using namespace det;
using namespace det::actor_test;

namespace {

// What an agent's connection received from the master.
struct start_log {
  std::vector<start_order> starts;
};

caf::behavior probe(caf::event_based_actor*, start_log* log) {
  return {
      [=](start_atom, start_order& o) { log->starts.push_back(o); },
      [=](preempt_atom, std::string&, std::string&) {},
      [=](kill_atom, std::string&) {},
      [=](exitack_atom, std::string&) {},
  };
}

/// A model definition store the test controls, in place of the detached
/// model definition actor (its own thread, outside the test coordinator):
/// it builds the archive as that actor does, and either stores it at once,
/// holds the put until ok_atom stores it (ok_atom, why: refuses it), or
/// refuses it with `refusal`.
struct store_control {
  bool hold = false;
  caf::error refusal;
  std::map<int64_t, std::string> stored;
  int gets = 0;
  struct held_put {
    int64_t id = 0;
    std::string tgz;
    caf::typed_response_promise<caf::ok_atom> rp;
  };
  std::vector<held_put> held;
};

caf::behavior store_stub(caf::event_based_actor* self, store_control* c) {
  return {
      [=](put_atom, int64_t id,
          const model_files& files) -> caf::result<caf::ok_atom> {
        if (c->refusal)
          return c->refusal;
        auto tgz = make_model_archive(*files.list);
        if (!tgz)
          return std::move(tgz.error());
        if (!c->hold) {
          c->stored[id] = *tgz;
          return caf::ok_atom::value;
        }
        auto rp = self->make_response_promise<caf::ok_atom>();
        c->held.push_back({id, *tgz, rp});
        return rp;
      },
      [=](caf::ok_atom) {
        for (auto& h : c->held) {
          c->stored[h.id] = h.tgz;
          h.rp.deliver(caf::ok_atom::value);
        }
        c->held.clear();
      },
      [=](caf::ok_atom, const std::string& why) {
        for (auto& h : c->held)
          h.rp.deliver(make_error(errc::store_unavailable, why));
        c->held.clear();
      },
      [=](get_atom, int64_t id) -> caf::result<std::string> {
        ++c->gets;
        auto it = c->stored.find(id);
        if (it == c->stored.end())
          return make_error(errc::not_found, "no model definition");
        return it->second;
      },
  };
}

nlohmann::json experiment_config() {
  return {{"name", "creation-test"},
          {"entrypoint", "model_def:Trial"},
          {"hyperparameters", {{"lr", 0.1}}},
          {"resources", {{"slots_per_trial", 1}, {"resource_pool", "default"}}},
          {"searcher",
           {{"name", "single"},
            {"metric", "loss"},
            {"max_length", {{"batches", 100}}}}}};
}

/// One file, model_def.py.
model_files model_directory() {
  auto list = nlohmann::json::array({{{"path", "model_def.py"},
                                      {"type", 48},
                                      {"content", "cHJpbnQoMSkK"}, // print(1)
                                      {"mode", 420}}});
  return {std::make_shared<const nlohmann::json>(std::move(list))};
}

experiment_creation creation() {
  experiment_creation c;
  c.config = experiment_config();
  c.owner = "alice";
  c.files = model_directory();
  return c;
}

/// An answer the test reads once it came (or not yet).
template <class T> struct answer {
  std::optional<T> value;
  caf::error error;
  bool came() const { return value || error; }
};

struct fixture : master_fixture {
  store_control control;
  caf::actor defs;
  caf::actor creator;

  fixture() {
    memory_store = std::make_unique<memory_event_store>();
    start(*memory_store);
    defs = sys.spawn(store_stub, &control);
    creator = spawn_experiment_creation_actor(sys, master, defs);
  }

  ~fixture() {
    anon_send_exit(creator, caf::exit_reason::user_shutdown);
    anon_send_exit(defs, caf::exit_reason::user_shutdown);
    stop_master();
  }

  /// Asks `creator` from an actor of its own, which keeps the answer.
  /// (Spawned with an argument: CAF 0.17 spawns a function-based actor
  /// without one through a null pointer, which UBSan reports.)
  template <class T, class... Ts> std::shared_ptr<answer<T>> ask(Ts... xs) {
    auto out = std::make_shared<answer<T>>();
    sys.spawn(
        [=](caf::event_based_actor* self, caf::actor to) {
          self->request(to, caf::infinite, xs...)
              .then([=](T& v) { out->value = std::move(v); },
                    [=](caf::error& err) { out->error = std::move(err); });
        },
        creator);
    return out;
  }

  void join(const std::string& id, start_log& log) {
    auto conn = sys.spawn(probe, &log);
    agent_hello h{id, "default", 1, "cpu", "", {}, {}};
    spawn_agent_actor(sys, master, h, conn);
    run();
  }

  std::unique_ptr<memory_event_store> memory_store;
};

} // namespace

CAF_TEST_FIXTURE_SCOPE(experiment_creation_tests, fixture)

CAF_TEST(an experiment is created then its trials wait for its stored files) {
  control.hold = true;
  auto created = ask<int64_t>(create_atom::value, creation());
  run();
  // Step 1 is durable, step 2 under way: the experiment exists, pending,
  // and nothing is answered yet.
  CAF_REQUIRE_EQUAL(control.held.size(), 1u);
  CAF_CHECK(!created->came());
  auto st = live_state();
  auto e = state::find_experiment(st, 1);
  CAF_REQUIRE(e != nullptr);
  CAF_CHECK(e->model_definition_pending);
  CAF_CHECK_EQUAL(e->owner, "alice");
  // An agent that joins gets no trial of it.
  start_log log;
  join("a1", log);
  CAF_CHECK(log.starts.empty());
  // Stored: the trial is placed, and the caller hears the id.
  anon_send(defs, caf::ok_atom::value);
  run();
  CAF_REQUIRE(created->came());
  CAF_CHECK(!created->error);
  CAF_CHECK_EQUAL(created->value, std::optional<int64_t>{1});
  CAF_CHECK_EQUAL(log.starts.size(), 1u);
  st = live_state();
  CAF_CHECK(!state::find_experiment(st, 1)->model_definition_pending);
  CAF_CHECK_EQUAL(state::to_string(state::find_experiment(st, 1)->status),
                  std::string{"ACTIVE"});
  CAF_CHECK_EQUAL(control.stored.count(1), 1u);
  CAF_CHECK(replay(*memory_store) == st);
}

CAF_TEST(an experiment created paused in a project keeps both) {
  auto c = creation();
  c.activate = false;
  c.project_id = 1;
  auto created = ask<int64_t>(create_atom::value, std::move(c));
  run();
  CAF_CHECK_EQUAL(created->value, std::optional<int64_t>{1});
  auto st = live_state();
  auto e = state::find_experiment(st, 1);
  CAF_REQUIRE(e != nullptr);
  CAF_CHECK_EQUAL(state::to_string(e->status), std::string{"PAUSED"});
  CAF_CHECK(!e->model_definition_pending);
}

CAF_TEST(files the store refuses end the experiment in error with why) {
  control.refusal = make_error(errc::store_unavailable, "database away");
  auto created = ask<int64_t>(create_atom::value, creation());
  run();
  // The caller gets the store's error, once the loss is durable.
  CAF_REQUIRE(created->came());
  CAF_CHECK(!created->value);
  CAF_CHECK(code_of(created->error) == errc::store_unavailable);
  auto st = live_state();
  auto e = state::find_experiment(st, 1);
  CAF_REQUIRE(e != nullptr);
  CAF_CHECK_EQUAL(state::to_string(e->status), std::string{"ERROR"});
  CAF_CHECK(e->status_reason.find("storing its model definition failed")
            != std::string::npos);
  CAF_CHECK(e->status_reason.find("database away") != std::string::npos);
  // Never placed.
  start_log log;
  join("a1", log);
  CAF_CHECK(log.starts.empty());
  CAF_CHECK(replay(*memory_store) == live_state());
}

CAF_TEST(a refused experiment is answered with the refusal and stores nothing) {
  auto c = creation();
  c.project_id = 42;
  auto created = ask<int64_t>(create_atom::value, std::move(c));
  run();
  CAF_REQUIRE(created->came());
  CAF_CHECK(code_of(created->error) == errc::not_found);
  CAF_CHECK(control.stored.empty());
  CAF_CHECK(live_state().experiments.empty());
}

CAF_TEST(a read of a definition being stored waits then gets the files) {
  control.hold = true;
  auto created = ask<int64_t>(create_atom::value, creation());
  run();
  CAF_REQUIRE_EQUAL(control.held.size(), 1u);
  auto read = ask<std::string>(get_atom::value, int64_t{1});
  // Another experiment's read is answered at once (from the store).
  auto other = ask<std::string>(get_atom::value, int64_t{2});
  run();
  CAF_CHECK(!read->came());
  CAF_CHECK_EQUAL(control.gets, 1);
  CAF_REQUIRE(other->came());
  CAF_CHECK(code_of(other->error) == errc::not_found);
  anon_send(defs, caf::ok_atom::value);
  run();
  CAF_REQUIRE(read->came());
  CAF_REQUIRE(read->value);
  CAF_CHECK_EQUAL(*read->value, control.stored.at(1));
  CAF_CHECK(!read->value->empty());
  CAF_CHECK_EQUAL(created->value, std::optional<int64_t>{1});
  // Later reads go straight to the store.
  auto again = ask<std::string>(get_atom::value, int64_t{1});
  run();
  CAF_CHECK_EQUAL(again->value, read->value);
}

CAF_TEST(a read waiting on files the store refuses hears not found) {
  control.hold = true;
  auto created = ask<int64_t>(create_atom::value, creation());
  run();
  auto read = ask<std::string>(get_atom::value, int64_t{1});
  run();
  CAF_CHECK(!read->came());
  // The held put fails: the waiting read reads the store, which has none.
  anon_send(defs, caf::ok_atom::value, std::string{"database away"});
  run();
  CAF_REQUIRE(read->came());
  CAF_CHECK(code_of(read->error) == errc::not_found);
  CAF_CHECK(code_of(created->error) == errc::store_unavailable);
  CAF_CHECK_EQUAL(
      state::to_string(state::find_experiment(live_state(), 1)->status),
      std::string{"ERROR"});
}

CAF_TEST_FIXTURE_SCOPE_END()
