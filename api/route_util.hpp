#pragma once

// Helpers the master's route files share (api/route_util.cpp):
// decoding path parameters and bodies, asking the master for a view, and the
// allocation-token check of the trial endpoints. They answer the request
// themselves when they fail (400/401/403) and return nothing then.

#include "api/api_context.hpp"
#include "api/views_cluster.hpp"
#include "http/router.hpp"

#include <caf/event_based_actor.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace det::api {

using ctx_ptr = std::shared_ptr<const api_context>;

/// A function of the state whose JSON answer is sent as the response.
using render_fn =
    std::function<nlohmann::json(const state::cluster_state&, int64_t now_us)>;

/// Answers `res` with fn(state) from the read model (the master when the
/// context has none), at the position the request asks for
/// (X-Det-Min-Position) or later; the answer names its position
/// (X-Det-Position). A null answer is a 404 with the message `missing`.
void answer_view(const ctx_ptr& ctx, const http::http_request& req,
                 http::responder res, render_fn fn, std::string missing);

/// A function of the state and a record's id, for answer_by_id.
using id_render_fn =
    std::function<nlohmann::json(const state::cluster_state&, int64_t id)>;

/// The preamble of a GET of one record: path parameter `param` as a
/// positive id (else 400 naming it, as id_param), then answer_view of
/// fn(state, id), a null answer being 404 "<what> <id> not found".
void answer_by_id(const ctx_ptr& ctx, const http::http_request& req,
                  const http::responder& res, const std::string& what,
                  id_render_fn fn, const char* param = "id");

void fail(const http::responder& res, const caf::error& err);

/// Asks the read model (the master when there is none) for a view; calls
/// `then` with it on the bridge. `min_position`: the log position the view
/// must reflect at least (a replica waits for it).
void ask_view(const ctx_ptr& ctx, caf::event_based_actor* self, render_fn fn,
              http::responder res, std::function<void(nlohmann::json)> then,
              int64_t min_position = 0);

/// Renders the answer's text from the read model's view (its fragments
/// included); "" is a 404 with `missing`. Without a read model: 503.
using text_fn = std::function<std::string(const read::read_view&)>;
void answer_read(const ctx_ptr& ctx, const http::http_request& req,
                 http::responder res, text_fn fn, std::string missing);

/// Answers 200 with fn(state, now) as a body of `content_type` (CSV for
/// upstream's legacy resource routes), from the read model as
/// answer_view does, or from the master when there is none.
using state_text_fn =
    std::function<std::string(const state::cluster_state&, int64_t now_us)>;
void answer_text_view(const ctx_ptr& ctx, const http::http_request& req,
                      http::responder res, state_text_fn fn,
                      std::string content_type);

/// A list from the read model, its text gzip-coded when the request's
/// Accept-Encoding admits gzip (and Vary: Accept-Encoding either way). The
/// text is the replica's kept answer, sent without a copy.
using coded_text_fn = std::function<std::shared_ptr<const std::string>(
    const read::read_view&, body_coding)>;
void answer_coded_read(const ctx_ptr& ctx, const http::http_request& req,
                       http::responder res, coded_text_fn fn);

/// When a request's read gives up (now + the request timeout).
std::chrono::steady_clock::time_point deadline_of(const ctx_ptr& ctx);

/// A read the model could not serve in time (or at all): 503 naming why.
read::refuse_fn refused(http::responder res);

/// X-Det-Min-Position of the request (0 when absent), or answers 400.
std::optional<int64_t> min_position(const http::http_request& req,
                                    const http::responder& res);

/// Answers 200 with `body` after a write, naming the position a client
/// must read at to see it (X-Det-Position).
void send_written(const ctx_ptr& ctx, const http::responder& res,
                  std::string body);

/// Answers {"b64Tgz": ...}, experiment `id`'s model definition, waiting
/// while it is still being stored (actors/experiment_creation_actor.hpp).
/// On the bridge.
void reply_model_def(const ctx_ptr& ctx, caf::event_based_actor* self,
                     int64_t id, const http::responder& res);

/// Sends `c` to the master (master_core::decide); once its events are
/// durable, runs `then` on the bridge with the reply; a refusal is
/// answered as the error.
void send_command(
    const ctx_ptr& ctx, const http::responder& res, command c,
    std::function<void(caf::event_based_actor*, nlohmann::json)> then);

/// Sends `c` to the master and answers {} once its events are durable, or
/// the refusal (through `refused` when given); callable from any thread
/// (the bridge is not involved).
void command_and_answer(
    const ctx_ptr& ctx, const http::responder& res, command c,
    std::function<void(const caf::error&)> refused = nullptr);

/// Once durable, the view `fn` makes of the reply (from the read model,
/// which has seen the write) as the answer; `fn` answering null sends {}.
std::function<void(caf::event_based_actor*, nlohmann::json)>
then_view(const ctx_ptr& ctx, const http::responder& res,
          std::function<render_fn(const nlohmann::json&)> fn);

/// send_command answering then_view's view of the reply.
void command_then_view(const ctx_ptr& ctx, const http::responder& res,
                       command c,
                       std::function<render_fn(const nlohmann::json&)> fn);

/// offset and limit from the query, or answers 400 and returns nothing.
std::optional<page> page_of(const http::http_request& req,
                            const http::responder& res);

/// `text` as a positive id (decimal digits only), or nothing.
std::optional<int64_t> positive_id(const std::string& text);

/// Parses a positive id path parameter, or answers 400.
std::optional<int64_t> id_param(const http::http_request& req,
                                const http::responder& res,
                                const char* name = "id");

/// The body as a JSON object ("" reads as {}), or answers 400.
std::optional<nlohmann::json> json_body(const http::http_request& req,
                                        const http::responder& res);

/// The allocation (session) token of a trial request: upstream's task
/// header "Grpc-Metadata-x-allocation-token: Bearer X", else
/// "Authorization: Bearer X"; "" when neither.
std::string allocation_token(const http::http_request& req);

/// Checks the session token for `allocation_id`; answers 401/403 if bad.
bool authorized(const ctx_ptr& ctx, const http::http_request& req,
                const http::responder& res, const std::string& allocation_id);

} // namespace det::api
