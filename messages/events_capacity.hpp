#pragma once

// Persisted events of capacity that follows the outside world: a resource
// manager whose agents are not det-agents (Kubernetes: one virtual agent
// per pool whose slots are the pool's nodes') says how many slots the
// agent has now. Included by messages/events.hpp (the catalogue); the
// rules there apply (past tense, never renamed, new fields at the end).

#include "messages/event_definition.hpp"

#include <cstdint>
#include <string>

namespace det {

/// The agent has `slots` slots from now on. Growing adds free slots at the
/// end. Shrinking never takes a slot an allocation holds: free slots at
/// the end go at once; while slots past `slots` are still held, the agent
/// keeps them (they take no new work) and each goes when freed
/// (state::agent_info::slot_limit).
struct agent_slots_changed {
  static constexpr const char* type_name = "agent_slots_changed";
  static constexpr int32_t version = 1;
  std::string agent_id;
  int32_t slots = 0;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("agent_id", agent_id);
    f.req("slots", slots);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_non_empty("agent_id", agent_id);
    if (slots < 0 || slots > (1 << 20))
      throw field_error("field 'slots': must be within [0, 1048576]");
  }
  std::string stream() const { return "agent/" + agent_id; }
};

using capacity_event_family = event_family<agent_slots_changed>;

} // namespace det
