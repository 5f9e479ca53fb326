#pragma once

// CAF inspection of the event log's plain data (messages/event.hpp), so it
// can travel in actor messages. CAF 0.17 form: inspect(f, x) returning
// Inspector::result_type.

#include "messages/event.hpp"

#include <caf/error.hpp>
#include <caf/meta/load_callback.hpp>
#include <caf/meta/type_name.hpp>

namespace det {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, event_envelope& x) {
  return f(caf::meta::type_name("event_envelope"), x.type, x.schema_version,
           x.payload);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, new_event& x) {
  return f(caf::meta::type_name("new_event"), x.stream, x.body);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, recorded_event& x) {
  return f(caf::meta::type_name("recorded_event"), x.position, x.stream,
           x.stream_version, x.body, x.recorded_at_us);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stream_expectation& x) {
  bool any = !x.version.has_value();
  int64_t version = x.version.value_or(0);
  auto restore = caf::meta::load_callback([&]() -> caf::error {
    if (any)
      x.version.reset();
    else
      x.version = version;
    return {};
  });
  return f(caf::meta::type_name("stream_expectation"), x.stream, any, version,
           restore);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, append_request& x) {
  return f(caf::meta::type_name("append_request"), x.events, x.expected);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, append_result& x) {
  return f(caf::meta::type_name("append_result"), x.first_position,
           x.last_position);
}

} // namespace det
