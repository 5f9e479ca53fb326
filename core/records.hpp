#pragma once

// The decisions on the user's records: workspaces, projects, moving an
// experiment, config templates, resource-pool bindings, the model
// registry. Each command is a pure function of the master's state (never a
// read copy, so names stay unique and ids are given out once): it checks
// its arguments (a bad one is errc::invalid_argument naming the field, the
// API's spelling), and returns the events to append, or a refusal
// (not_found, conflict). master_core::records() appends them.
//
// Commands (`op`, and its arguments in upstream's JSON spelling):
//   workspace.create  {name, agentUserGroup, checkpointStorageConfig,
//                      defaultComputePool, defaultAuxPool}   reply {id}
//   workspace.edit    {id, ...the same, each optional}
//   workspace.archive {id, archived}
//   workspace.delete  {id}                  (refused while it has projects)
//   workspace.namespaces {id, set: {cluster: namespace ("" = default)},
//                      delete: [cluster]}   (the API checked the namespaces;
//                      create and edit take `namespaces` as `set`)
//   project.create    {workspaceId, name, description, key}  reply {id}
//   project.edit      {id, name, description, key}
//   project.archive   {id, archived}
//   project.delete    {id}                  (refused while it has experiments)
//   experiment.move   {experimentId, destinationProjectId}
//   template.create   {name, workspaceId, config}           (conflict if any)
//   template.set      {name, config}                        (not_found if none)
//   template.delete   {name}
//   pool.bind         {pool, mode: add|remove|replace, workspaceIds,
//                      workspaceNames}
//   model.create      {name, description, metadata, labels, notes,
//                      workspaceId}                         reply {id}
//   model.edit        {model (its name), name, description, metadata,
//                      labels, notes, workspaceId, workspaceName}
//   model.archive     {model, archived}
//   model.delete      {model}
//   version.register  {model, checkpointUuid, name, comment, metadata,
//                      labels, notes}                        reply {version}
//   version.edit      {model, version, name, comment, metadata, labels, notes}
//   version.delete    {model, version}
// Unknown ops are errc::invalid_argument. A change that changes nothing
// writes nothing.

#include "messages/events.hpp"
#include "state/cluster_state.hpp"

#include <caf/error.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace det {

struct record_command {
  std::string op;
  nlohmann::json args = nlohmann::json::object();
  std::string username;
};

struct record_outcome {
  std::vector<domain_event> events;
  nlohmann::json reply = nlohmann::json::object();
  caf::error refusal;
};

record_outcome decide_record(const state::cluster_state& s,
                             const record_command& c, int64_t now_us);

} // namespace det
