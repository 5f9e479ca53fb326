#include "store/model_def_store.hpp"

#include "messages/errc.hpp"

namespace det {

model_def_store::~model_def_store() = default;

caf::error memory_model_def_store::put(int64_t experiment_id,
                                       const std::string& tgz_b64) {
  auto [i, added] = defs_.emplace(experiment_id, tgz_b64);
  if (!added && i->second != tgz_b64)
    return make_error(errc::conflict,
                      "experiment " + std::to_string(experiment_id)
                          + " already has another model definition");
  return {};
}

caf::expected<std::string> memory_model_def_store::get(int64_t experiment_id) {
  auto i = defs_.find(experiment_id);
  if (i == defs_.end())
    return make_error(errc::not_found, "experiment "
                                           + std::to_string(experiment_id)
                                           + " has no model definition");
  return i->second;
}

caf::error memory_model_def_store::put_context(const std::string& task_id,
                                               const std::string& tgz_b64) {
  auto [i, added] = contexts_.emplace(task_id, tgz_b64);
  if (!added && i->second != tgz_b64)
    return make_error(errc::conflict,
                      "task " + task_id + " already has another context");
  return {};
}

caf::expected<std::string>
memory_model_def_store::get_context(const std::string& task_id) {
  auto i = contexts_.find(task_id);
  if (i == contexts_.end())
    return make_error(errc::not_found, "task " + task_id + " has no context");
  return i->second;
}

} // namespace det
