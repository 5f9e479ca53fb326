#pragma once

// The decisions on the user's records: workspaces, projects, moving an
// experiment, config templates, resource-pool bindings, the model
// registry (core/record_models.hpp), config policies
// (core/config_policies.hpp). Each command is a struct of
// core/commands_records.hpp, its fields' shapes checked when the API parsed
// the request (core/records_parse.hpp). Its decider is a pure function of
// the master's state (never a read copy, so names stay unique and ids are
// given out once): it checks what depends on the state and returns the
// events to append, or a refusal (not_found, conflict, invalid_argument
// naming the field as the API spells it). A change that changes nothing
// writes nothing. master_core::on (the generic one, core/master_core.hpp)
// appends the events.

#include "core/commands_records.hpp"
#include "messages/events.hpp"
#include "state/cluster_state.hpp"

#include <caf/error.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace det {

struct record_outcome {
  std::vector<domain_event> events;
  nlohmann::json reply = nlohmann::json::object();
  caf::error refusal;
};

// One decider per record command: the events, the reply, or the refusal.
record_outcome decide_record(const state::cluster_state& s,
                             const workspace_create& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const workspace_edit& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const workspace_archive& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const workspace_delete& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const workspace_pin& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const workspace_namespaces& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const project_create& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const project_edit& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const project_notes& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const project_archive& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const project_delete& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const project_move& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const experiment_move& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const template_create& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const template_set& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const template_delete& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s, const pool_bind& c,
                             int64_t now_us);

} // namespace det
