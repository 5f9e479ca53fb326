#include "api/api_cluster.hpp"

#include "api/api_auth.hpp"
#include "api/api_bridge.hpp"
#include "api/api_tasks.hpp"
#include "api/experiment_query.hpp"
#include "api/log_filter.hpp"
#include "api/node_agents.hpp"
#include "api/route_util.hpp"
#include "api/task_access.hpp"
#include "api/views.hpp"
#include "api/views_cluster.hpp"
#include "conf/redact.hpp"
#include "http/grpc_error.hpp"
#include "messages/errc.hpp"
#include "messages/json_fields.hpp"
#include "state/queries.hpp"
#include "util/log.hpp"

#include <caf/event_based_actor.hpp>

#include <algorithm>
#include <optional>
#include <set>

namespace det::api {

using json = nlohmann::json;

using ctx_ptr = std::shared_ptr<const api_context>;

namespace {

using http::grpc_code;
using http::http_request;
using http::responder;

/// A checkpoint list's order from the query, or answers 400 naming the
/// parameter.
std::optional<checkpoint_order> checkpoint_order_of(const http_request& req,
                                                    const responder& res) {
  static const std::set<std::string> attrs{
      "SORT_BY_UNSPECIFIED",    "SORT_BY_UUID",     "SORT_BY_TRIAL_ID",
      "SORT_BY_BATCH_NUMBER",   "SORT_BY_END_TIME", "SORT_BY_STATE",
      "SORT_BY_SEARCHER_METRIC"};
  static const std::set<std::string> states{
      "STATE_UNSPECIFIED", "STATE_ACTIVE",  "STATE_COMPLETED",
      "STATE_ERROR",       "STATE_DELETED", "STATE_PARTIALLY_DELETED"};
  checkpoint_order o;
  auto bad = [&res](const std::string& what) {
    res.send_error(http::grpc_code::invalid_argument, what);
    return std::nullopt;
  };
  if (auto a = req.query.get("sortByAttr")) {
    if (attrs.count(*a) == 0)
      return bad("sortByAttr: '" + a->substr(0, 64) + "' is not a sort");
    o.attr = *a;
  }
  if (auto m = req.query.get("sortByMetric")) {
    if (m->empty() || m->size() > 255)
      return bad("sortByMetric: expected a metric's name");
    o.metric = *m;
  }
  if (auto b = req.query.get("orderBy")) {
    if (*b != "ORDER_BY_ASC" && *b != "ORDER_BY_DESC"
        && *b != "ORDER_BY_UNSPECIFIED")
      return bad("orderBy: expected ORDER_BY_ASC or ORDER_BY_DESC");
    o.descending = *b == "ORDER_BY_DESC";
  }
  for (const auto& st : req.query.get_all("states")) {
    if (states.count(st) == 0)
      return bad("states: '" + st.substr(0, 64) + "' is not a state");
    if (st != "STATE_UNSPECIFIED")
      o.states.push_back(st);
  }
  return o;
}

/// A checkpoint list of the trial or experiment named by `param`.
void answer_checkpoints(const ctx_ptr& ctx, const http_request& req,
                        const responder& res, const char* param,
                        const char* what,
                        nlohmann::json (*render)(const state::cluster_state&,
                                                 int64_t, page,
                                                 const checkpoint_order&)) {
  auto id = id_param(req, res, param);
  auto p = id ? page_of(req, res) : std::nullopt;
  auto o = p ? checkpoint_order_of(req, res) : std::nullopt;
  if (!o)
    return;
  answer_view(
      ctx, req, res,
      [id = *id, p = *p, o = *o, render](const state::cluster_state& s,
                                         int64_t) {
        return render(s, id, p, o);
      },
      std::string{what} + " " + std::to_string(*id) + " not found");
}

// -- trial logs
// -----------------------------------------------------------------

/// Upstream's TrialLogsResponse message: "[ts] <container> || <text>\n".
/// A log line as upstream's trial logs show it; with `task` (a task id,
/// for /api/v1/tasks/{task_id}/logs) it also carries upstream's taskId.
json log_json(const log_line& l, const std::string& task = {}) {
  auto container = l.agent_id.substr(0, 8);
  container.resize(8, ' ');
  auto text = l.text + "\n";
  json j{{"id", std::to_string(l.id)},
         {"trialId", l.trial_id},
         {"agentId", l.agent_id},
         {"containerId", l.agent_id},
         {"level", "LOG_LEVEL_INFO"},
         {"stdtype", "stdout"},
         {"source", "task"},
         {"message", "[" + rfc3339(l.at_us) + "] " + container + " || " + text},
         {"log", text},
         {"timestamp", rfc3339(l.at_us)}};
  if (!task.empty())
    j["taskId"] = task;
  return j;
}

/// Streams lines after `after` until the trial has ended and nothing new
/// arrived, or the client left; looks again every preemption_poll.
void follow_logs(const ctx_ptr& ctx, caf::event_based_actor* self,
                 http::chunk_stream out, int64_t trial_id, int64_t after,
                 const std::string& task, const log_filter& f) {
  for (const auto& l : ctx->logs->since(trial_id, after)) {
    after = l.id;
    if (f.passes(l) && !out.write_result(log_json(l, task).dump()))
      return;
  }
  if (out.cancelled())
    return;
  state_view v{[trial_id](const state::cluster_state& s, int64_t) {
    auto t = state::find_listed_trial(s, trial_id);
    using ts = state::trial_status;
    bool done = t == nullptr || t->status == ts::completed
                || t->status == ts::errored || t->status == ts::canceled;
    return std::string{done ? "true" : "false"};
  }};
  self->request(ctx->master, ctx->request_timeout, view_atom::value, v)
      .then(
          [ctx, self, out, trial_id, after, task, f](std::string& done) {
            if (done == "true") {
              for (const auto& l : ctx->logs->since(trial_id, after))
                if (f.passes(l) && !out.write_result(log_json(l, task).dump()))
                  return;
              return out.close();
            }
            self->delayed_send(self, ctx->preemption_poll,
                               bridge_job{[ctx, out, trial_id, after, task,
                                           f](caf::event_based_actor* s) {
                                 follow_logs(ctx, s, out, trial_id, after, task,
                                             f);
                               }});
          },
          [out](caf::error& err) {
            out.fail(http::grpc_code_of(err), render(err));
          });
}

void trial_logs_route(const ctx_ptr& ctx, const http_request& req,
                      const responder& res, std::optional<int64_t> id,
                      const std::string& task = {}) {
  if (!id)
    return;
  auto p = page_of(req, res);
  if (!p)
    return;
  std::string why;
  auto f = log_filter_of(req.query, why);
  if (!f)
    return res.send_error(grpc_code::invalid_argument, why);
  auto lines = ctx->logs->since(*id);
  lines.erase(std::remove_if(lines.begin(), lines.end(),
                             [&f](const log_line& l) { return !f->passes(l); }),
              lines.end());
  bool desc = req.query.get("orderBy").value_or("") == "ORDER_BY_DESC";
  if (desc)
    std::reverse(lines.begin(), lines.end());
  if (p->limit > 0 && lines.size() > static_cast<size_t>(p->limit))
    lines.resize(static_cast<size_t>(p->limit));
  bool follow = req.query.get("follow").value_or("false") == "true";
  if (!follow) {
    std::string body;
    for (const auto& l : lines)
      body += http::result_line(log_json(l, task).dump()) + "\n";
    return res.send(http::http_response::json(200, std::move(body)));
  }
  auto out = res.stream();
  int64_t after = 0;
  for (const auto& l : lines) {
    if (!out.write_result(log_json(l, task).dump()))
      return;
    after = std::max(after, l.id);
  }
  if (desc) // a tail that follows continues after the newest line
    after = lines.empty() ? 0 : lines.front().id;
  post(ctx->bridge,
       [ctx, out, id = *id, after, task, f = *f](caf::event_based_actor* self) {
         follow_logs(ctx, self, out, id, after, task, f);
       });
}

} // namespace

void kill_trial(const ctx_ptr& ctx, const http_request& req,
                const responder& res) {
  auto id = id_param(req, res, "trial_id");
  if (!id)
    return;
  command_and_answer(ctx, res, trial_kill{*id});
}

namespace {

/// POST /api/v1/agents/{agent_id}/enable and .../disable (body
/// {"drain": bool}): admin rows of api/cluster_routes.cpp.
void set_agent_enabled(const ctx_ptr& ctx, const http_request& req,
                       const responder& res, bool enabled) {
  auto body = json_body(req, res);
  if (!body)
    return;
  if (ctx->nodes)
    return set_node_enabled(ctx, req.param("agent_id"), res, enabled);
  bool drain = !enabled && get_field_or(*body, "drain", false);
  auto id = req.param("agent_id");
  send_command(ctx, res, agent_enable{id, enabled, drain},
               [ctx, res, id, enabled, drain](caf::event_based_actor*, json) {
                 log::info() << "agent " << id << " "
                             << (enabled ? "enabled"
                                 : drain ? "disabled, draining"
                                         : "disabled");
                 send_written(ctx, res, "{}");
               });
}

/// The slot_id path parameter (slots count from 0), or answers 400.
std::optional<int64_t> slot_param(const http_request& req,
                                  const responder& res) {
  auto text = req.param("slot_id");
  auto slot = text == "0" ? std::optional<int64_t>{0} : positive_id(text);
  if (!slot)
    res.send_error(grpc_code::invalid_argument,
                   "slotId: not a slot number: '"
                       + util::fit_text(text, {32, false, true}) + "'");
  return slot;
}

std::string agent_missing(const std::string& id) {
  return "agent '" + util::fit_text(id, {255, false, true}) + "' not found";
}

/// Agent `id` (under Kubernetes: node `id`) as GET /api/v1/agents shows
/// it, rendered on a state; null when there is none.
std::function<json(const state::cluster_state&)>
agent_view(const ctx_ptr& ctx, const std::string& id) {
  if (!ctx->nodes)
    return [id](const state::cluster_state& s) {
      auto a = s.agents.find(id);
      return a == s.agents.end() ? json{} : agent_json(s, a->second);
    };
  auto nodes = ctx->nodes->list();
  auto n = std::find_if(nodes.begin(), nodes.end(),
                        [&](const node_agent_info& x) { return x.id == id; });
  if (n == nodes.end())
    return [](const state::cluster_state&) { return json{}; };
  return [node = *n](const state::cluster_state& s) {
    return node_agent_json(s, node);
  };
}

} // namespace

/// GET /api/v1/agents/{agent_id}/slots: {"slots": [...]}, ordered by id
/// as text, as upstream orders them.
void get_slots(const ctx_ptr& ctx, const http_request& req,
               const responder& res) {
  auto id = req.param("agent_id");
  answer_view(
      ctx, req, res,
      [view = agent_view(ctx, id)](const state::cluster_state& s, int64_t) {
        auto a = view(s);
        if (a.is_null())
          return json{};
        std::vector<json> slots;
        for (const auto& [slot_id, slot] : a["slots"].items())
          slots.push_back(slot);
        std::sort(slots.begin(), slots.end(), [](const json& x, const json& y) {
          return x.value("id", "") < y.value("id", "");
        });
        return json{{"slots", slots}};
      },
      agent_missing(id));
}

/// GET /api/v1/agents/{agent_id}/slots/{slot_id}: {"slot": ...}; 404
/// naming the agent or the slot that is not there.
void get_slot(const ctx_ptr& ctx, const http_request& req,
              const responder& res) {
  auto slot = slot_param(req, res);
  if (!slot)
    return;
  auto id = req.param("agent_id");
  auto key = std::to_string(*slot);
  // The view answers the slot, or the 404's message as a string.
  render_fn fn = [view = agent_view(ctx, id), id,
                  key](const state::cluster_state& s, int64_t) {
    auto a = view(s);
    if (a.is_null())
      return json(agent_missing(id));
    auto found = a["slots"].find(key);
    if (found == a["slots"].end())
      return json("slot " + key + " of " + agent_missing(id));
    return json{{"slot", *found}};
  };
  post(ctx->bridge, [ctx, res, fn](caf::event_based_actor* self) {
    ask_view(ctx, self, fn, res, [res](json j) {
      if (j.is_string())
        return res.send_error(grpc_code::not_found, j.get<std::string>());
      res.send_json(j.dump());
    });
  });
}

namespace {

/// POST /api/v1/agents/{agent_id}/slots/{slot_id}/enable and .../disable
/// (body {"drain": bool}): admin rows of api/cluster_routes.cpp. Answers
/// {"slot": ...} as the agents list shows it.
void set_slot_enabled(const ctx_ptr& ctx, const http_request& req,
                      const responder& res, bool enabled) {
  // Slots count from 0: "0" is a slot, as is any id positive_id takes.
  if (ctx->nodes)
    return res.send_error(grpc_code::invalid_argument,
                          "agentId: the slots of a Kubernetes node are not "
                          "disabled one by one; disable the node");
  auto slot = slot_param(req, res);
  if (!slot)
    return;
  auto body = json_body(req, res);
  if (!body)
    return;
  bool drain = !enabled && get_field_or(*body, "drain", false);
  post(ctx->bridge, [ctx, res, id = req.param("agent_id"), slot = *slot,
                     enabled, drain](caf::event_based_actor* self) {
    self->request(ctx->master, ctx->request_timeout,
                  command{slot_enable{id, slot, enabled, drain}})
        .then(
            [ctx, res, id, slot, enabled, self](const std::string&) {
              log::info() << "slot " << slot << " of agent " << id << " "
                          << (enabled ? "enabled" : "disabled");
              ask_view(
                  ctx, self,
                  [id, slot](const state::cluster_state& s, int64_t) {
                    auto a = s.agents.find(id);
                    if (a == s.agents.end())
                      return json{};
                    return json{
                        {"slot",
                         agent_json(s,
                                    a->second)["slots"][std::to_string(slot)]}};
                  },
                  res,
                  [ctx, res](json j) { send_written(ctx, res, j.dump()); });
            },
            [res](caf::error& err) { res.send(http::error_response(err)); });
  });
}

} // namespace

void experiment_checkpoints(const ctx_ptr& ctx, const http_request& req,
                            const responder& res) {
  answer_checkpoints(ctx, req, res, "id", "experiment",
                     &experiment_checkpoints_response);
}

void list_experiments(const ctx_ptr& ctx, const http_request& req,
                      const responder& res) {
  auto p = page_of(req, res);
  if (!p)
    return;
  // Filters and orders beyond the CLI's: api/experiment_query.hpp.
  auto q = experiment_query_of(req, res);
  if (!q)
    return;
  if (!q->cli_list())
    return answer_experiments_query(ctx, req, res, *q, *p);
  experiment_filter f{q->users, q->archived};
  if (ctx->reads)
    return answer_coded_read(
        ctx, req, res,
        [f, p = *p](const read::read_view& v, body_coding coding) {
          return experiments_page_text(v, f, p, coding);
        });
  answer_view(
      ctx, req, res,
      [f, p = *p](const state::cluster_state& s, int64_t) {
        return experiments_page(s, f, p);
      },
      "");
}

void get_trial(const ctx_ptr& ctx, const http_request& req,
               const responder& res) {
  auto id = id_param(req, res, "trial_id");
  if (!id)
    return;
  // The latest progress the trial reported (kept in memory, beside the
  // state) joins the state's view of it.
  post(ctx->bridge, [ctx, res, id = *id](caf::event_based_actor* self) {
    ask_view(
        ctx, self,
        [id](const state::cluster_state& s, int64_t) {
          return trial_response(s, id);
        },
        res,
        [ctx, res, id](json j) {
          if (j.is_null()) {
            res.send_error(grpc_code::not_found,
                           "trial " + std::to_string(id) + " not found");
            return;
          }
          if (auto p = ctx->progress->get(id))
            j["trial"]["progress"] = *p;
          res.send_json(j.dump());
        });
  });
}

void get_trial_logs(const ctx_ptr& ctx, const http_request& req,
                    const responder& res) {
  trial_logs_route(ctx, req, res, id_param(req, res, "trial_id"));
}

// The values the logs' filters can take: one result line (with follow
// too: the CLI and SDK read the first).
void get_trial_log_fields(const ctx_ptr& ctx, const http_request& req,
                          const responder& res) {
  if (auto id = id_param(req, res, "trial_id"))
    res.send(http::http_response::json(
        200,
        http::result_line(log_fields(ctx->logs->since(*id)).dump()) + "\n"));
}

void get_trial_checkpoints(const ctx_ptr& ctx, const http_request& req,
                           const responder& res) {
  answer_checkpoints(ctx, req, res, "trial_id", "trial",
                     &trial_checkpoints_response);
}

void get_tasks(const ctx_ptr& ctx, const http_request& req,
               const responder& res) {
  answer_view(
      ctx, req, res,
      [](const state::cluster_state& s, int64_t) { return tasks_response(s); },
      "");
}

// `det task logs`: a trial's task id names the trial.
void get_task_logs(const ctx_ptr& ctx, const http_request& req,
                   const responder& res) {
  auto id = state::trial_of_task_id(req.param("task_id"));
  // Not a trial's: a command's, notebook's ... (api_tasks.cpp).
  if (!id)
    if (auto task = task_id_text(req.param("task_id")))
      return task_logs_route(ctx, req, res, *task);
  if (!id)
    res.send_error(grpc_code::not_found,
                   "task " + req.param("task_id").substr(0, 64) + " not found");
  trial_logs_route(ctx, req, res, id, req.param("task_id"));
}

void get_task_log_fields(const ctx_ptr& ctx, const http_request& req,
                         const responder& res) {
  // A trial's task: its lines; another task's: its own.
  auto id = state::trial_of_task_id(req.param("task_id"));
  nlohmann::json fields;
  if (id) {
    fields = log_fields(ctx->logs->since(*id));
    fields["allocationIds"] = nlohmann::json::array(); // no filter
  } else if (auto task = task_id_text(req.param("task_id"))) {
    fields = task_log_fields(ctx->task_log_book->since(*task), *task + ".1");
  } else {
    fields = log_fields({});
    fields["allocationIds"] = nlohmann::json::array();
  }
  res.send(
      http::http_response::json(200, http::result_line(fields.dump()) + "\n"));
}

void get_agents(const ctx_ptr& ctx, const http_request& req,
                const responder& res) {
  auto p = page_of(req, res);
  if (!p)
    return;
  if (ctx->nodes)
    return node_agents_route(ctx, req, res, *p);
  if (ctx->reads)
    return answer_coded_read(
        ctx, req, res, [p = *p](const read::read_view& v, body_coding coding) {
          return agents_page_text(v, p, coding);
        });
  answer_view(
      ctx, req, res,
      [p = *p](const state::cluster_state& s, int64_t) {
        return agents_response(s, p);
      },
      "");
}

void get_agent(const ctx_ptr& ctx, const http_request& req,
               const responder& res) {
  auto id = req.param("agent_id");
  if (ctx->nodes)
    return node_agent_route(ctx, req, res, id);
  answer_view(
      ctx, req, res,
      [id](const state::cluster_state& s, int64_t) {
        auto a = s.agents.find(id);
        return a == s.agents.end() ? json{}
                                   : json{{"agent", agent_json(s, a->second)}};
      },
      "agent '" + util::fit_text(id, {255, false, true}) + "' not found");
}

void enable_agent(const ctx_ptr& ctx, const http_request& req,
                  const responder& res) {
  set_agent_enabled(ctx, req, res, true);
}

void disable_agent(const ctx_ptr& ctx, const http_request& req,
                   const responder& res) {
  set_agent_enabled(ctx, req, res, false);
}

void enable_slot(const ctx_ptr& ctx, const http_request& req,
                 const responder& res) {
  set_slot_enabled(ctx, req, res, true);
}

void disable_slot(const ctx_ptr& ctx, const http_request& req,
                  const responder& res) {
  set_slot_enabled(ctx, req, res, false);
}

void get_master_config(const ctx_ptr& ctx, const http_request&,
                       const responder& res) {
  auto config = conf::redacted_config(*ctx->config);
  // The level as it is now: `det master config set --log.level` changes it
  // at run time.
  static const char* const names[] = {"trace", "debug", "info",
                                      "warn",  "error", "critical"};
  config["log"]["level"] = names[static_cast<int>(log::current_level())];
  res.send_json(json{{"config", std::move(config)}}.dump());
}

} // namespace det::api
