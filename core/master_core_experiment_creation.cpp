// master_core: the commands of experiment creation
// (core/commands_experiment_creation.hpp), each decided by the member that
// decides it for the master's other callers (master_core_experiments.cpp).

#include "core/master_core.hpp"

#include "messages/errc.hpp"

namespace det {

decision master_core::on(const experiment_create& c, int64_t now_us) {
  if (!c.config.is_object()) {
    decision d;
    d.refusal = make_error(errc::invalid_argument,
                           "experiment config is not a JSON object");
    return d;
  }
  return create_experiment(c.config, c.owner, c.activate, true, now_us,
                           c.project_id);
}

decision master_core::on(const det::model_definition_stored& c,
                         int64_t now_us) {
  return model_definition_stored(c.experiment_id, now_us);
}

decision master_core::on(const det::model_definition_lost& c, int64_t now_us) {
  return model_definition_lost(c.experiment_id, c.why, now_us);
}

} // namespace det
