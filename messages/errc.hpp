#pragma once

// The project's one error enum. Every failure that crosses an actor, the
// store/ interface or the aws/ interface is a caf::error of category "det"
// carrying one of these codes and a message (the context) that names what
// went wrong: the field, the stream, the position.

#include <caf/error.hpp>
#include <caf/make_message.hpp>

#include <cstdint>
#include <string>

namespace det {

enum class errc : uint8_t {
  none = 0,
  /// A stream moved past the expected version; nothing was written.
  conflict,
  /// The database (or another dependency) cannot be reached or failed.
  store_unavailable,
  /// Another process holds the event log's writer lock.
  lock_held,
  /// The database schema is newer than this binary knows.
  schema_too_new,
  /// A payload does not satisfy its event type's schema.
  invalid_event,
  /// The log holds an event type this binary does not know.
  unknown_event_type,
  /// A snapshot cannot be decoded, or does not match its events.
  corrupt_snapshot,
  /// A caller passed a bad argument or configuration value.
  invalid_argument,
  /// The thing asked for does not exist.
  not_found,
  /// A state invariant does not hold.
  invariant_violated,
  /// The request was refused by the cloud or another service.
  remote_error,
  /// The thing is not in a state that allows the request (yet).
  failed_precondition,
  /// The caller may not do this (an admin's or an owner's decision).
  permission_denied,
};

const char* to_string(errc x);

/// "conflict: stream trial/1 is at version 3, expected 2": code name and
/// context of a det error; CAF's own rendering for other categories.
std::string render(const caf::error& err);

} // namespace det

CAF_ERROR_CODE_ENUM(det::errc, "det")

namespace det {

/// Shorthand for caf::make_error(code, message).
inline caf::error make_error(errc code, std::string message) {
  return caf::error{static_cast<uint8_t>(code), caf::atom("det"),
                    caf::make_message(std::move(message))};
}

/// The code of a det error, errc::none for success or another category.
errc code_of(const caf::error& err);

} // namespace det
