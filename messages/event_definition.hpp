#pragma once

// What a family file of events (messages/events_*.hpp) defines each event
// with. An event is one struct, and the struct is its whole definition
// (messages/events_agents.hpp):
//
//   struct agent_lost {
//     static constexpr const char* type_name = "agent_lost"; // never renamed
//     static constexpr int32_t version = 1; // the payload's schema version
//     std::string agent_id;                 // the payload; new fields last
//     std::string reason;
//     int64_t at_us = 0;
//
//     template <class F> void fields(F& f) {
//       f.req("agent_id", agent_id);
//       f.req("reason", reason);
//       f.opt("at_us", at_us);
//     }
//     void validate() const {
//       require_one_of("reason", reason, agent_lost_reasons());
//     }
//     std::string stream() const { return "agent/" + agent_id; }
//   };
//
// fields() lists the payload's JSON keys in order; the one list drives
// writing, reading and visiting (messages/events.cpp), so they cannot
// disagree. `f.req` fields must be present when read; `f.opt` fields keep
// the struct's default when absent or null; every field is always written.
// validate() is optional: the checks beyond field types, throwing
// field_error that names the field. stream() names the stream the event is
// appended to. Each family file ends with an event_family of its events,
// which messages/events.hpp joins into domain_event.

#include "messages/json_fields.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace det {

/// The events of one family file, in order.
template <class... Events> struct event_family {};

namespace detail {

template <class... Families> struct event_variant;

template <class... Es> struct event_variant<event_family<Es...>> {
  using type = std::variant<Es...>;
};

template <class... As, class... Bs, class... Rest>
struct event_variant<event_family<As...>, event_family<Bs...>, Rest...>
    : event_variant<event_family<As..., Bs...>, Rest...> {};

} // namespace detail

/// One std::variant of the events of every family, in order.
template <class... Families>
using event_variant_t = typename detail::event_variant<Families...>::type;

// -- checks for validate() ----------------------------------------------------

inline void require_one_of(const char* key, const std::string& value,
                           const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end())
    return;
  std::string list;
  for (const auto& a : allowed)
    list += (list.empty() ? "" : ", ") + a;
  throw field_error(std::string{"field '"} + key + "': expected one of " + list
                    + ", got '" + value + "'");
}

inline void require_non_negative(const char* key, int64_t value) {
  if (value < 0)
    throw field_error(std::string{"field '"} + key + "': must not be negative");
}

inline void require_positive(const char* key, int64_t value) {
  if (value < 1)
    throw field_error(std::string{"field '"} + key + "': must be at least 1");
}

inline void require_non_empty(const char* key, const std::string& value) {
  if (value.empty())
    throw field_error(std::string{"field '"} + key + "': must not be empty");
}

/// A token hash is a hex SHA-256: 64 lower-case hex digits.
inline void require_token_hash(const std::string& h) {
  bool hex = h.size() == 64 && std::all_of(h.begin(), h.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
             });
  if (!hex)
    throw field_error("field 'token_hash': expected 64 hex digits");
}

} // namespace det
