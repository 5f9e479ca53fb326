#pragma once

// Trial log retention (upstream's log_retention_days): how long a trial's
// logs are kept after it ends, set per experiment or per trial
// (log_retention_set), and which trials' logs are due for deletion at a
// given time (the checkpoint collector's periodic pass deletes them; the
// clock is its caller's). -1 keeps them for ever, as does a trial with no
// setting (the cluster default). Pure; any thread.

#include "messages/events.hpp"
#include "state/cluster_state.hpp"

#include <caf/expected.hpp>

#include <optional>
#include <vector>

namespace det {

/// The event for `det experiment set log-retention` (no trial_id) or `det
/// trial set log-retention`: errc::not_found naming the experiment or
/// trial that does not exist, errc::invalid_argument naming numDays
/// outside [-1, 32767].
[[nodiscard]] caf::expected<log_retention_set>
log_retention_change(const state::cluster_state& s, int64_t experiment_id,
                     std::optional<int64_t> trial_id, int64_t days,
                     const std::string& username, int64_t now_us);

/// Ended trials whose logs are past their retention at `now_us`.
[[nodiscard]] std::vector<int64_t>
trials_with_expired_logs(const state::cluster_state& s, int64_t now_us);

} // namespace det
