#include "api/task_proxy.hpp"

#include "api/account_records.hpp"
#include "api/api_bridge.hpp"
#include "api/auth_directory.hpp"
#include "api/codec.hpp"
#include "api/route_util.hpp"
#include "api/shell_keys.hpp"
#include "conf/proxy_ports.hpp"
#include "http/grpc_error.hpp"
#include "state/model_tasks.hpp"
#include "util/text.hpp"

#include <caf/event_based_actor.hpp>

#include <atomic>

namespace det::api {

using json = nlohmann::json;

namespace {

using http::grpc_code;
using http::http_response;
using http::proxy_decision;

/// A responder whose answer becomes the proxy's refusal. The decision is
/// made once: whichever of a refusal and `decide` comes first wins (a
/// responder dropped unanswered after a decision answers 500, ignored).
class refusal_sink final : public http::detail::reply_sink {
public:
  explicit refusal_sink(std::function<void(proxy_decision)> done)
      : done_(std::move(done)) {}
  void decide(proxy_decision d) {
    if (!decided_.exchange(true))
      done_(std::move(d));
  }
  void send_response(http_response res) override { decide(std::move(res)); }
  void start_stream(int, http::header_map,
                    std::shared_ptr<http::detail::stream_flags>) override {
    decide(http::error_response(grpc_code::internal, "unexpected stream"));
  }
  void stream_data(std::string) override {}
  void end_stream() override {}
  bool client_gone() const override { return false; }

private:
  std::function<void(proxy_decision)> done_;
  std::atomic<bool> decided_{false};
};

http_response not_found(const std::string& id) {
  return http::error_response(grpc_code::not_found, "service not found: " + id);
}

/// 303 to the login page for a browser's GET, 401 for anything else.
http_response unauthenticated(const http::http_request& req) {
  bool upgrade = req.headers.get("Upgrade").has_value();
  if (req.method == "GET" && !upgrade) {
    http_response r;
    r.status = 303;
    r.headers.set("Location",
                  "/det/login?redirect=" + util::percent_encode(req.target));
    r.headers.set("Content-Type", "text/plain");
    r.body = "see /det/login\n";
    return r;
  }
  return http::error_response(grpc_code::unauthenticated,
                              "authentication required to reach a task");
}

/// The notebook token the request carries: `?token=` or
/// "Authorization: token <t>".
std::string offered_notebook_token(const http::http_request& req) {
  if (auto a = req.headers.get("Authorization");
      a && a->size() > 6 && util::iequals(a->substr(0, 6), "token "))
    return a->substr(6);
  return req.query.get("token").value_or("");
}

} // namespace

std::optional<std::pair<std::string, int32_t>>
proxy_service(const std::string& path) {
  static const std::string prefix = "/proxy/";
  if (path.compare(0, prefix.size(), prefix) != 0)
    return std::nullopt;
  auto rest = path.substr(prefix.size());
  auto service = rest.substr(0, rest.find('/'));
  auto colon = service.find(':');
  auto id = service.substr(0, colon);
  bool ok = !id.empty() && id.size() <= 64
            && id.find_first_not_of("0123456789abcdef-") == std::string::npos;
  if (!ok)
    return std::nullopt;
  if (colon == std::string::npos)
    return std::pair{id, int32_t{0}};
  auto digits = service.substr(colon + 1);
  if (digits.empty() || digits.size() > 5
      || digits.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  auto port = std::stoi(digits);
  if (port < 1 || port > 65535)
    return std::nullopt;
  return std::pair{id, static_cast<int32_t>(port)};
}

std::optional<std::string> proxy_task_id(const std::string& path) {
  auto s = proxy_service(path);
  if (!s)
    return std::nullopt;
  return s->first;
}

task_secrets task_secrets_for(const session_tokens& tokens,
                              const task_start_order& o) {
  task_secrets out;
  out.token = tokens.token_for(o.allocation_id);
  out.user_token = tokens.user_token_for(o.allocation_id);
  if (o.task_type == "NOTEBOOK")
    out.notebook_token = notebook_token(tokens, o.task_id);
  if (o.task_type == "SHELL")
    out.shell_public_key = shell_keys(tokens, o.task_id).public_key;
  return out;
}

std::string notebook_token(const session_tokens& tokens,
                           const std::string& task_id) {
  return tokens.token_for("notebook:" + task_id);
}

std::string cookie_value(const std::string& header, const std::string& name) {
  size_t i = 0;
  while (i < header.size()) {
    auto semi = header.find(';', i);
    if (semi == std::string::npos)
      semi = header.size();
    auto part = header.substr(i, semi - i);
    auto start = part.find_first_not_of(' ');
    if (start != std::string::npos) {
      part = part.substr(start);
      auto eq = part.find('=');
      if (eq != std::string::npos && part.substr(0, eq) == name)
        return part.substr(eq + 1);
    }
    i = semi + 1;
  }
  return {};
}

http::proxy_resolver
task_proxy_resolver(std::shared_ptr<const api_context> ctx) {
  return [ctx](const http::http_request& req,
               std::function<void(proxy_decision)> done) {
    auto service = proxy_service(req.path);
    if (!service)
      return done(not_found(util::fit_text(req.path, {80, false, true})));
    auto id = std::optional<std::string>{service->first};
    // A port of environment.proxy_ports ("<id>:<port>"), or 0: the task's
    // own service.
    auto port = service->second;
    auto now = wall_now_us(*ctx);
    std::optional<user_record> user;
    if (auto t = bearer_token(req.headers.get("Authorization")); !t.empty())
      user = ctx->auth->user_of_token(t, now);
    if (!user)
      if (auto c = req.headers.get("Cookie"))
        if (auto t = cookie_value(*c, "auth"); !t.empty())
          user = ctx->auth->user_of_token(t, now);
    bool by_notebook_token = false;
    if (!user && ctx->tokens && port == 0) {
      auto t = offered_notebook_token(req);
      by_notebook_token =
          !t.empty() && equal_secret(notebook_token(*ctx->tokens, *id), t);
    }
    // A shell's sshd authenticates by its key (as upstream, whose tunnel
    // sends no credentials): a WebSocket upgrade to a ready shell passes
    // whoever asks; so does a port its task declared `unauthenticated`.
    // Nothing else is reachable without credentials, and an anonymous
    // request learns nothing of what exists.
    bool upgrade = req.headers.get("Upgrade").has_value();
    bool anonymous = !user && !by_notebook_token;
    if (anonymous && !upgrade && port == 0)
      return done(unauthenticated(req));
    if (user && !user->active)
      return done(http::error_response(grpc_code::permission_denied,
                                       "user is not active"));
    std::string name = user ? user->username : "";
    bool admin = user && user->admin;
    render_fn view = [id = *id, port, name, admin, by_notebook_token,
                      upgrade](const state::cluster_state& s, int64_t) -> json {
      auto i = s.tasks.find(id);
      if (i == s.tasks.end())
        return nullptr;
      const auto& t = i->second;
      bool owner = !name.empty() && (admin || t.owner == name);
      if (port != 0) {
        // Only a port the task declared, while its process runs; reached
        // where the task reported itself from, else on its agent.
        auto declared = conf::declared_proxy_port(
            t.config.value("environment", json::object()), port);
        if (!declared || !(declared->unauthenticated || owner)
            || t.state != state::task_state::running
            || !state::holds_allocation(t))
          return nullptr;
        return {{"host", t.proxy_host},
                {"agent", t.agent_id},
                {"port", port},
                {"tcp", declared->tcp}};
      }
      bool shell = t.task_type == "SHELL";
      bool may = (shell && upgrade)
                 || (by_notebook_token ? t.task_type == "NOTEBOOK" : owner);
      if (!may || !t.ready || t.proxy_port <= 0 || !state::holds_allocation(t))
        return nullptr;
      return {{"host", t.proxy_host}, {"port", t.proxy_port}, {"tcp", shell}};
    };
    auto sink = std::make_shared<refusal_sink>(done);
    http::responder res{sink};
    auto refusal =
        anonymous
            ? unauthenticated(req)
            : not_found(port == 0 ? *id : *id + ":" + std::to_string(port));
    // Read at the newest published position, not at whatever a replica
    // has applied: a task seen running by any read (or any client) is
    // then reachable, even when this read lands on a replica still being
    // handed the batch that made it so (a proxied request carries no
    // X-Det-Min-Position). task_proxy_test's declared ports case met
    // that window under ASan: 404 for a running task.
    auto at = ctx->reads ? ctx->reads->published_position() : 0;
    post(ctx->bridge, [ctx, view, res, sink, id = *id, refusal,
                       at](caf::event_based_actor* self) {
      // `res` rides along so that it is not dropped unanswered (a 500)
      // before the view comes back.
      ask_view(
          ctx, self, view, res,
          [ctx, sink, res, id, refusal](json j) {
            if (!j.is_object())
              return sink->decide(refusal);
            auto host = j.value("host", "");
            if (host.empty() && ctx->agent_addresses)
              host = ctx->agent_addresses->get(j.value("agent", ""));
            if (host.empty())
              return sink->decide(refusal);
            ctx->idle->record(id, wall_now_us(*ctx));
            sink->decide(http::proxy_target{
                host, static_cast<uint16_t>(j.value("port", 0)), id,
                j.value("tcp", false)});
          },
          at);
    });
  };
}

} // namespace det::api
