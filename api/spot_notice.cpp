#include "api/spot_notice.hpp"

#include "messages/errc.hpp"
#include "state/queries.hpp"

#include <caf/event_based_actor.hpp>

#include <iostream>
#include <memory>

namespace det::api {

namespace {

void handle(caf::event_based_actor* self, master_actor master,
            std::string agent_id) {
  auto events = std::make_shared<std::vector<domain_event>>();
  state_view v{[agent_id, events](const state::cluster_state& s, int64_t now) {
    auto a = state::find_agent(s, agent_id);
    if (a == nullptr)
      return std::string{};
    if (a->enabled)
      events->push_back(agent_disabled{agent_id, true});
    for (const auto& alloc : state::allocations_on_agent(s, agent_id)) {
      auto t = state::trial_of_allocation(s, alloc);
      if (t == nullptr || !t->allocation || t->allocation->preemption_requested)
        continue;
      events->push_back(
          trial_preemption_requested{t->id, alloc, "spot_interruption", now});
    }
    return std::string{};
  }};
  self->request(master, std::chrono::seconds{10}, view_atom::value, v)
      .then(
          [self, master, events, agent_id](std::string&) {
            if (events->empty()) {
              self->quit();
              return;
            }
            size_t trials = 0;
            for (const auto& ev : *events)
              trials += std::holds_alternative<trial_preemption_requested>(ev);
            std::cerr << "det-master: agent " << agent_id
                      << ": spot interruption notice; draining it and asking "
                      << trials << " trial(s) to checkpoint now\n";
            self->request(master, std::chrono::seconds{10}, record_atom::value,
                          event_batch{std::move(*events)})
                .then([self](caf::ok_atom) { self->quit(); },
                      [self, agent_id](caf::error& err) {
                        std::cerr << "det-master: agent " << agent_id
                                  << ": recording the spot notice failed: "
                                  << render(err) << "\n";
                        self->quit();
                      });
          },
          [self](caf::error&) { self->quit(); });
}

} // namespace

void on_spot_interruption(caf::actor_system& sys, master_actor master,
                          std::string agent_id) {
  sys.spawn(handle, std::move(master), std::move(agent_id));
}

} // namespace det::api
