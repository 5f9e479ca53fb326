#pragma once

// The payload forms of messages/events_unmanaged.hpp, as
// messages/event_payloads.hpp does for the rest; included from there, after
// its field checks. Private to messages/events.cpp.

#include "messages/event_payloads.hpp"

namespace det::payload {

inline const std::vector<std::string>& unmanaged_trial_states() {
  static const std::vector<std::string> v{"PAUSED", "RUNNING", "COMPLETED",
                                          "CANCELED", "ERROR"};
  return v;
}

template <class F> void fields(F& f, unmanaged_trial_created& x) {
  f.req("trial_id", x.trial_id);
  f.req("experiment_id", x.experiment_id);
  f.opt("external_id", x.external_id);
  f.opt("hparams", x.hparams);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

inline void validate(const unmanaged_trial_created& x) {
  require_object(x.hparams, "field 'hparams'");
  if (x.trial_id <= 0 || x.experiment_id <= 0)
    throw field_error("fields 'trial_id' and 'experiment_id': must be "
                      "positive");
}

template <class F> void fields(F& f, unmanaged_trial_state_set& x) {
  f.req("trial_id", x.trial_id);
  f.req("experiment_id", x.experiment_id);
  f.req("state", x.state);
  f.opt("started", x.started);
  f.opt("reason", x.reason);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

inline void validate(const unmanaged_trial_state_set& x) {
  require_one_of("state", x.state, unmanaged_trial_states());
}

} // namespace det::payload
