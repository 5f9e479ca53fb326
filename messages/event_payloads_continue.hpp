#pragma once

// The payload form of messages/events_continue.hpp, as
// messages/event_payloads.hpp does for the rest; included from there, after
// its field checks. Private to messages/events.cpp.

#include "messages/event_payloads.hpp"

namespace det::payload {

template <class F> void fields(F& f, experiment_continued& x) {
  f.req("experiment_id", x.experiment_id);
  f.req("config", x.config);
  f.opt("trial_ids", x.trial_ids);
  f.req("searcher_state", x.searcher_state);
  f.opt("progress", x.progress);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
  f.opt("trial_hparams", x.trial_hparams);
}

inline void validate(const experiment_continued& x) {
  require_object(x.config, "field 'config'");
  require_object(x.searcher_state, "field 'searcher_state'");
  if (!(x.progress >= 0.0 && x.progress <= 1.0))
    throw field_error("field 'progress': must be within [0, 1]");
  for (auto id : x.trial_ids)
    if (id <= 0)
      throw field_error("field 'trial_ids': must be positive ids");
  if (!x.trial_hparams.is_null()) {
    require_object(x.trial_hparams, "field 'trial_hparams'");
    if (x.trial_ids.size() != 1)
      throw field_error("field 'trial_hparams': only for one trial");
  }
}

} // namespace det::payload
