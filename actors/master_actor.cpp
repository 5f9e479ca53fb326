#include "actors/master_actor.hpp"

#include "actors/master_state.hpp"

#include "core/provisioning_wake.hpp"
#include "messages/errc.hpp"
#include "state/queries.hpp"

#include <caf/actor_cast.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include <algorithm>
#include <memory>

namespace det {

namespace {

using detail::master_self;
using detail::persist;
using detail::request_pass;

trial_actor trial_actor_of(master_self self, int64_t trial_id) {
  auto& trials = self->state.trials;
  auto i = trials.find(trial_id);
  if (i != trials.end())
    return i->second;
  auto a = spawn_trial_actor(self->home_system(), trial_id,
                             caf::actor_cast<caf::actor>(self));
  self->link_to(a);
  trials.emplace(trial_id, a);
  return a;
}

/// Trial id of allocation "<trial>.<run>", or 0.
int64_t trial_of_allocation_id(const std::string& alloc) {
  auto dot = alloc.find('.');
  if (dot == 0 || dot == std::string::npos)
    return 0;
  // A task's allocation ("<uuid>.1") may start with digits: not a trial's.
  for (size_t i = 0; i < dot; ++i)
    if (alloc[i] < '0' || alloc[i] > '9')
      return 0;
  try {
    return std::stoll(alloc.substr(0, dot));
  } catch (const std::exception&) {
    return 0;
  }
}

/// Carries out d's orders through the trials' actors; an order for an
/// allocation no trial owns (a stale run an agent reported) goes to the
/// agent directly.
void perform(master_self self, const decision& d) {
  auto& s = self->state;
  auto to = [&](const std::string& id) -> caf::actor {
    auto i = s.agents.find(id);
    return i == s.agents.end() ? caf::actor{} : i->second;
  };
  auto live = [&](int64_t trial_id) {
    auto t = state::find_trial(s.core->state(), trial_id);
    return t != nullptr && !state::is_terminal(t->status);
  };
  for (const auto& e : d.effects) {
    if (auto o = std::get_if<start_order>(&e)) {
      if (auto a = to(o->agent_id))
        self->send(trial_actor_of(self, o->trial_id), start_atom::value, *o, a);
    } else if (auto p = std::get_if<preempt_order>(&e)) {
      auto tid = trial_of_allocation_id(p->allocation_id);
      if (auto a = to(p->agent_id); a && tid != 0)
        self->send(trial_actor_of(self, tid), preempt_atom::value, *p, a);
    } else if (auto ts = std::get_if<task_start_order>(&e)) {
      if (auto a = to(ts->agent_id))
        caf::anon_send(a, start_atom::value, *ts);
    } else if (auto k = std::get_if<kill_order>(&e)) {
      auto a = to(k->agent_id);
      if (!a)
        continue;
      auto tid = trial_of_allocation_id(k->allocation_id);
      if (tid != 0 && (live(tid) || s.trials.count(tid) != 0))
        self->send(trial_actor_of(self, tid), kill_atom::value, *k, a);
      else
        caf::anon_send(a, kill_atom::value, k->allocation_id);
    }
  }
  for (const auto& [id, facts] : d.trials)
    if (live(id))
      self->send(trial_actor_of(self, id), settle_atom::value, facts);
}

/// Stops the actors of trials that have ended (after their last orders).
void retire_trials(master_self self, const decision& d) {
  auto& s = self->state;
  for (const auto& ev : d.events) {
    int64_t tid = 0;
    if (auto x = std::get_if<trial_exited>(&ev))
      tid = x->trial_id;
    else if (auto y = std::get_if<trial_errored>(&ev))
      tid = y->trial_id;
    else if (auto z = std::get_if<trial_canceled>(&ev))
      tid = z->trial_id;
    auto i = tid == 0 ? s.trials.end() : s.trials.find(tid);
    if (i == s.trials.end())
      continue;
    auto t = state::find_trial(s.core->state(), tid);
    if (t != nullptr && !state::is_terminal(t->status))
      continue;
    self->unlink_from(i->second);
    // Behind the orders already sent to it (same sender, in order).
    self->send_exit(i->second, caf::exit_reason::user_shutdown);
    s.trials.erase(i);
  }
}

/// Hands each experiment `d` names its inbox (spawning its actor with the
/// saved searcher first if it has none), and stops the actors of the
/// experiments `d` ended. Runs once d's events are durable.
void feed_searchers(master_self self, const decision& d) {
  auto& s = self->state;
  const auto& st = s.core->state();
  for (const auto& ev : d.events) {
    auto changed = std::get_if<experiment_state_changed>(&ev);
    if (changed == nullptr)
      continue;
    auto e = state::find_experiment(st, changed->experiment_id);
    auto i = s.experiments.find(changed->experiment_id);
    if (e != nullptr && state::is_terminal(e->status)
        && i != s.experiments.end()) {
      self->unlink_from(i->second);
      self->send_exit(i->second, caf::exit_reason::user_shutdown);
      s.experiments.erase(i);
    }
  }
  for (auto id : d.searchers) {
    auto e = state::find_experiment(st, id);
    if (e == nullptr || e->unmanaged || state::is_terminal(e->status))
      continue;
    auto i = s.experiments.find(id);
    if (i == s.experiments.end()) {
      auto a = spawn_experiment_actor(self->home_system(),
                                      caf::actor_cast<caf::actor>(self));
      self->link_to(a);
      s.experiments.emplace(id, a);
      self->send(a, feed_atom::value, reset_feed(*e, s.core->config().seed));
      continue;
    }
    experiment_feed f;
    f.experiment_id = id;
    f.inbox = e->searcher_inbox;
    self->send(i->second, feed_atom::value, std::move(f));
  }
}

/// Renders a copy of the state as snapshot JSON and hands it to the writer.
void snapshot_renderer(caf::event_based_actor* self,
                       std::shared_ptr<const state::cluster_state> st,
                       event_writer_actor writer) {
  self->send(writer, snapshot_atom::value, state::to_snapshot(*st).dump(),
             st->position, state::snapshot_version);
}

/// Snapshots only a state that is exactly the durable log (no append in
/// flight), every snapshot_every events.
void maybe_snapshot(master_self self, int64_t durable) {
  auto& s = self->state;
  const auto& st = s.core->state();
  if (s.opts.snapshot_every <= 0 || st.position != durable
      || durable - s.last_snapshot < s.opts.snapshot_every)
    return;
  s.last_snapshot = durable;
  // Only the copy runs on the master's thread; rendering the JSON (several
  // times longer for a big state) runs on a short-lived actor of its own.
  self->home_system().spawn(snapshot_renderer,
                            std::make_shared<const state::cluster_state>(st),
                            s.writer);
}

/// Runs `f` once every event the master has decided so far is durable
/// (at once when nothing is in flight).
void after_decided_events(master_self self, std::function<void()> f) {
  auto& s = self->state;
  auto pos = s.core->state().position;
  if (pos <= s.durable)
    f();
  else
    s.after_durable.emplace(pos, std::move(f));
}

void when_durable_reached(master_self self, int64_t position) {
  auto& s = self->state;
  s.durable = std::max(s.durable, position);
  while (!s.after_durable.empty()
         && s.after_durable.begin()->first <= s.durable) {
    auto f = std::move(s.after_durable.begin()->second);
    s.after_durable.erase(s.after_durable.begin());
    f();
  }
}

/// Wakes the provisioners of the pools whose demand or capacity `events`
/// may have changed (durable by now).
void wake_provisioners(master_self self,
                       const std::vector<domain_event>& events) {
  auto& s = self->state;
  if (s.watchers.empty())
    return;
  for (const auto& pool : pools_to_wake(s.core->state(), events)) {
    auto [from, to] = s.watchers.equal_range(pool);
    for (auto i = from; i != to; ++i)
      caf::anon_send(i->second, wake_atom::value);
  }
}

} // namespace

/// The write-ahead step: append d's events, then (and only then) carry out
/// its effects and call `done`. Pools the decision named get a pass.
void detail::persist(master_self self, decision d,
                     std::function<void(const decision&)> done) {
  for (const auto& pool : d.schedule)
    request_pass(self, pool);
  if (d.events.empty()) {
    perform(self, d);
    retire_trials(self, d);
    feed_searchers(self, d);
    done(d);
    return;
  }
  append_request req;
  req.events.reserve(d.events.size());
  for (const auto& ev : d.events)
    req.events.push_back(to_new_event(ev));
  auto predicted = self->state.core->state().position;
  self->request(self->state.writer, caf::infinite, append_atom::value,
                std::move(req))
      .then(
          [self, d = std::move(d), done = std::move(done),
           predicted](const append_result& r) mutable {
            if (r.last_position != predicted) {
              // What was acknowledged before is the log's: carried out
              // first, as it would have been without this one.
              carry_out_durable(self);
              self->quit(make_error(
                  errc::invariant_violated,
                  "the log placed events at " + std::to_string(r.last_position)
                      + ", the master expected " + std::to_string(predicted)));
              return;
            }
            // Carried out with every other append acknowledged before the
            // committed_atom sent here arrives: one commit's
            // acknowledgements come in a burst.
            auto& s = self->state;
            if (s.durable_queue.empty())
              self->send(self, committed_atom::value);
            s.durable_queue.push_back(
                {std::move(d), std::move(done), r.last_position});
          },
          [self](caf::error& err) {
            // The state is ahead of the log: stop; a restart replays the
            // log. The appends acknowledged before this one are durable:
            // their effects and answers go out first.
            carry_out_durable(self);
            self->quit(std::move(err));
          });
}

void detail::carry_out_durable(master_self self) {
  auto& s = self->state;
  if (s.durable_queue.empty())
    return;
  // Swapped with the last burst's emptied vector: both keep their room.
  auto& queue = s.carrying;
  queue.swap(s.durable_queue);
  // Readers see the events before anyone is told of them: the whole
  // burst's events go to the read model at once (one hand-off to each
  // replica for the burst, not one for each decision), then each
  // decision's effects and answers, in log order.
  if (s.opts.on_durable) {
    size_t n = 0;
    for (const auto& q : queue)
      n += q.d.events.size();
    std::vector<domain_event> events;
    events.reserve(n);
    for (const auto& q : queue)
      events.insert(events.end(), q.d.events.begin(), q.d.events.end());
    s.opts.on_durable(std::move(events), queue.back().last_position);
  }
  for (auto& q : queue) {
    wake_provisioners(self, q.d.events);
    perform(self, q.d);
    retire_trials(self, q.d);
    feed_searchers(self, q.d);
    q.done(q.d);
    when_durable_reached(self, q.last_position);
    maybe_snapshot(self, q.last_position);
  }
  queue.clear();
}

namespace {

template <class T> using promise = caf::typed_response_promise<T>;

void answer_ok(promise<caf::ok_atom> rp, const decision& d) {
  if (d.refusal)
    rp.deliver(d.refusal);
  else
    rp.deliver(caf::ok_atom::value);
}

/// Decides `c` and answers `answer` with its reply as JSON text once its
/// events are durable, or with its refusal. An allocation_exit_report of
/// an exit recorded before (a repeated report) is answered once the log
/// holds it, so the agent forgets it only then.
void decide_command(master_self self, const command& c,
                    std::function<void(caf::expected<std::string>)> answer) {
  auto d = self->state.core->decide(c, self->state.opts.now_us());
  if (std::holds_alternative<allocation_exit_report>(c) && !d.refusal
      && d.events.empty()) {
    persist(self, std::move(d), [](const decision&) {});
    after_decided_events(
        self, [answer = std::move(answer)] { answer(std::string{"{}"}); });
    return;
  }
  persist(self, std::move(d), [answer = std::move(answer)](const decision& x) {
    if (x.refusal)
      answer(x.refusal);
    else
      answer(x.reply.dump());
  });
}

master_actor::behavior_type
master_behavior(master_self self, event_writer_actor writer,
                state::cluster_state st, core_config cfg, master_options opts) {
  auto& s = self->state;
  s.writer = std::move(writer);
  s.opts = std::move(opts);
  s.last_snapshot = st.position;
  s.durable = st.position;
  cfg.inline_scheduling = false;
  cfg.inline_searchers = false;
  cfg.inline_trials = false;
  s.core = std::make_unique<master_core>(std::move(st), std::move(cfg));
  auto now = [self] { return self->state.opts.now_us(); };
  // Every live experiment gets its actor, which catches up on its inbox.
  auto first = s.core->start(now());
  for (const auto& [id, e] : s.core->state().experiments)
    if (!state::is_terminal(e.status) && !e.unmanaged)
      first.searchers.insert(id);
  persist(self, std::move(first), [](const decision&) {});
  if (s.opts.tick_interval.count() > 0)
    self->delayed_send(self, s.opts.tick_interval, tick_atom::value);
  auto ok_command = [self](decision d) {
    auto rp = self->make_response_promise<caf::ok_atom>();
    persist(self, std::move(d), [rp](const decision& x) { answer_ok(rp, x); });
    return rp;
  };
  return {
      [self](committed_atom) { carry_out_durable(self); },
      [self, now](connect_atom, agent_hello& h, caf::actor& agent) {
        self->state.agents[h.agent_id] = agent;
        // The handle kept, the hello is a command like any other.
        std::vector<reported_allocation> running;
        for (auto& a : h.running_allocations)
          running.push_back({a, std::nullopt});
        for (auto& x : h.exits) {
          auto same = [&x](const reported_allocation& r) {
            return r.allocation_id == x.allocation_id;
          };
          auto i = std::find_if(running.begin(), running.end(), same);
          if (i == running.end())
            running.push_back({x.allocation_id, x.exit_code});
          else
            i->exit_code = x.exit_code;
        }
        auto c = agent_connect{h.agent_id,  h.pool,        h.slots,
                               h.slot_type, h.instance_id, std::move(running)};
        persist(self, self->state.core->decide(c, now()),
                [](const decision&) {});
      },
      [self, now](disconn_atom, const std::string& id, const std::string& why) {
        // A late report from an agent's previous connection must not take
        // down the connection it has made since.
        auto current = self->state.agents.find(id);
        if (current != self->state.agents.end() && self->current_sender()
            && self->current_sender()
                   != caf::actor_cast<caf::strong_actor_ptr>(current->second))
          return;
        self->state.agents.erase(id);
        persist(self,
                self->state.core->decide(agent_disconnect{id, why}, now()),
                [](const decision&) {});
      },
      [self, now](tick_atom) {
        persist(self, self->state.core->tick(now()), [](const decision&) {});
        if (self->state.opts.tick_interval.count() > 0)
          self->delayed_send(self, self->state.opts.tick_interval,
                             tick_atom::value);
      },
      [self](state_atom) -> std::string {
        return state::to_snapshot(self->state.core->state()).dump();
      },
      [self, now](view_atom, const state_view& v) -> std::string {
        return v.fn(self->state.core->state(), now());
      },
      [self](const command& c) {
        auto rp = self->make_response_promise<std::string>();
        decide_command(self, c, [rp](caf::expected<std::string> r) mutable {
          if (r)
            rp.deliver(std::move(*r));
          else
            rp.deliver(std::move(r.error()));
        });
        return rp;
      },
      [self](const command& c, command_callback& cb) {
        decide_command(self, c, std::move(cb.fn));
      },
      [self](watch_atom, const std::string& pool, caf::actor& who) {
        self->state.watchers.emplace(pool, std::move(who));
      },
      [self, now, ok_command](step_atom, const searcher_step& step) {
        auto& ms = self->state;
        auto d = ms.core->apply_searcher_step(step, now());
        if (d.refusal && d.events.empty()) {
          // The actor's searcher does not follow the log: it starts over
          // from the state.
          auto rp = self->make_response_promise<caf::ok_atom>();
          rp.deliver(d.refusal);
          auto e = state::find_experiment(ms.core->state(), step.experiment_id);
          auto i = ms.experiments.find(step.experiment_id);
          if (e != nullptr && i != ms.experiments.end())
            self->send(i->second, feed_atom::value,
                       reset_feed(*e, ms.core->config().seed));
          return rp;
        }
        return ok_command(std::move(d));
      },
  };
}

} // namespace

master_actor spawn_master(caf::actor_system& sys, event_writer_actor writer,
                          state::cluster_state st, core_config cfg,
                          master_options opts) {
  if (!opts.now_us)
    opts.now_us = [] {
      return std::chrono::duration_cast<std::chrono::microseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  return sys.spawn(master_behavior, std::move(writer), std::move(st),
                   std::move(cfg), std::move(opts));
}

} // namespace det
