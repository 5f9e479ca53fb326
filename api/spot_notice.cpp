#include "api/spot_notice.hpp"

#include "messages/errc.hpp"
#include "util/log.hpp"

#include <caf/event_based_actor.hpp>

namespace det::api {

namespace {

void handle(caf::event_based_actor* self, master_actor master,
            std::string agent_id) {
  self->request(master, std::chrono::seconds{10},
                command{spot_interruption_notice{agent_id}})
      .then(
          [self, agent_id](const std::string& reply) {
            auto j = nlohmann::json::parse(reply, nullptr, false);
            auto trials = j.is_object() ? j.value("trials", int64_t{0}) : 0;
            log::warn() << "agent " << agent_id
                        << ": spot interruption notice; draining it and asking "
                        << trials << " trial(s) to checkpoint now";
            self->quit();
          },
          [self, agent_id](caf::error& err) {
            log::error() << "agent " << agent_id
                         << ": recording the spot notice failed: "
                         << render(err);
            self->quit();
          });
}

} // namespace

void on_spot_interruption(caf::actor_system& sys, master_actor master,
                          std::string agent_id) {
  sys.spawn(handle, std::move(master), std::move(agent_id));
}

} // namespace det::api
