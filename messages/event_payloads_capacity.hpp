#pragma once

// The payload forms of messages/events_capacity.hpp, as
// messages/event_payloads.hpp does for the rest; included from there.
// Private to messages/events.cpp.

#include "messages/event_payloads.hpp"

namespace det::payload {

template <class F> void fields(F& f, agent_slots_changed& x) {
  f.req("agent_id", x.agent_id);
  f.req("slots", x.slots);
  f.opt("at_us", x.at_us);
}

inline void validate(const agent_slots_changed& x) {
  require_non_empty("agent_id", x.agent_id);
  if (x.slots < 0 || x.slots > (1 << 20))
    throw field_error("field 'slots': must be within [0, 1048576]");
}

} // namespace det::payload
