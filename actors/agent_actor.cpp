#include "actors/agent_actor.hpp"

#include <caf/actor_cast.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

namespace det {

namespace {

struct agent_state {
  static inline const char* name = "agent";
  master_actor master;
  caf::actor connection;
  std::string id;
};

agent_actor::behavior_type
agent_behavior(agent_actor::stateful_pointer<agent_state> self,
               master_actor master, agent_hello hello, caf::actor connection) {
  auto& s = self->state;
  s.master = std::move(master);
  s.connection = std::move(connection);
  s.id = hello.agent_id;
  self->send(s.master, connect_atom::value, std::move(hello),
             caf::actor_cast<caf::actor>(self));
  return {
      [self](start_atom, start_order& o) {
        caf::anon_send(self->state.connection, start_atom::value, std::move(o));
      },
      [self](start_atom, task_start_order& o) {
        caf::anon_send(self->state.connection, start_atom::value, std::move(o));
      },
      [self](preempt_atom, std::string& alloc, std::string& reason) {
        caf::anon_send(self->state.connection, preempt_atom::value,
                       std::move(alloc), std::move(reason));
      },
      [self](kill_atom, std::string& alloc) {
        caf::anon_send(self->state.connection, kill_atom::value,
                       std::move(alloc));
      },
      [self](running_atom, std::string& alloc) {
        // Nothing to answer: sent without a sender, its reply is dropped.
        caf::anon_send(self->state.master,
                       command{allocation_running_report{std::move(alloc)}});
      },
      [self](exited_atom, std::string& alloc, int32_t code) {
        // No answer (the master stopped first): the agent keeps the exit
        // and reports it again to the next master.
        self->request(self->state.master, caf::infinite,
                      command{allocation_exit_report{alloc, code}})
            .then(
                [self, alloc](const std::string&) {
                  caf::anon_send(self->state.connection, exitack_atom::value,
                                 alloc);
                },
                [](caf::error&) {});
      },
      [self](resize_atom, int32_t slots) {
        auto rp = self->make_response_promise<caf::ok_atom>();
        self->request(self->state.master, caf::infinite,
                      command{agent_resize{self->state.id, slots}})
            .then(
                [rp](const std::string&) mutable {
                  rp.deliver(caf::ok_atom::value);
                },
                [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
        return rp;
      },
      [self](disconn_atom, std::string& why) {
        self->send(self->state.master, disconn_atom::value, self->state.id,
                   std::move(why));
        self->quit();
      },
  };
}

} // namespace

agent_actor spawn_agent_actor(caf::actor_system& sys, master_actor master,
                              agent_hello hello, caf::actor connection) {
  return sys.spawn(agent_behavior, std::move(master), std::move(hello),
                   std::move(connection));
}

} // namespace det
