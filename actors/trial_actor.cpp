#include "actors/trial_actor.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

namespace det {

namespace {

struct trial_actor_state {
  static inline const char* name = "trial";
  int64_t trial_id = 0;
  caf::actor master;
  /// The run the last proposal was for: one proposal per run.
  int64_t proposed_run = 0;
};

using trial_self = trial_actor::stateful_pointer<trial_actor_state>;

trial_actor::behavior_type trial_behavior(trial_self self, int64_t trial_id,
                                          caf::actor master) {
  self->state.trial_id = trial_id;
  self->state.master = std::move(master);
  return {
      [self](settle_atom, const trial_facts& f) {
        auto& s = self->state;
        if (f.runs <= s.proposed_run)
          return; // already proposed for this run
        s.proposed_run = f.runs;
        self->request(s.master, caf::infinite, command{after_exit(f)})
            .then([](const std::string&) {},
                  [self, runs = f.runs](caf::error&) {
                    // Refused: the trial moved on meanwhile (killed, or a newer
                    // run). The master asks again if it still needs a step.
                    if (self->state.proposed_run == runs)
                      self->state.proposed_run = runs - 1;
                  });
      },
      [](start_atom, start_order& o, caf::actor& agent) {
        caf::anon_send(agent, start_atom::value, std::move(o));
      },
      [](preempt_atom, preempt_order& o, caf::actor& agent) {
        caf::anon_send(agent, preempt_atom::value, o.allocation_id, o.reason);
      },
      [](kill_atom, kill_order& o, caf::actor& agent) {
        caf::anon_send(agent, kill_atom::value, o.allocation_id);
      },
  };
}

} // namespace

trial_actor spawn_trial_actor(caf::actor_system& sys, int64_t trial_id,
                              caf::actor master) {
  return sys.spawn(trial_behavior, trial_id, std::move(master));
}

} // namespace det
