#include "core/log_retention.hpp"

#include "messages/errc.hpp"
#include "state/queries.hpp"

namespace det {

caf::expected<log_retention_set>
log_retention_change(const state::cluster_state& s, int64_t experiment_id,
                     std::optional<int64_t> trial_id, int64_t days,
                     const std::string& username, int64_t now_us) {
  if (days < -1 || days > 32767)
    return make_error(errc::invalid_argument,
                      "numDays: expected -1 (for ever) or 0 to 32767 days, not "
                          + std::to_string(days));
  log_retention_set ev{experiment_id, {}, days, username, now_us};
  if (trial_id) {
    auto t = state::find_trial(s, *trial_id);
    if (t == nullptr)
      return make_error(errc::not_found,
                        "trial " + std::to_string(*trial_id) + " not found");
    ev.experiment_id = t->experiment_id;
    ev.trial_ids = {*trial_id};
    return ev;
  }
  if (state::find_experiment(s, experiment_id) == nullptr)
    return make_error(errc::not_found, "experiment "
                                           + std::to_string(experiment_id)
                                           + " not found");
  return ev;
}

std::vector<int64_t> trials_with_expired_logs(const state::cluster_state& s,
                                              int64_t now_us) {
  constexpr int64_t day_us = int64_t{86400} * 1000 * 1000;
  std::vector<int64_t> out;
  for (const auto& [id, t] : s.trials)
    if (t.log_retention_days && *t.log_retention_days >= 0
        && state::is_terminal(t.status) && t.ended_at_us > 0
        && t.ended_at_us + *t.log_retention_days * day_us <= now_us)
      out.push_back(id);
  return out;
}

} // namespace det
