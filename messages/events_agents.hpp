#pragma once

// Persisted events of agents and their slots: connected, disconnected,
// lost, and enabled or disabled by an operator. Included by
// messages/events.hpp (the catalogue); the rules there apply (past tense,
// never renamed, new fields at the end). All of them belong to stream
// "agent/<id>".

#include "messages/event_definition.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace det {

/// agent_lost reasons.
inline const std::vector<std::string>& agent_lost_reasons() {
  static const std::vector<std::string> xs{"reconnect_timeout",
                                           "spot_reclaimed",
                                           "instance_terminated", "shut_down"};
  return xs;
}

/// An agent connected and reported its slots; or, while its reconnect
/// deadline runs, reconnected with the same pool, slots and instance.
/// Version 1 called the pool "resource_pool" and had no slot type.
struct agent_connected {
  static constexpr const char* type_name = "agent_connected";
  static constexpr int32_t version = 2;
  std::string agent_id;
  std::string pool;
  int32_t slots = 0;
  /// "cpu", "cuda" or "rocm".
  std::string slot_type = "cpu";
  /// The provisioner's instance id, empty for static agents.
  std::string instance_id;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("agent_id", agent_id);
    f.req("pool", pool);
    f.req("slots", slots);
    f.req("slot_type", slot_type);
    f.opt("instance_id", instance_id);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_non_empty("agent_id", agent_id);
    require_non_negative("slots", slots);
    // A bound so that a corrupt payload cannot make the state allocate
    // billions of slots; no machine has more devices than this.
    if (slots > 4096)
      throw field_error("field 'slots': more than 4096");
    require_one_of("slot_type", slot_type, {"cpu", "cuda", "rocm"});
  }
  std::string stream() const { return "agent/" + agent_id; }
};

/// An agent's connection closed; it keeps its slots (and its trials keep
/// running) until `reconnect_deadline_us`.
struct agent_disconnected {
  static constexpr const char* type_name = "agent_disconnected";
  static constexpr int32_t version = 1;
  std::string agent_id;
  std::string reason;
  int64_t reconnect_deadline_us = 0;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("agent_id", agent_id);
    f.opt("reason", reason);
    f.opt("reconnect_deadline_us", reconnect_deadline_us);
    f.opt("at_us", at_us);
  }
  std::string stream() const { return "agent/" + agent_id; }
};

/// An agent is gone for good; every allocation holding one of its slots
/// ends with it (reason agent_lost, or spot_reclaimed when `reason` is
/// spot_reclaimed; neither counts against max_restarts). `reason`:
/// reconnect_timeout, spot_reclaimed, instance_terminated, shut_down.
struct agent_lost {
  static constexpr const char* type_name = "agent_lost";
  static constexpr int32_t version = 1;
  std::string agent_id;
  std::string reason;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("agent_id", agent_id);
    f.req("reason", reason);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_one_of("reason", reason, agent_lost_reasons());
  }
  std::string stream() const { return "agent/" + agent_id; }
};

/// An operator enabled a disabled agent: it takes new work again.
struct agent_enabled {
  static constexpr const char* type_name = "agent_enabled";
  static constexpr int32_t version = 1;
  std::string agent_id;

  template <class F> void fields(F& f) { f.req("agent_id", agent_id); }
  std::string stream() const { return "agent/" + agent_id; }
};

/// An operator disabled an agent: no new work is placed on it. With `drain`
/// its running trials finish; without, the actor kills them. `retire`: the
/// master emptied it to give its instance back (consolidation), so the
/// provisioner terminates it once idle, without its idle period.
struct agent_disabled {
  static constexpr const char* type_name = "agent_disabled";
  static constexpr int32_t version = 1;
  std::string agent_id;
  bool drain = false;
  bool retire = false;

  template <class F> void fields(F& f) {
    f.req("agent_id", agent_id);
    f.opt("drain", drain);
    f.opt("retire", retire);
  }
  std::string stream() const { return "agent/" + agent_id; }
};

/// An operator disabled one slot of an agent (det slot disable): no new
/// work is placed on it; without `drain` the trial on it is killed.
struct slot_disabled {
  static constexpr const char* type_name = "slot_disabled";
  static constexpr int32_t version = 1;
  std::string agent_id;
  int64_t slot_id = 0;
  bool drain = false;

  template <class F> void fields(F& f) {
    f.req("agent_id", agent_id);
    f.req("slot_id", slot_id);
    f.opt("drain", drain);
  }
  void validate() const {
    require_non_empty("agent_id", agent_id);
    require_non_negative("slot_id", slot_id);
  }
  std::string stream() const { return "agent/" + agent_id; }
};

/// The slot takes work again (det slot enable).
struct slot_enabled {
  static constexpr const char* type_name = "slot_enabled";
  static constexpr int32_t version = 1;
  std::string agent_id;
  int64_t slot_id = 0;

  template <class F> void fields(F& f) {
    f.req("agent_id", agent_id);
    f.req("slot_id", slot_id);
  }
  void validate() const {
    require_non_empty("agent_id", agent_id);
    require_non_negative("slot_id", slot_id);
  }
  std::string stream() const { return "agent/" + agent_id; }
};

using agent_event_family =
    event_family<agent_connected, agent_disconnected, agent_lost, agent_enabled,
                 agent_disabled, slot_disabled, slot_enabled>;

} // namespace det
