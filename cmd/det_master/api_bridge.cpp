#include "cmd/det_master/api_bridge.hpp"

#include <caf/send.hpp>

namespace det::master {

namespace {

caf::behavior bridge(caf::event_based_actor* self) {
  return {
    [self](bridge_job& job) { job.run(self); },
  };
}

} // namespace

caf::actor spawn_api_bridge(caf::actor_system& sys) {
  return sys.spawn(bridge);
}

void post(const caf::actor& bridge,
          std::function<void(caf::event_based_actor* self)> fn) {
  caf::anon_send(bridge, bridge_job{std::move(fn)});
}

} // namespace det::master
