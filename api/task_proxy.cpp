#include "api/task_proxy.hpp"

#include "api/account_records.hpp"
#include "api/api_bridge.hpp"
#include "api/auth_directory.hpp"
#include "api/codec.hpp"
#include "api/route_util.hpp"
#include "api/shell_keys.hpp"
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

std::optional<std::string> proxy_task_id(const std::string& path) {
  static const std::string prefix = "/proxy/";
  if (path.compare(0, prefix.size(), prefix) != 0)
    return std::nullopt;
  auto rest = path.substr(prefix.size());
  auto id = rest.substr(0, rest.find('/'));
  bool ok = !id.empty() && id.size() <= 64
            && id.find_first_not_of("0123456789abcdef-") == std::string::npos;
  if (!ok)
    return std::nullopt;
  return id;
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
    auto id = proxy_task_id(req.path);
    if (!id)
      return done(not_found(util::fit_text(req.path, {80, false, true})));
    auto now = wall_now_us(*ctx);
    std::optional<user_record> user;
    if (auto t = bearer_token(req.headers.get("Authorization")); !t.empty())
      user = ctx->auth->user_of_token(t, now);
    if (!user)
      if (auto c = req.headers.get("Cookie"))
        if (auto t = cookie_value(*c, "auth"); !t.empty())
          user = ctx->auth->user_of_token(t, now);
    bool by_notebook_token = false;
    if (!user && ctx->tokens) {
      auto t = offered_notebook_token(req);
      by_notebook_token =
          !t.empty() && equal_secret(notebook_token(*ctx->tokens, *id), t);
    }
    // A shell's sshd authenticates by its key (as upstream, whose tunnel
    // sends no credentials): a WebSocket upgrade to a ready shell passes
    // whoever asks. Nothing else is reachable without credentials, and an
    // anonymous request learns nothing of what exists.
    bool upgrade = req.headers.get("Upgrade").has_value();
    bool anonymous = !user && !by_notebook_token;
    if (anonymous && !upgrade)
      return done(unauthenticated(req));
    if (user && !user->active)
      return done(http::error_response(grpc_code::permission_denied,
                                       "user is not active"));
    std::string name = user ? user->username : "";
    bool admin = user && user->admin;
    render_fn view = [id = *id, name, admin, by_notebook_token,
                      upgrade](const state::cluster_state& s, int64_t) -> json {
      auto i = s.tasks.find(id);
      if (i == s.tasks.end())
        return nullptr;
      const auto& t = i->second;
      bool shell = t.task_type == "SHELL";
      bool may = (shell && upgrade)
                 || (by_notebook_token
                         ? t.task_type == "NOTEBOOK"
                         : (!name.empty() && (admin || t.owner == name)));
      if (!may || !t.ready || t.proxy_port <= 0 || !state::holds_allocation(t))
        return nullptr;
      return {{"host", t.proxy_host}, {"port", t.proxy_port}, {"tcp", shell}};
    };
    auto sink = std::make_shared<refusal_sink>(done);
    http::responder res{sink};
    auto refusal = anonymous ? unauthenticated(req) : not_found(*id);
    post(ctx->bridge, [ctx, view, res, sink, id = *id,
                       refusal](caf::event_based_actor* self) {
      // `res` rides along so that it is not dropped unanswered (a 500)
      // before the view comes back.
      ask_view(ctx, self, view, res, [ctx, sink, res, id, refusal](json j) {
        if (!j.is_object())
          return sink->decide(refusal);
        ctx->idle->record(id, wall_now_us(*ctx));
        sink->decide(http::proxy_target{
            j.value("host", ""), static_cast<uint16_t>(j.value("port", 0)), id,
            j.value("tcp", false)});
      });
    });
  };
}

} // namespace det::api
