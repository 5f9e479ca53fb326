#include "api/agent_ws.hpp"
#include "api/spot_notice.hpp"
#include "api/task_proxy.hpp"
#include "api/task_views.hpp"

#include "actors/agent_actor.hpp"
#include "http/grpc_error.hpp"
#include "messages/agent_protocol.hpp"
#include "messages/errc.hpp"
#include "policy/heartbeat_monitor.hpp"
#include "state/queries.hpp"
#include "util/log.hpp"
#include "util/text.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>

#include <algorithm>
#include <mutex>

namespace det::api {

using json = nlohmann::json;

namespace {

using ws_ctx_ptr = std::shared_ptr<const agent_ws_context>;
using hb_atom = caf::atom_constant<caf::atom("heartbeat")>;

std::string frame(const char* type, json fields = json::object()) {
  fields["v"] = 1;
  fields["type"] = type;
  return fields.dump();
}

/// One socket's conversation. Callbacks of one session run one at a time,
/// but the hello check answers on a CAF thread: hence the lock.
struct session {
  std::mutex mu;
  std::string agent_id;
  agent_actor agent;
  caf::actor conn;
  std::string slot_type = "cpu";
  bool hello_seen = false;
  bool closed = false;
  bool disconnected = false; ///< disconn sent to `agent`
  policy::heartbeat_monitor alive;

  session(std::chrono::milliseconds interval, int missed)
      : alive(interval, missed, policy::heartbeat_monitor::clock::now()) {}

  /// Tells the agent actor once that its agent is gone. Requires mu.
  void disconnect_locked(const std::string& why) {
    if (!agent || disconnected)
      return;
    disconnected = true;
    log::info() << "agent " << agent_id << " disconnected (" << why << ")";
    caf::anon_send(agent, disconn_atom::value, why);
  }
};

/// The agent actor's `connection`: orders -> frames, in the order given
/// (await keeps a start's entrypoint lookup from being overtaken).
caf::behavior connection(caf::event_based_actor* self, ws_ctx_ptr ctx,
                         http::ws_session ws, std::shared_ptr<session> sess) {
  self->delayed_send(self, ctx->heartbeat_interval, hb_atom::value);
  return {
      [self, ctx, ws](start_atom, start_order& o) {
        state_view v{[o](const state::cluster_state& s, int64_t) {
          return start_environment(s, o).dump();
        }};
        self->request(ctx->master, std::chrono::seconds{30}, view_atom::value,
                      v)
            .await(
                [ctx, ws, o](std::string& info) {
                  auto token = ctx->tokens->token_for(o.allocation_id);
                  auto j = nlohmann::json::parse(info, nullptr, false);
                  (void)ws.send(start_frame(o, j, ctx->start, token).dump());
                },
                [ws, o](caf::error& err) {
                  log::error() << "cannot start allocation " << o.allocation_id
                               << ": " << render(err);
                });
      },
      [ctx, ws, sess](start_atom, task_start_order& o) {
        std::string slot_type;
        {
          std::lock_guard<std::mutex> guard{sess->mu};
          slot_type = sess->slot_type;
        }
        (void)ws.send(task_start_frame(o, slot_type, ctx->start,
                                       task_secrets_for(*ctx->tokens, o))
                          .dump());
      },
      [ws](preempt_atom, std::string& alloc, std::string& reason) {
        (void)ws.send(
            frame("preempt", {{"allocation_id", alloc}, {"reason", reason}}));
      },
      [ws](kill_atom, std::string& alloc) {
        (void)ws.send(frame("kill", {{"allocation_id", alloc}}));
      },
      [ws](exitack_atom, std::string& alloc) {
        (void)ws.send(
            frame("exit_ack", {{"allocation_ids", json::array({alloc})}}));
      },
      [self, ctx, ws, s = sess](hb_atom) {
        if (!ws.is_open())
          return;
        {
          std::lock_guard<std::mutex> guard{s->mu};
          auto now = policy::heartbeat_monitor::clock::now();
          if (s->alive.expired(now)) {
            auto silent = std::chrono::duration_cast<std::chrono::milliseconds>(
                s->alive.interval() * s->alive.missed_count(now));
            s->disconnect_locked("missed "
                                 + std::to_string(ctx->missed_heartbeats)
                                 + " heartbeats, silent for at least "
                                 + std::to_string(silent.count()) + " ms");
          }
          if (!s->disconnected) {
            (void)ws.send(frame("heartbeat"));
            self->delayed_send(self, ctx->heartbeat_interval, hb_atom::value);
            return;
          }
        }
        // Outside the lock: closing may run on_close, which takes it.
        ws.close(1001, "missed heartbeats");
        self->quit();
      },
  };
}

void on_hello(const ws_ctx_ptr& context, const std::shared_ptr<session>& s,
              http::ws_session ws, agent_hello hello) {
  auto pool = hello.pool;
  state_view v{[pool](const state::cluster_state& st, int64_t) {
    return std::string{state::find_pool(st, pool) ? "true" : "false"};
  }};
  // A one-shot actor asks the master, so no I/O thread waits.
  // (ctx is passed as an argument: CAF 0.17 spawns argument-less function
  // actors through a null pointer that UBSan reports.)
  context->sys->spawn(
      [s, ws, hello = std::move(hello), v](caf::event_based_actor* self,
                                           ws_ctx_ptr ctx) mutable {
        self->request(ctx->master, std::chrono::seconds{30}, view_atom::value,
                      v)
            .then(
                [ctx, s, ws, hello](std::string& known) mutable {
                  if (known != "true") {
                    log::warn() << "agent " << hello.agent_id
                                << " refused: unknown resource pool '"
                                << hello.pool << "'";
                    (void)ws.send(
                        frame("error", {{"message", "unknown resource pool '"
                                                        + hello.pool + "'"}}));
                    ws.close(1008, "unknown resource pool");
                    return;
                  }
                  std::lock_guard<std::mutex> guard{s->mu};
                  if (s->closed)
                    return;
                  s->conn = ctx->sys->spawn(connection, ctx, ws, s);
                  auto id = hello.agent_id;
                  auto interval_s = std::max<int64_t>(
                      1, std::chrono::duration_cast<std::chrono::seconds>(
                             ctx->heartbeat_interval
                             + std::chrono::milliseconds{999})
                             .count());
                  log::info() << "agent " << id << " connected (pool "
                              << hello.pool << ", " << hello.slots << " slots)";
                  for (const auto& x : hello.exits)
                    log::info() << "agent " << id << " reports the exit of "
                                << x.allocation_id << " (code " << x.exit_code
                                << ") it still holds";
                  if (ctx->addresses)
                    ctx->addresses->set(id, ws.request().remote_address);
                  s->agent = spawn_agent_actor(*ctx->sys, ctx->master,
                                               std::move(hello), s->conn);
                  (void)ws.send(
                      frame("welcome", {{"agent_id", id},
                                        {"heartbeat_interval_s", interval_s},
                                        {"heartbeat_interval_ms",
                                         ctx->heartbeat_interval.count()}}));
                },
                [ws](caf::error& err) {
                  (void)ws.send(frame("error", {{"message", render(err)}}));
                  ws.close(1011, "master unavailable");
                });
      },
      context);
}

agent_hello to_agent_hello(agent::hello_info h) {
  agent_hello out;
  out.agent_id = std::move(h.agent_id);
  out.pool = std::move(h.resource_pool);
  out.slots = static_cast<int32_t>(h.slots); // the decoder bounds it
  out.slot_type = std::move(h.slot_type);
  out.instance_id = std::move(h.instance_id);
  out.running_allocations = std::move(h.running);
  for (auto& x : h.exited)
    out.exits.push_back(
        {std::move(x.allocation_id), x.exit_code, x.exited_at_us});
  return out;
}

void on_frame(const ws_ctx_ptr& ctx, const std::shared_ptr<session>& s,
              http::ws_session ws, const std::string& text) {
  agent::agent_frame f;
  auto err = agent::parse_agent_frame(text, f);
  {
    std::lock_guard<std::mutex> guard{s->mu};
    s->alive.seen(policy::heartbeat_monitor::clock::now());
  }
  agent_hello hello;
  if (!err && f.type == "hello") {
    hello = to_agent_hello(std::move(f.hello));
    err = check_hello(hello);
  }
  if (err && f.type == "hello") {
    (void)ws.send(frame("error", {{"message", render(err)}}));
    return ws.close(1008, "bad hello");
  }
  if (err)
    return (void)ws.send(frame("error", {{"message", render(err)}}));
  const auto& type = f.type;
  if (type == "hello") {
    {
      std::lock_guard<std::mutex> guard{s->mu};
      if (s->hello_seen)
        return (void)ws.send(frame("error", {{"message", "hello twice"}}));
      s->hello_seen = true;
      s->agent_id = hello.agent_id;
      s->slot_type = hello.slot_type;
    }
    return on_hello(ctx, s, ws, std::move(hello));
  }
  if (type == "heartbeat")
    return;
  if (type == "log") {
    auto now = std::chrono::duration_cast<std::chrono::microseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
    std::lock_guard<std::mutex> guard{s->mu};
    // A task's lines (no trial) go to its log by its allocation's task id.
    if (auto dot = f.allocation_id.rfind('.');
        f.trial_id == 0 && dot != std::string::npos && dot > 0) {
      if (ctx->task_log_book)
        ctx->task_log_book->add(f.allocation_id.substr(0, dot), s->agent_id,
                                f.lines, now);
      return;
    }
    ctx->logs->add(f.trial_id, s->agent_id, f.lines, now);
    return;
  }
  if (type == "spot_interruption") {
    std::string id;
    {
      std::lock_guard<std::mutex> guard{s->mu};
      id = s->agent_id;
    }
    if (!id.empty())
      on_spot_interruption(*ctx->sys, ctx->master, id);
    return;
  }
  agent_actor agent;
  {
    std::lock_guard<std::mutex> guard{s->mu};
    agent = s->agent;
  }
  if ((type == "running" || type == "exited") && !agent)
    return (void)ws.send(frame("error", {{"message", "hello first"}}));
  if (type == "running")
    return caf::anon_send(agent, running_atom::value, f.allocation_id);
  if (type == "exited")
    return caf::anon_send(agent, exited_atom::value, f.allocation_id,
                          f.exit_code);
  (void)ws.send(frame("error", {{"message", "unknown type '" + type + "'"}}));
}

} // namespace

caf::error check_hello(const agent_hello& h) {
  // An agent's names become stream names and log lines: one short line.
  const util::text_rules name{255, false, false};
  if (auto why = util::text_problem(h.agent_id, name); !why.empty())
    return make_error(errc::invalid_argument, "hello.agent_id " + why);
  for (auto [field, value] : {std::pair{"hello.resource_pool", &h.pool},
                              std::pair{"hello.slot_type", &h.slot_type},
                              std::pair{"hello.instance_id", &h.instance_id}})
    if (auto why = util::text_problem(*value, {255, false, true}); !why.empty())
      return make_error(errc::invalid_argument, std::string{field} + " " + why);
  if (h.slots < 0 || h.slots > max_agent_slots)
    return make_error(errc::invalid_argument,
                      "hello.slots: " + std::to_string(h.slots)
                          + " is outside [0, " + std::to_string(max_agent_slots)
                          + "]");
  if (h.running_allocations.size() > max_agent_slots)
    return make_error(errc::invalid_argument,
                      "hello.running: more allocations than slots allow");
  for (const auto& a : h.running_allocations)
    if (auto why = util::text_problem(a, name); !why.empty())
      return make_error(errc::invalid_argument, "hello.running[] " + why);
  if (h.exits.size() > max_agent_slots)
    return make_error(errc::invalid_argument,
                      "hello.exited: more exits than slots allow");
  for (const auto& x : h.exits)
    if (auto why = util::text_problem(x.allocation_id, name); !why.empty())
      return make_error(errc::invalid_argument,
                        "hello.exited[].allocation_id " + why);
  return {};
}

http::ws_accept_handler agent_ws_handler(ws_ctx_ptr ctx) {
  return [ctx](http::ws_session ws) {
    auto s = std::make_shared<session>(ctx->heartbeat_interval,
                                       ctx->missed_heartbeats);
    ws.on_message(
        [ctx, s, ws](std::string text) { on_frame(ctx, s, ws, text); });
    ws.on_close([s](http::ws_close_info info) {
      std::lock_guard<std::mutex> guard{s->mu};
      s->closed = true;
      s->disconnect_locked("socket closed (" + std::to_string(info.code) + ")");
      if (s->conn)
        caf::anon_send_exit(s->conn, caf::exit_reason::user_shutdown);
    });
  };
}

http::ws_authorizer agent_ws_authorizer(ws_ctx_ptr ctx) {
  return
      [ctx](
          const http::http_request& req) -> std::optional<http::http_response> {
        if (ctx->agent_token.empty())
          return std::nullopt;
        auto token = bearer_token(req.headers.get("Authorization"));
        if (equal_secret(token, ctx->agent_token))
          return std::nullopt;
        log::warn() << "refused an agent connection from " << req.remote_address
                    << ": missing or wrong agent token";
        return http::error_response(http::grpc_code::unauthenticated,
                                    "missing or wrong agent token");
      };
}

} // namespace det::api
