// master_core::decide's deciders of the commands on experiments and their
// trials (core/commands_experiments.hpp) and of the trial actors' steps
// (core/trial_lifecycle.hpp): each is the master_core method it names
// (master_core_experiments.cpp, master_core_changes.cpp,
// master_core_continue.cpp, master_core.cpp), with its refusals.

#include "core/master_core.hpp"

#include "messages/errc.hpp"

namespace det {

decision master_core::on(const experiment_submit& c, int64_t now_us) {
  if (!c.config.is_object()) {
    decision d;
    return with_refusal(d, errc::invalid_argument,
                        "experiment config is not a JSON object");
  }
  return submit_experiment(c.config, c.owner, now_us);
}

decision master_core::on(const experiment_pause& c, int64_t now_us) {
  return pause_experiment(c.experiment_id, now_us);
}

decision master_core::on(const experiment_activate& c, int64_t now_us) {
  return activate_experiment(c.experiment_id, now_us);
}

decision master_core::on(const experiment_kill& c, int64_t now_us) {
  return kill_experiment(c.experiment_id, now_us);
}

decision master_core::on(const experiment_cancel& c, int64_t now_us) {
  return cancel_experiment(c.experiment_id, now_us);
}

decision master_core::on(const trial_kill& c, int64_t now_us) {
  return kill_trial(c.trial_id, now_us);
}

decision master_core::on(const experiment_delete& c, int64_t now_us) {
  return delete_experiment(c.experiment_id, c.username, now_us);
}

decision master_core::on(const experiment_archive& c, int64_t now_us) {
  return archive_experiment(c.experiment_id, c.archived, c.username, now_us);
}

decision master_core::on(const experiment_continue& c, int64_t now_us) {
  return continue_experiment(c.experiment_id, c.override_config, c.username,
                             now_us);
}

decision master_core::on(const trial_step& c, int64_t now_us) {
  return apply_trial_step(c, now_us);
}

} // namespace det
