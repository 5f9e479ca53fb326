// Tasks' logs (api/task_logs.hpp) through their routes: GET
// /api/v1/tasks/{task_id}/logs for a task's UUID, followed until it has
// terminated; and the master's own lines about a task, written as its
// events become durable, in upstream's words.

#include "api/api_bridge.hpp"
#include "api/api_tasks.hpp"
#include "api/durable_feed.hpp"
#include "api/log_filter.hpp"
#include "api/route_util.hpp"
#include "api/views.hpp"
#include "api/views_cluster.hpp"
#include "http/grpc_error.hpp"
#include "read/read_model.hpp"

#include <caf/event_based_actor.hpp>

#include <algorithm>
#include <map>
#include <memory>

namespace det::api {

using json = nlohmann::json;

namespace {

using http::grpc_code;
using http::responder;

/// A task's log line as upstream's TaskLogsResponse carries it.
json task_log_json(const task_log_line& l, const std::string& task_id) {
  auto container = l.agent_id.substr(0, 8);
  container.resize(8, ' ');
  auto text = l.text + "\n";
  return {
      {"id", std::to_string(l.id)},
      {"taskId", task_id},
      {"allocationId", task_id + ".1"},
      {"agentId", l.agent_id},
      {"containerId", l.agent_id},
      {"level", "LOG_LEVEL_INFO"},
      {"stdtype", "stdout"},
      {"source", l.source.empty() ? "task" : l.source},
      {"message", "[" + rfc3339(l.at_us) + "] " + container + " || " + text},
      {"log", text},
      {"timestamp", rfc3339(l.at_us)}};
}

/// Streams a task's lines after `after` until it has terminated and
/// nothing new arrived, or the client left; looks again every
/// preemption_poll.
void follow_task_logs(const ctx_ptr& ctx, caf::event_based_actor* self,
                      http::chunk_stream out, std::string task_id,
                      int64_t after, log_filter filter) {
  for (const auto& l : ctx->task_log_book->since(task_id, after)) {
    if (filter.passes(l, task_id + ".1")
        && !out.write_result(task_log_json(l, task_id).dump()))
      return;
    after = l.id;
  }
  if (out.cancelled())
    return;
  // Asked of the read model: the master's follower has written its lines
  // about an event before any replica applies it (follow_durable's order),
  // so a task seen terminated there has its exit lines in the book.
  auto finish = [ctx, out, task_id, after, filter](bool done) {
    post(ctx->bridge, [ctx, out, task_id, after, filter,
                       done](caf::event_based_actor* bridge) {
      if (done) {
        for (const auto& l : ctx->task_log_book->since(task_id, after))
          if (filter.passes(l, task_id + ".1")
              && !out.write_result(task_log_json(l, task_id).dump()))
            return;
        return out.close();
      }
      bridge->delayed_send(bridge, ctx->preemption_poll,
                           bridge_job{[ctx, out, task_id, after,
                                       filter](caf::event_based_actor* s) {
                             follow_task_logs(ctx, s, out, task_id, after,
                                              filter);
                           }});
    });
  };
  auto ended = [task_id](const state::cluster_state& s) {
    auto t = s.tasks.find(task_id);
    return t == s.tasks.end()
           || t->second.state == state::task_state::terminated;
  };
  if (!ctx->reads) {
    state_view v{[ended](const state::cluster_state& s, int64_t) {
      return std::string{ended(s) ? "true" : "false"};
    }};
    self->request(ctx->master, ctx->request_timeout, view_atom::value, v)
        .then([finish](std::string& done) { finish(done == "true"); },
              [out](caf::error& err) {
                out.fail(http::grpc_code_of(err), render(err));
              });
    return;
  }
  ctx->reads->read(
      0, deadline_of(ctx),
      [ended, finish](const read::read_view& v) { finish(ended(v.state)); },
      [out](int64_t, const std::string& why) {
        out.fail(grpc_code::unavailable, why);
      });
}

} // namespace

void task_logs_route(const ctx_ptr& ctx, const http::http_request& req,
                     const responder& res, const std::string& task_id) {
  if (!req.principal.allocation_id.empty())
    return res.send_error(grpc_code::permission_denied,
                          "a trial's allocation token reaches no task");
  auto p = page_of(req, res);
  if (!p)
    return;
  bool desc = req.query.get("orderBy").value_or("") == "ORDER_BY_DESC";
  bool follow = req.query.get("follow").value_or("false") == "true";
  std::string why;
  auto filter = log_filter_of(req.query, why);
  if (!filter)
    return res.send_error(grpc_code::invalid_argument, why);
  // Known to the state (or at least to the log book): else 404.
  post(ctx->bridge, [=, page = *p,
                     filter = *filter](caf::event_based_actor* self) {
    ask_view(
        ctx, self,
        [task_id](const state::cluster_state& s, int64_t) -> json {
          return s.tasks.count(task_id) != 0 ? json(true) : json(nullptr);
        },
        res,
        [=](json known) {
          auto all = ctx->task_log_book->since(task_id);
          if (known.is_null() && all.empty())
            return res.send_error(grpc_code::not_found,
                                  "task not found: " + task_id);
          std::vector<task_log_line> lines;
          for (auto& l : all)
            if (filter.passes(l, task_id + ".1"))
              lines.push_back(std::move(l));
          if (desc)
            std::reverse(lines.begin(), lines.end());
          if (page.limit > 0 && lines.size() > static_cast<size_t>(page.limit))
            lines.resize(static_cast<size_t>(page.limit));
          if (!follow) {
            std::string body;
            for (const auto& l : lines)
              body +=
                  http::result_line(task_log_json(l, task_id).dump()) + "\n";
            return res.send(http::http_response::json(200, std::move(body)));
          }
          auto out = res.stream();
          int64_t after = 0;
          for (const auto& l : lines) {
            if (!out.write_result(task_log_json(l, task_id).dump()))
              return;
            after = std::max(after, l.id);
          }
          if (desc)
            after = lines.empty() ? 0 : lines.front().id;
          post(ctx->bridge, [=](caf::event_based_actor* s) {
            follow_task_logs(ctx, s, out, task_id, after, filter);
          });
        });
  });
}

} // namespace det::api
