#pragma once

// A master over an in-memory log for tests of core/: decisions are appended
// as the master actor would append them, and a "restart" replays the log
// into a new core, as det-master's start-up does.

#include "core/master_core.hpp"

#include "messages/errc.hpp"
#include "state/queries.hpp"
#include "store/memory_event_store.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace det::test {

constexpr int64_t sec = 1000000;

inline nlohmann::json experiment(int64_t max_length = 100, int max_restarts = 2,
                                 int slots = 1,
                                 const std::string& searcher = "single",
                                 int max_trials = 1) {
  return {
      {"name", "test"},
      {"entrypoint", "model_def:Trial"},
      {"max_restarts", max_restarts},
      {"hyperparameters", {{"lr", 0.1}}},
      {"resources", {{"slots_per_trial", slots}, {"resource_pool", "default"}}},
      {"searcher",
       {{"name", searcher},
        {"metric", "loss"},
        {"max_trials", max_trials},
        {"max_length", {{"batches", max_length}}}}}};
}

inline core_config config(const std::string& provider = "",
                          int max_instances = 0, int slots_per_instance = 0) {
  core_config c;
  c.cluster_id = "test-cluster";
  c.host = "host";
  c.pid = 1;
  pool_configured p;
  p.pool = "default";
  p.provider = provider;
  p.max_instances = max_instances;
  p.slots_per_instance = slots_per_instance;
  c.pools.push_back(p);
  c.agent_reconnect_wait_us = 30 * sec;
  return c;
}

template <class T> inline size_t starts_in(const decision& d) {
  size_t n = 0;
  for (const auto& e : d.effects)
    n += std::holds_alternative<T>(e) ? 1 : 0;
  return n;
}

/// A refusal with this code whose text holds `text`, and no events.
inline void expect_refused(const decision& d, errc code,
                           const std::string& text) {
  ASSERT_TRUE(d.refusal);
  EXPECT_EQ(code_of(d.refusal), code) << render(d.refusal);
  EXPECT_NE(render(d.refusal).find(text), std::string::npos)
      << render(d.refusal);
  EXPECT_TRUE(d.events.empty());
}

/// A record command parsed from a request's body (core/records_parse.hpp)
/// decided by `core` as `user`'s, as the API sends it; a parse refusal is
/// the decision's refusal, with no events.
template <class C>
decision decide_parsed(master_core& core, caf::expected<C> parsed,
                       const std::string& user, int64_t now_us) {
  decision d;
  if (!parsed) {
    d.refusal = std::move(parsed.error());
    return d;
  }
  parsed->username = user;
  return core.decide(command{std::move(*parsed)}, now_us);
}

/// The effects of type T in a decision, in order.
template <class T> std::vector<T> effects_of(const decision& d) {
  std::vector<T> out;
  for (const auto& e : d.effects)
    if (auto x = std::get_if<T>(&e))
      out.push_back(*x);
  return out;
}

/// A master over a log: decisions are appended as the actor would; a
/// "restart" replays the log into a new core, as det-master's start-up does.
/// Whether command C carries as_admin.
template <class C, class = void> struct carries_admin : std::false_type {};
template <class C>
struct carries_admin<C, std::void_t<decltype(std::declval<C&>().as_admin)>>
    : std::true_type {};

struct cluster {
  memory_event_store log;
  std::unique_ptr<master_core> core;
  int64_t now = 1800000000 * sec;

  explicit cluster(core_config cfg = config()) {
    core = std::make_unique<master_core>(state::cluster_state{}, cfg);
    run(core->start(now));
  }

  /// Appends d's events; the log must place them where the core
  /// predicted, and no decision may break an invariant.
  decision run(decision d) {
    EXPECT_FALSE(d.refusal && code_of(d.refusal) == errc::invariant_violated)
        << render(d.refusal);
    if (d.events.empty())
      return d;
    append_request req;
    for (const auto& ev : d.events)
      req.events.push_back(to_new_event(ev));
    auto res = log.append(req);
    EXPECT_TRUE(res) << render(res.error());
    if (res) {
      EXPECT_EQ(res->last_position, core->state().position)
          << "predicted positions differ from the log's";
    }
    return d;
  }

  /// What the API sends for a request: the command its parse function
  /// made (or the parse's refusal, as the decision's), as `user`, and with
  /// `admin` where the command carries the session's say.
  template <class C>
  decision parsed_run(caf::expected<C> parsed, const std::string& user,
                      bool admin = false) {
    if (!parsed) {
      decision d;
      d.refusal = parsed.error();
      return d;
    }
    parsed->username = user;
    if constexpr (carries_admin<C>::value)
      parsed->as_admin = admin;
    return run(core->decide(command{std::move(*parsed)}, now));
  }

  /// The state the log replays to.
  state::cluster_state replayed() {
    state::cluster_state st;
    auto err =
        log.read({}, [&](recorded_event&& r) { return state::apply(st, r); });
    EXPECT_FALSE(err) << render(err);
    return st;
  }

  /// Stops this master and starts another on the same log, with
  /// `stored` the model definitions the store holds.
  decision restart(std::set<int64_t> stored) {
    auto st = replayed();
    auto cfg = config();
    cfg.model_definitions_stored = std::move(stored);
    core = std::make_unique<master_core>(std::move(st), cfg);
    return run(core->start(now));
  }

  const state::experiment_info& experiment(int64_t id) {
    return *state::find_experiment(core->state(), id);
  }

  const state::trial_info& trial(int64_t id) {
    return *state::find_trial(core->state(), id);
  }
};

} // namespace det::test
