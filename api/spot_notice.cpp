#include "api/spot_notice.hpp"

#include "messages/errc.hpp"

#include <caf/event_based_actor.hpp>

#include <iostream>

namespace det::api {

namespace {

void handle(caf::event_based_actor* self, master_actor master,
            std::string agent_id) {
  self->request(master, std::chrono::seconds{10}, spot_atom::value, agent_id)
      .then(
          [self, agent_id](int64_t trials) {
            std::cerr << "det-master: agent " << agent_id
                      << ": spot interruption notice; draining it and asking "
                      << trials << " trial(s) to checkpoint now\n";
            self->quit();
          },
          [self, agent_id](caf::error& err) {
            std::cerr << "det-master: agent " << agent_id
                      << ": recording the spot notice failed: " << render(err)
                      << "\n";
            self->quit();
          });
}

} // namespace

void on_spot_interruption(caf::actor_system& sys, master_actor master,
                          std::string agent_id) {
  sys.spawn(handle, std::move(master), std::move(agent_id));
}

} // namespace det::api
