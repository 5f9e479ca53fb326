// HTTP request handling as det-master runs it, minus the socket: the raw
// bytes of one connection are read the way a server session reads them
// (http::read_request: Beast's parser, the header limit, the route's body
// limit from api::request_body_limit, the 413/431/400 refusals), and each
// request read (pipelined ones too, at most four) is dispatched through the
// master's own router (api::add_master_routes: URL and query decoding, the
// authentication guard, every REST handler) to a real master actor over an
// in-memory event log, the API bridge and a read model, as the route tests
// do. No PostgreSQL, no network.
//
// The cluster the requests meet: users `admin` and `determined` (blank
// passwords) and `alice` (not an admin), experiment 1 whose trial 1 runs as
// allocation 1.1 on agent a1. Inputs may name the live bearer tokens with
// placeholders, replaced before parsing: "$ADMIN", "$USER" (alice) and
// "$TRIAL" (allocation 1.1's token).
//
// What counts as a bug besides a crash or a sanitizer report:
//   - a 500: a handler threw, or let its responder go unanswered;
//   - no answer 10 s after the client hung up (a connection held forever).
// A long poll that has not answered after 200 ms is told the client left
// (client_gone), as a session does when the peer closes.

#include "actors/event_writer.hpp"
#include "actors/experiment_creation_actor.hpp"
#include "actors/master_actor.hpp"
#include "actors/model_def_actor.hpp"
#include "api/api_auth.hpp"
#include "api/durable_feed.hpp"
#include "api/master_api.hpp"
#include "http/request_reader.hpp"
#include "read/read_model.hpp"
#include "store/memory_event_store.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/send.hpp>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

using namespace det;
using json = nlohmann::json;
using namespace std::chrono_literals;

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_http_request: %s\n", what.c_str());
  std::abort();
}

/// What a session is to a responder: records the answer, and reports the
/// client gone once told to.
class capture_sink final : public http::detail::reply_sink {
public:
  void send_response(http::http_response res) override {
    std::lock_guard<std::mutex> guard{mu_};
    status_ = res.status;
    body_ = std::string{res.body_text()}; // owned or shared
    done_ = true;
    cv_.notify_all();
  }
  void
  start_stream(int status, http::header_map,
               std::shared_ptr<http::detail::stream_flags> flags) override {
    std::lock_guard<std::mutex> guard{mu_};
    status_ = status;
    flags_ = std::move(flags);
    if (gone_)
      flags_->cancel();
  }
  void stream_data(std::string data) override {
    std::lock_guard<std::mutex> guard{mu_};
    if (flags_)
      flags_->queued_bytes -=
          std::min(flags_->queued_bytes.load(), data.size());
  }
  void end_stream() override {
    std::lock_guard<std::mutex> guard{mu_};
    done_ = true;
    cv_.notify_all();
  }
  bool client_gone() const override { return gone_.load(); }

  /// Waits for the answer; false on timeout.
  bool wait(std::chrono::milliseconds d) {
    std::unique_lock<std::mutex> lock{mu_};
    return cv_.wait_for(lock, d, [this] { return done_; });
  }
  void hang_up() {
    std::lock_guard<std::mutex> guard{mu_};
    gone_ = true;
    if (flags_)
      flags_->cancel();
  }
  int status() {
    std::lock_guard<std::mutex> guard{mu_};
    return status_;
  }
  std::string body() {
    std::lock_guard<std::mutex> guard{mu_};
    return body_;
  }

private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::atomic<bool> gone_{false};
  int status_ = 0;
  std::string body_;
  std::shared_ptr<http::detail::stream_flags> flags_;
};

caf::behavior order_sink(caf::event_based_actor*, int) {
  return {
      [](start_atom, const start_order&) {},
      [](preempt_atom, const std::string&, const std::string&) {},
      [](kill_atom, const std::string&) {},
  };
}

const char* experiment_config = "name: fuzz\nentrypoint: python3 train.py\n"
                                "searcher:\n  name: single\n  metric: loss\n"
                                "  max_length:\n    batches: 1000000\n";

struct cluster {
  memory_event_store log;
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  std::shared_ptr<api::api_context> ctx = std::make_shared<api::api_context>();
  http::router routes;
  http::server_config server;
  std::string admin_token, user_token, trial_token;
  caf::actor agent;

  cluster() {
    sys = std::make_unique<caf::actor_system>(cfg);
    auto writer = spawn_event_writer(*sys, log, writer_mode::synchronous);
    core_config cc;
    cc.cluster_id = "fuzz";
    pool_configured p;
    p.pool = "default";
    cc.pools.push_back(p);
    master_options mo;
    ctx->reads = api::follow_master(mo, {});
    ctx->master = spawn_master(*sys, writer, {}, cc, mo);
    ctx->bridge = api::spawn_api_bridge(*sys);
    ctx->model_defs =
        spawn_model_def_actor(*sys, std::make_unique<memory_model_def_store>());
    ctx->logs = std::make_shared<api::trial_logs>();
    ctx->tokens = std::make_shared<api::session_tokens>("fuzz-secret");
    ctx->request_timeout = 5s;
    ctx->experiment_creation = spawn_experiment_creation_actor(
        *sys, ctx->master, ctx->model_defs, ctx->request_timeout);
    ctx->preemption_poll = 20ms;
    api::add_master_routes(routes, ctx);
    if (auto err = routes.error())
      fail("routes: " + caf::to_string(err));
    // The limits det-master's main() gives its server.
    auto model_bytes =
        static_cast<size_t>(ctx->config->max_model_definition_bytes);
    server.body_limit = api::request_body_limit("POST", "/api/v1/experiments",
                                                true, model_bytes);
    server.body_limit_for = [model_bytes](std::string_view method,
                                          std::string_view path,
                                          bool authorized) {
      return api::request_body_limit(method, path, authorized, model_bytes);
    };
    if (auto err = api::ensure_default_users(*sys, *ctx, ""); !err.empty())
      fail("default users: " + err);
    admin_token = login("admin");
    must("POST", "/api/v1/users",
         R"({"user":{"username":"alice","admin":false},"password":""})",
         admin_token);
    user_token = login("alice");
    auto body =
        json{{"config", experiment_config},
             {"modelDefinition", json::array({{{"path", "train.py"},
                                               {"type", 48},
                                               {"content", "cHJpbnQoMSkK"},
                                               {"mode", 420}}})},
             {"activate", true}};
    must("POST", "/api/v1/experiments", body.dump(), admin_token);
    agent = sys->spawn(order_sink, 0);
    caf::anon_send(ctx->master, connect_atom::value,
                   agent_hello{"a1", "default", 1, "cpu", "", {}, {}}, agent);
    trial_token = ctx->tokens->token_for("1.1");
    wait_for_allocation("1.1");
  }

  std::string login(const std::string& name) {
    auto r = must("POST", "/api/v1/auth/login",
                  json{{"username", name}, {"password", ""}}.dump(), "");
    return json::parse(r).value("token", "");
  }

  std::string must(const std::string& method, const std::string& path,
                   const std::string& body, const std::string& token) {
    http::http_request req;
    req.method = method;
    req.target = path;
    req.path = path;
    req.body = body;
    if (!token.empty())
      req.headers.set("Authorization", "Bearer " + token);
    auto sink = std::make_shared<capture_sink>();
    routes.dispatch(std::move(req), http::responder{sink});
    if (!sink->wait(30s) || sink->status() != 200)
      fail("setup: " + method + " " + path + " -> "
           + std::to_string(sink->status()) + " " + sink->body());
    return sink->body();
  }

  void wait_for_allocation(const std::string& id) {
    auto deadline = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < deadline) {
      auto placed = std::make_shared<std::promise<bool>>();
      auto answer = placed->get_future();
      ctx->reads->read(
          0, deadline,
          [placed, id](const read::read_view& v) {
            placed->set_value(v.state.allocations.count(id) != 0);
          },
          [placed](int64_t, const std::string&) { placed->set_value(false); });
      if (answer.get())
        return;
      std::this_thread::sleep_for(10ms);
    }
    fail("setup: trial 1 was not placed within 30 s");
  }

  std::string with_tokens(std::string text) const {
    for (auto [name, token] :
         {std::pair{"$ADMIN", &admin_token}, std::pair{"$USER", &user_token},
          std::pair{"$TRIAL", &trial_token}}) {
      std::string_view n{name};
      for (auto at = text.find(n); at != std::string::npos;
           at = text.find(n, at + token->size()))
        text.replace(at, n.size(), *token);
    }
    return text;
  }

  void handle(http::http_request req) {
    auto sink = std::make_shared<capture_sink>();
    auto what = req.method + " " + req.target;
    routes.dispatch(std::move(req), http::responder{sink});
    if (!sink->wait(200ms)) {
      sink->hang_up();
      if (!sink->wait(10s))
        fail("no answer 10 s after the client left: " + what);
    }
    if (sink->status() == 500)
      fail("500 for " + what + ": " + sink->body());
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static cluster* c = new cluster; // lives until exit: actors hold it
  auto text =
      c->with_tokens(std::string{reinterpret_cast<const char*>(data), size});
  std::string_view rest{text};
  for (int i = 0; i < 4 && !rest.empty(); ++i) {
    auto r = http::read_request(rest, c->server);
    if (r.what != http::read_result::kind::request)
      break;
    rest.remove_prefix(r.consumed);
    if (!r.upgrade)
      c->handle(std::move(r.request));
    if (!r.keep_alive)
      break;
  }
  return 0;
}
