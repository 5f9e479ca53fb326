#pragma once

// The payload forms of messages/events_checkpoint_files.hpp, as
// messages/event_payloads.hpp does for the rest; included from there, after
// its field checks. Private to messages/events.cpp.

#include "messages/event_payloads.hpp"

namespace det::payload {

template <class F> void fields(F& f, checkpoint_files_removal_requested& x) {
  f.req("experiment_id", x.experiment_id);
  f.req("uuids", x.uuids);
  f.opt("globs", x.globs);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

inline void validate(const checkpoint_files_removal_requested& x) {
  if (x.uuids.empty())
    throw field_error("field 'uuids': must not be empty");
  for (const auto& g : x.globs)
    if (g.empty())
      throw field_error("field 'globs': must not hold an empty glob");
}

template <class F> void fields(F& f, checkpoint_files_removed& x) {
  f.req("experiment_id", x.experiment_id);
  f.req("uuid", x.uuid);
  f.req("resources", x.resources);
  f.opt("at_us", x.at_us);
}

inline void validate(const checkpoint_files_removed& x) {
  // {path: size} as the storage listed it; the views show each size as
  // text, whatever its form.
  if (!x.resources.is_object())
    throw field_error("field 'resources': must be an object");
}

template <class F> void fields(F& f, checkpoint_metadata_set& x) {
  f.req("experiment_id", x.experiment_id);
  f.req("uuid", x.uuid);
  f.req("metadata", x.metadata);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

inline void validate(const checkpoint_metadata_set& x) {
  require_object(x.metadata, "field 'metadata'");
  // The files are the storage's to say (checkpoint_files_removed).
  if (x.metadata.contains("resources"))
    throw field_error("field 'metadata': must not hold 'resources'");
}

} // namespace det::payload
