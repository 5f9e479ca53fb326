#pragma once

// The handlers of the basic experiment routes (create, describe, list its
// trials, its model definition, pause, activate, kill, cancel, delete,
// edit, archive, unarchive), each a route_fn of the experiment family's
// table (api/experiment_routes.cpp). Each decodes the request on the I/O
// thread and answers through the responder: a bad id or body at once (400
// naming it), otherwise from the bridge once the master has decided (its
// refusal as its error) and, for writes, once the events are durable.

#include "api/route_util.hpp"

namespace det::api {

/// POST /api/v1/experiments: creates the experiment paused or active, then
/// stores its model definition; its trials are placed once it is stored
/// (a failure to store ends it in ERROR). `unmanaged: true` creates an
/// unmanaged one (api_unmanaged.hpp).
void create_experiment(const ctx_ptr& ctx, const http::http_request& req,
                       const http::responder& res);
void get_experiment(const ctx_ptr& ctx, const http::http_request& req,
                    const http::responder& res);
void get_experiment_trials(const ctx_ptr& ctx, const http::http_request& req,
                           const http::responder& res);
/// {"b64Tgz": ...}, waiting while the definition is still being stored.
void get_model_def(const ctx_ptr& ctx, const http::http_request& req,
                   const http::responder& res);
void pause_experiment(const ctx_ptr& ctx, const http::http_request& req,
                      const http::responder& res);
void activate_experiment(const ctx_ptr& ctx, const http::http_request& req,
                         const http::responder& res);
void kill_experiment(const ctx_ptr& ctx, const http::http_request& req,
                     const http::responder& res);
void cancel_experiment(const ctx_ptr& ctx, const http::http_request& req,
                       const http::responder& res);
void delete_experiment(const ctx_ptr& ctx, const http::http_request& req,
                       const http::responder& res);
/// PATCH /api/v1/experiments/{id}: answers the experiment as edited.
void edit_experiment(const ctx_ptr& ctx, const http::http_request& req,
                     const http::responder& res);
void archive_experiment(const ctx_ptr& ctx, const http::http_request& req,
                        const http::responder& res);
void unarchive_experiment(const ctx_ptr& ctx, const http::http_request& req,
                          const http::responder& res);

} // namespace det::api
