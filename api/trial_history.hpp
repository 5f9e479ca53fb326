#pragma once

// Read routes over a trial's own history in the event log, for the WebUI
// and the SDK: every metrics report (learning curves) and the trial's
// timeline (placed, running, checkpointed, preempted, restarted, exited).
// The state keeps only the latest report of each group, so these read the
// trial's stream ("trial/<id>") from the log, on one reader thread with
// its own read-only connection (api/log_reader.hpp): no I/O thread or
// actor waits on PostgreSQL; past 32 queued queries the answer is 503.
//
//   GET /api/v1/trials/metrics/trial_metrics?trialIds=N[&trialIds=M...]
//       [&group=training|validation][&afterId=K]
//     upstream's GetMetrics: one line {"result": {"metrics": [report...]}}
//     per trial, reports oldest first, each {trialId, id (log position),
//     group, totalBatches, endTime, metrics: {avg_metrics} (training) or
//     {validation_metrics} (validation)}. 1-100 ids.
//     afterId (ours): only reports with a larger id, for a client that
//     follows a curve (ids are log positions: a later read never shows a
//     smaller new one). At most 1,000,000 reports in one answer, the
//     oldest first; a client asks again with afterId for the rest. A group
//     is a name without '.' (400 otherwise); groups other than the two
//     recorded have no reports. Rendered reports are kept per trial on the
//     reader thread, so an ask reads only the stream's newer events (at
//     most 3,000,000 kept, then dropped and read again).
//   GET /api/v1/trials/{trial_id}/timeline
//     {"events": [{position, type, recordedAt, payload}]}: the trial's
//     events except its metrics reports, oldest first, at most the last
//     10,000; secrets redacted.
//
// User sessions only: a trial's allocation token is refused (403), as it
// could otherwise name other trials in the query.
//
// The metrics route is registered only when no other file serves that
// path already: a fuller implementation (a cached history, upstream's
// other metric routes) takes precedence, and the WebUI asks it per group
// and keeps reports by id, so it works with either.

#include "api/master_api.hpp"

namespace det::api {

void add_trial_history_routes(http::router& r,
                              std::shared_ptr<const api_context> ctx);

} // namespace det::api
