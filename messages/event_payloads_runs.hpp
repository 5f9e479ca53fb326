#pragma once

// The payload forms of messages/events_runs.hpp, as
// messages/event_payloads.hpp does for the rest; included from there, after
// its field checks. Private to messages/events.cpp.

#include "messages/event_payloads.hpp"

namespace det::payload {

inline void require_trial_ids(const std::vector<int64_t>& ids) {
  if (ids.empty())
    throw field_error("field 'trial_ids': must name at least one trial");
  for (auto id : ids)
    if (id <= 0)
      throw field_error("field 'trial_ids': must be positive ids");
}

template <class F> void fields(F& f, runs_archived& x) {
  f.req("experiment_id", x.experiment_id);
  f.req("trial_ids", x.trial_ids);
  f.req("archived", x.archived);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

inline void validate(const runs_archived& x) {
  require_trial_ids(x.trial_ids);
}

template <class F> void fields(F& f, runs_deleted& x) {
  f.req("experiment_id", x.experiment_id);
  f.req("trial_ids", x.trial_ids);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

inline void validate(const runs_deleted& x) {
  require_trial_ids(x.trial_ids);
}

template <class F> void fields(F& f, trial_log_policy_matched& x) {
  f.req("trial_id", x.trial_id);
  f.req("experiment_id", x.experiment_id);
  f.req("name", x.name);
  f.opt("pattern", x.pattern);
  f.req("action", x.action);
  f.opt("node", x.node);
  f.opt("line", x.line);
  f.opt("at_us", x.at_us);
}

inline void validate(const trial_log_policy_matched& x) {
  if (x.action != "" && x.action != "cancel_retries"
      && x.action != "exclude_node")
    throw field_error("field 'action': must be \"\", \"cancel_retries\" or "
                      "\"exclude_node\"");
  if (x.action == "exclude_node" && x.node.empty())
    throw field_error("field 'node': required for exclude_node");
}

} // namespace det::payload
