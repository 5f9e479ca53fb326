// master_core: capacity reported by a resource manager whose agents follow
// the outside world (Kubernetes nodes behind a pool's virtual agent).

#include "core/master_core.hpp"

#include "messages/errc.hpp"
#include "state/queries.hpp"

namespace det {

decision master_core::set_agent_slots(const std::string& agent_id,
                                      int32_t slots, int64_t now_us) {
  decision d;
  auto a = agent_or_refuse(d, agent_id);
  if (a == nullptr)
    return d;
  if (slots < 0 || slots > (1 << 20)) {
    d.refusal =
        make_error(errc::invalid_argument, "slots: " + std::to_string(slots)
                                               + " is not within [0, 1048576]");
    return d;
  }
  if (state::slot_capacity(*a) == slots)
    return d;
  auto pool = a->pool;
  if (!emit(d, agent_slots_changed{agent_id, slots, now_us}))
    return d;
  schedule_pool(d, pool, now_us);
  return d;
}

} // namespace det
