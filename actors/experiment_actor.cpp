#include "actors/experiment_actor.hpp"

#include "messages/errc.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <optional>

namespace det {

experiment_feed reset_feed(const state::experiment_info& e,
                           uint64_t base_seed) {
  experiment_feed f;
  f.experiment_id = e.id;
  f.inbox = e.searcher_inbox;
  f.reset = true;
  f.config = e.config;
  f.seed = base_seed + static_cast<uint64_t>(e.id);
  f.saved = e.searcher_state;
  f.fed_through = searcher_fed_through(e);
  return f;
}

namespace {

struct experiment_actor_state {
  static inline const char* name = "experiment";
  caf::actor master;
  int64_t id = 0;
  std::optional<experiment_searcher> searcher;
  /// A step is with the master; `waiting` holds the newest inbox since.
  bool in_flight = false;
  /// Refused: nothing is proposed until the master's reset.
  bool awaiting_reset = false;
  std::optional<std::vector<state::searcher_input>> waiting;
};

using experiment_self =
    experiment_actor::stateful_pointer<experiment_actor_state>;

void propose(experiment_self self,
             const std::vector<state::searcher_input>& inbox) {
  auto& s = self->state;
  if (!s.searcher || s.awaiting_reset)
    return;
  if (s.in_flight) {
    s.waiting = inbox;
    return;
  }
  std::optional<searcher_step> step;
  if (!s.searcher->started())
    step = s.searcher->start(s.id);
  else
    step = s.searcher->feed(s.id, inbox);
  if (!step)
    return;
  s.in_flight = true;
  self->request(s.master, caf::infinite, step_atom::value, std::move(*step))
      .then(
          [self](caf::ok_atom) {
            auto& st = self->state;
            st.in_flight = false;
            if (st.waiting) {
              auto next = std::move(*st.waiting);
              st.waiting.reset();
              propose(self, next);
            }
          },
          [self](caf::error&) {
            // The step did not follow the log; the master sends a reset.
            auto& st = self->state;
            st.in_flight = false;
            st.awaiting_reset = true;
            st.waiting.reset();
          });
}

experiment_actor::behavior_type experiment_behavior(experiment_self self,
                                                    caf::actor master) {
  self->state.master = std::move(master);
  return {
      [self](feed_atom, experiment_feed& f) {
        auto& s = self->state;
        if (f.reset) {
          s.id = f.experiment_id;
          auto made = experiment_searcher::make(f.config, f.seed, f.saved,
                                                f.fed_through);
          if (!made) {
            // A searcher that cannot be rebuilt (a corrupt or incompatible
            // saved state) ends its experiment in ERROR, not the master.
            searcher_step failed;
            failed.experiment_id = f.experiment_id;
            failed.failure =
                "the searcher cannot be restored: " + render(made.error());
            s.searcher.reset();
            s.awaiting_reset = true;
            self->request(s.master, caf::infinite, step_atom::value,
                          std::move(failed))
                .then([](caf::ok_atom) {}, [](caf::error&) {});
            return;
          }
          s.searcher.emplace(std::move(*made));
          s.awaiting_reset = false;
          if (s.in_flight) {
            // The answer to the step in flight is still to come; the reset
            // state is what follows the log, so start over once it is in.
            s.waiting = std::move(f.inbox);
            return;
          }
        }
        propose(self, f.inbox);
      },
  };
}

} // namespace

experiment_actor spawn_experiment_actor(caf::actor_system& sys,
                                        caf::actor master) {
  return sys.spawn(experiment_behavior, std::move(master));
}

} // namespace det
