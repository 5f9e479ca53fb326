#pragma once

// The payload forms of messages/events_experiments.hpp, as
// messages/event_payloads.hpp does for the rest; included from there, after
// its field checks. Private to messages/events.cpp.

#include "messages/event_payloads.hpp"

namespace det::payload {

template <class F> void fields(F& f, experiment_gc_policy_changed& x) {
  f.req("experiment_id", x.experiment_id);
  f.req("save_experiment_best", x.save_experiment_best);
  f.req("save_trial_best", x.save_trial_best);
  f.req("save_trial_latest", x.save_trial_latest);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

inline void validate(const experiment_gc_policy_changed& x) {
  require_non_negative("save_experiment_best", x.save_experiment_best);
  require_non_negative("save_trial_best", x.save_trial_best);
  require_non_negative("save_trial_latest", x.save_trial_latest);
}

template <class F> void fields(F& f, log_retention_set& x) {
  f.req("experiment_id", x.experiment_id);
  f.opt("trial_ids", x.trial_ids);
  f.req("days", x.days);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

inline void validate(const log_retention_set& x) {
  if (x.days < -1 || x.days > 32767)
    throw field_error("field 'days': must be within [-1, 32767]");
}

} // namespace det::payload
