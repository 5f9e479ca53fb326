#pragma once

// The catalogue of persisted domain events (past tense, never renamed once
// released): domain_event joins the families of messages/events_*.hpp, and
// the functions below encode, decode, check and visit any of them through
// each event's own definition (messages/event_definition.hpp shows its
// shape). Payloads are documented in docs/events.md. Streams: "cluster",
// "pool/<name>", "agent/<id>", "experiment/<id>", "trial/<id>",
// "instance/<id>" (EC2 instance ids and spot request ids alike), "task/<id>";
// "user/<name>" is reserved for users and auth tokens.
//
// Instants are microseconds since the Unix epoch taken from the deciding
// actor's clock (`*_us`); durations are whole seconds (`*_s`). state/ takes
// every time from these fields, never from a clock, so timers survive a
// restart.
//
// To add an event: its struct (type name, version, fields, fields(),
// validate() if it needs checks, stream()) in its family's
// messages/events_*.hpp and in that file's event_family, a line in
// docs/events.md, and a round-trip case in tests/messages. New fields go at
// the end of a struct (aggregate initialisers elsewhere rely on the order).
// To change a released payload: bump `version`, add an upcaster from the
// old version in events.cpp, keep a golden file of the old form in
// tests/data/events/.

#include "messages/event.hpp"
#include "messages/events_accounts.hpp"
#include "messages/events_agents.hpp"
#include "messages/events_capacity.hpp"
#include "messages/events_checkpoint_files.hpp"
#include "messages/events_cluster.hpp"
#include "messages/events_continue.hpp"
#include "messages/events_experiments.hpp"
#include "messages/events_instances.hpp"
#include "messages/events_records.hpp"
#include "messages/events_runs.hpp"
#include "messages/events_tasks.hpp"
#include "messages/events_trials.hpp"
#include "messages/events_unmanaged.hpp"
#include "messages/events_webhooks.hpp"

#include <caf/expected.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace det {

/// Every persisted event. The order of the alternatives is not persisted
/// (the log names types); master_started stays first, the default.
using domain_event = event_variant_t<
    cluster_event_family, agent_event_family, instance_event_family,
    experiment_event_family, trial_event_family, account_event_family,
    checkpoint_event_family, record_event_family, webhook_event_family,
    capacity_event_family, continue_event_family, run_event_family,
    unmanaged_event_family, task_event_family>;

/// The type name of the alternative `ev` holds.
const char* type_name_of(const domain_event& ev);

/// The stream an event belongs to ("trial/42").
std::string stream_of(const domain_event& ev);

/// The event as the log stores it, at its current schema version.
event_envelope to_envelope(const domain_event& ev);

/// Shorthand: to_envelope plus stream_of.
new_event to_new_event(const domain_event& ev);

/// Decodes a stored event: parses the payload, upgrades it from an older
/// schema version, and checks every field. Errors (invalid_event,
/// unknown_event_type) name the position, the type and the field.
caf::expected<domain_event> decode(const recorded_event& rec);

/// decode() reads a payload at the current version without building its
/// JSON tree when it can (messages/payload_scan.hpp) and with the tree
/// otherwise; the two give the same event, or the tree's error. Both are
/// exposed for the tests that compare them: decode_with_tree is decode()
/// with the tree alone; decode_without_tree gives nothing when the reader
/// without a tree does not take the payload.
caf::expected<domain_event> decode_with_tree(const recorded_event& rec);
std::optional<domain_event> decode_without_tree(const event_envelope& env);

/// Decodes an envelope that is not (yet) in the log; `where` names it in
/// errors.
caf::expected<domain_event> decode(const event_envelope& env,
                                   const std::string& where);

/// Checks what decode() checks beyond field types (closed vocabularies,
/// ranges) on an event built in memory; errc::invalid_event names the
/// field. state::apply() calls it, so actors get the same checks as replay.
caf::error validate(const domain_event& ev);

/// The values of an event by kind, each named by its payload key: every
/// text field (each item of a list, and "assignments[].agent_id"), every
/// document (config, hparams, metrics, ...), every floating-point number.
/// Integers and booleans are not visited. Unset members are skipped.
struct event_field_visitor {
  std::function<void(const char* key, std::string&)> text;
  std::function<void(const char* key, nlohmann::json&)> document;
  std::function<void(const char* key, double&)> number;
};
void visit_fields(domain_event& ev, const event_field_visitor& v);

/// Makes the reasons and messages of `ev` keep storable()'s rules (text
/// that is not UTF-8, control characters other than tab and line breaks
/// become U+FFFD; cut at 4096 bytes). They are the master's words, which
/// may quote a client; they never make a command fail.
void fit_prose(domain_event& ev);

/// Checks that the log can hold `ev` as it is: every string UTF-8 without
/// NUL, names and ids without control characters and at most 255 bytes,
/// reasons and messages at most 4096, documents (config, hparams, metrics,
/// metadata) without NUL, non-finite numbers or nesting deeper than 64.
/// errc::invalid_argument names the type and field. The master runs it on
/// every event it decides, before applying it; replay does not.
caf::error storable(const domain_event& ev);

/// Upgrades `payload` of `type` from `from_version` to the current version.
/// Exposed for tests of the upcasters.
caf::expected<nlohmann::json>
upcast(const std::string& type, int32_t from_version, nlohmann::json payload);

/// Every known type name with its current version, for det-replay and docs.
std::vector<std::pair<std::string, int32_t>> known_event_types();

} // namespace det
