#include "api/api_bridge.hpp"

#include <caf/send.hpp>

namespace det::api {

namespace {

// Class-based: CAF 0.17 spawns a function-based actor without arguments
// through a null shared_ptr<tuple<>> (UBSan reports it).
class bridge : public caf::event_based_actor {
public:
  using caf::event_based_actor::event_based_actor;

  caf::behavior make_behavior() override {
    return {
        [this](bridge_job& job) { job.run(this); },
    };
  }
};

} // namespace

caf::actor spawn_api_bridge(caf::actor_system& sys) {
  return sys.spawn<bridge>();
}

void post(const caf::actor& bridge,
          std::function<void(caf::event_based_actor* self)> fn) {
  caf::anon_send(bridge, bridge_job{std::move(fn)});
}

} // namespace det::api
