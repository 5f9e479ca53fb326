#include "actors/model_def_actor.hpp"

#include "messages/errc.hpp"
#include "messages/model_archive.hpp"

#include <caf/event_based_actor.hpp>

#include <nlohmann/json.hpp>

namespace det {

namespace {

/// The archive of `files` handed to `write` (the store's put).
template <class Write>
caf::result<caf::ok_atom> store_archive(const model_files& files,
                                        Write&& write) {
  if (!files.list)
    return make_error(errc::invalid_argument, "files: missing");
  auto tgz = make_model_archive(*files.list);
  if (!tgz)
    return std::move(tgz.error());
  if (auto err = write(*tgz))
    return err;
  return caf::ok_atom::value;
}

caf::behavior model_defs(caf::event_based_actor*,
                         std::shared_ptr<model_def_store> store) {
  return {
      [store](put_atom, int64_t id,
              const model_files& files) -> caf::result<caf::ok_atom> {
        return store_archive(
            files, [&](const std::string& tgz) { return store->put(id, tgz); });
      },
      [store](get_atom, int64_t id) -> caf::result<std::string> {
        auto r = store->get(id);
        if (!r)
          return std::move(r.error());
        return std::move(*r);
      },
      [store](put_atom, const std::string& task_id,
              const model_files& files) -> caf::result<caf::ok_atom> {
        return store_archive(files, [&](const std::string& tgz) {
          return store->put_context(task_id, tgz);
        });
      },
      [store](put_atom, const std::string& task_id,
              const std::string& tgz_b64) -> caf::result<caf::ok_atom> {
        if (auto err = store->put_context(task_id, tgz_b64))
          return err;
        return caf::ok_atom::value;
      },
      [store](get_atom,
              const std::string& task_id) -> caf::result<std::string> {
        auto r = store->get_context(task_id);
        if (!r)
          return std::move(r.error());
        return std::move(*r);
      },
  };
}

} // namespace

caf::actor spawn_model_def_actor(caf::actor_system& sys,
                                 std::unique_ptr<model_def_store> store) {
  return sys.spawn<caf::detached>(
      model_defs, std::shared_ptr<model_def_store>{std::move(store)});
}

} // namespace det
