#include "actors/experiment_creation_actor.hpp"

#include "core/commands.hpp"
#include "messages/errc.hpp"
#include "util/log.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace det {

namespace {

using id_promise = caf::typed_response_promise<int64_t>;
using files_promise = caf::typed_response_promise<std::string>;

struct creation_state {
  master_actor master;
  caf::actor model_defs;
  std::chrono::milliseconds timeout{0};
  /// Experiments whose model definition is being stored, and the reads of
  /// it waiting until it is.
  std::map<int64_t, std::vector<files_promise>> storing;
  static inline const char* name = "experiment_creation";
};

using creation_self = caf::stateful_actor<creation_state>*;

/// Answers `rp` with experiment `id`'s model definition as the store has it.
void read(creation_self self, int64_t id, files_promise rp) {
  self->request(self->state.model_defs, self->state.timeout, get_atom::value,
                id)
      .then([rp](std::string& b64) mutable { rp.deliver(std::move(b64)); },
            [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
}

/// Storing experiment `id`'s definition ended: the reads that waited read
/// the store now.
void finish(creation_self self, int64_t id) {
  auto it = self->state.storing.find(id);
  if (it == self->state.storing.end())
    return;
  auto waiting = std::move(it->second);
  self->state.storing.erase(it);
  for (auto& rp : waiting)
    read(self, id, std::move(rp));
}

/// Step 3: model_definition_stored or model_definition_lost, then the
/// answer (`id`, or `failed`: the store's error) once it is durable.
void settle(creation_self self, int64_t id, caf::error failed, id_promise rp) {
  command c = model_definition_stored{id};
  if (failed)
    c = model_definition_lost{id, "storing its model definition failed: "
                                      + render(failed)};
  self->request(self->state.master, self->state.timeout, std::move(c))
      .then(
          [id, failed, rp](std::string&) mutable {
            if (failed)
              rp.deliver(std::move(failed));
            else
              rp.deliver(id);
          },
          [id, failed, rp](caf::error& err) mutable {
            if (failed)
              log::error() << "experiment " << id
                           << ": recording its lost model definition failed: "
                           << render(err);
            rp.deliver(failed ? std::move(failed) : std::move(err));
          });
}

/// Step 2: the files into the store; reads of `id` wait meanwhile.
void store(creation_self self, int64_t id, model_files files, id_promise rp) {
  self->state.storing[id];
  self->request(self->state.model_defs, caf::infinite, put_atom::value, id,
                std::move(files))
      .then(
          [self, id, rp](caf::ok_atom) {
            finish(self, id);
            settle(self, id, caf::error{}, rp);
          },
          [self, id, rp](caf::error& err) {
            log::error() << "experiment " << id
                         << ": storing its model definition failed: "
                         << render(err);
            finish(self, id);
            settle(self, id, std::move(err), rp);
          });
}

std::optional<int64_t> experiment_id_of(const std::string& reply) {
  auto j = nlohmann::json::parse(reply, nullptr, false);
  if (!j.is_object())
    return std::nullopt;
  auto id = j.find("experiment_id");
  if (id == j.end() || !id->is_number_integer())
    return std::nullopt;
  return id->get<int64_t>();
}

caf::behavior creation_behavior(creation_self self, master_actor master,
                                caf::actor model_defs,
                                std::chrono::milliseconds timeout) {
  self->state.master = std::move(master);
  self->state.model_defs = std::move(model_defs);
  self->state.timeout = timeout;
  return {
      [self](create_atom, experiment_creation& c) -> caf::result<int64_t> {
        auto rp = self->make_response_promise<int64_t>();
        command create = experiment_create{
            std::move(c.config), std::move(c.owner), c.activate, c.project_id};
        // Step 1: the experiment, its model definition pending.
        self->request(self->state.master, self->state.timeout,
                      std::move(create))
            .then(
                [self, rp,
                 files = std::move(c.files)](std::string& reply) mutable {
                  if (auto id = experiment_id_of(reply))
                    store(self, *id, std::move(files), rp);
                  else
                    rp.deliver(make_error(
                        errc::invariant_violated,
                        "experiment_create answered no experiment_id: "
                            + reply.substr(0, 200)));
                },
                [rp](caf::error& err) mutable { rp.deliver(std::move(err)); });
        return rp;
      },
      [self](get_atom, int64_t id) -> caf::result<std::string> {
        auto rp = self->make_response_promise<std::string>();
        if (auto it = self->state.storing.find(id);
            it != self->state.storing.end())
          it->second.push_back(rp);
        else
          read(self, id, rp);
        return rp;
      },
  };
}

} // namespace

caf::actor spawn_experiment_creation_actor(caf::actor_system& sys,
                                           master_actor master,
                                           caf::actor model_defs,
                                           std::chrono::milliseconds timeout) {
  return sys.spawn(creation_behavior, std::move(master), std::move(model_defs),
                   timeout);
}

} // namespace det
