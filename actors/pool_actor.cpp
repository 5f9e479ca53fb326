#include "actors/pool_actor.hpp"

#include "policy/pool_scheduler.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

namespace det {

namespace {

struct pool_state {
  static inline const char* name = "pool";
  std::string pool;
  policy::scheduler_config config;
};

pool_actor::behavior_type
pool_behavior(pool_actor::stateful_pointer<pool_state> self, std::string pool,
              policy::scheduler_config config) {
  self->state.pool = std::move(pool);
  self->state.config = config;
  return {
      [self](pass_atom, pool_pass_request& req) {
        auto t0 = std::chrono::steady_clock::now();
        pool_pass_result out;
        out.pool = std::move(req.pool);
        out.generation = req.generation;
        out.result = policy::schedule_pool(req.snapshot, self->state.config);
        out.took = std::chrono::duration_cast<std::chrono::microseconds>(
            std::chrono::steady_clock::now() - t0);
        return out;
      },
  };
}

} // namespace

pool_actor spawn_pool_actor(caf::actor_system& sys, std::string pool,
                            policy::scheduler_config config) {
  return sys.spawn(pool_behavior, std::move(pool), config);
}

} // namespace det
