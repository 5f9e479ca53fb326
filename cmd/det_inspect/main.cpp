// det-inspect: the operator's CLI. Shows pools, agents, instances,
// experiments, trials, checkpoints, the event log and past states, from the
// master's API or (with --db) from the event log itself.
//
// Exit status: 0 on success, 1 when the master or database fails or refuses
// (the reason on stderr), 2 on bad arguments.

#include "conf/env_overrides.hpp"
#include "conf/redact.hpp"
#include "inspect/print.hpp"
#include "inspect/source.hpp"
#include "messages/errc.hpp"
#include "net/http_client.hpp"
#include "util/cli.hpp"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

using namespace det;
using nlohmann::json;

namespace {

const char* description =
    "Shows the cluster from the master's API, or (--db) from the event log "
    "itself when the master is down.\n"
    "\n"
    "Commands:\n"
    "  pools | agents | instances | experiments   one table each\n"
    "  trials [--experiment ID] | checkpoints [--experiment ID]\n"
    "  events [--from POS] [--to POS] [--stream ID] [--type NAME]\n"
    "         [--limit N] [--follow]    the event log (default: the last 20)\n"
    "  state [--at POS] [VIEW]          the state after event POS (default:\n"
    "                                   now): a summary, or VIEW (pools, ...)";

// A bad combination found after parsing: one line, exit 2.
[[noreturn]] void bad_args(const std::string& why) {
  std::cerr << "det-inspect: " << why << "\n";
  std::exit(2);
}

[[noreturn]] void fail(const caf::error& err) {
  std::cerr << "det-inspect: " << render(err) << "\n";
  std::exit(1);
}

struct args {
  std::string command;
  std::vector<std::string> positional;
  bool json = false;
  bool follow = false;
  std::optional<int64_t> experiment;
  std::optional<int64_t> at;
  inspection::event_filter filter;
  bool limit_given = false;
  int64_t interval_ms = 500;
  std::string master;
  std::string db;
  inspect_cli::api_options api;
};

args parse(int argc, char** argv) {
  args a;
  CLI::App app{description, "det-inspect"};
  app.add_option("command", a.command,
                 "pools, agents, instances, experiments, trials, "
                 "checkpoints, events or state")
      ->type_name("COMMAND");
  app.add_option("args", a.positional, "state: the VIEW to show")
      ->type_name("ARG");
  auto* master = app.add_option("--master", a.master,
                                "the master (default $DET_MASTER or "
                                "http://127.0.0.1:8080)")
                     ->type_name("URL");
  app.add_option("--db", a.db,
                 "read the PostgreSQL event log instead (master down); also "
                 "$DET_DB_URL when --master is not given")
      ->type_name("URL")
      ->excludes(master);
  app.add_flag("--json", a.json,
               "JSON instead of tables (--follow: one event per line)");
  app.add_option("--token", a.api.token, "bearer token")
      ->type_name("T")
      ->envname("DET_TOKEN");
  app.add_option("--user", a.api.user,
                 "log in first as U (POST /api/v1/auth/login)")
      ->type_name("U");
  app.add_option("--password", a.api.password, "the password of --user")
      ->type_name("P");
  auto* follow =
      app.add_flag("-f,--follow", a.follow, "events: keep printing new events");
  app.add_option("--experiment", a.experiment,
                 "trials, checkpoints: only this experiment's")
      ->type_name("ID")
      ->check(cli::at_least(1));
  app.add_option("--at", a.at, "state: after this position")
      ->type_name("POS")
      ->check(cli::at_least(0));
  app.add_option("--from", a.filter.from, "events: from this position")
      ->type_name("POS")
      ->check(cli::at_least(1));
  app.add_option("--to", a.filter.to, "events: up to this position")
      ->type_name("POS")
      ->check(cli::at_least(0))
      ->excludes(follow);
  app.add_option("--stream", a.filter.stream, "events: only this stream")
      ->type_name("ID");
  app.add_option("--type", a.filter.type, "events: only this type")
      ->type_name("NAME");
  auto* limit = app.add_option("--limit", a.filter.limit,
                               "events: at most N (default 20, or 1000 with "
                               "--from)")
                    ->type_name("N")
                    ->check(cli::at_least(1));
  app.add_option("--interval", a.interval_ms,
                 "--follow polling period in ms (default 500)")
      ->type_name("MS")
      ->check(cli::at_least(10));
  if (auto code =
          cli::parse_or_exit_code(app, argc, argv, std::cout, std::cerr))
    std::exit(*code);
  a.limit_given = limit->count() > 0;
  if (a.command.empty())
    bad_args("a command is required");
  if (!a.limit_given)
    a.filter.limit = a.filter.from ? 1000 : 20;
  if (a.master.empty() && a.db.empty()) {
    auto env = conf::read_inspect_env(conf::process_env());
    if (!env.master.empty())
      a.master = env.master;
    else if (!env.db_url.empty())
      a.db = env.db_url;
    else
      a.master = "http://127.0.0.1:8080";
  }
  a.api.master_url = a.master;
  if (a.api.user && !a.db.empty())
    bad_args("--user logs in to a master; it does not apply with --db");
  return a;
}

json filter_experiment(json view, const std::string& name,
                       std::optional<int64_t> experiment) {
  if (!experiment)
    return view;
  json kept = json::array();
  for (auto& r : view[name])
    if (r.value("experiment_id", int64_t{0}) == *experiment)
      kept.push_back(std::move(r));
  view[name] = std::move(kept);
  return view;
}

int run_view(inspect_cli::source& src, const args& a, inspection::view_kind k) {
  if (!a.positional.empty())
    bad_args(a.command + ": unexpected argument '" + a.positional[0] + "'");
  auto v = src.view(k);
  if (!v)
    fail(v.error());
  auto shown = filter_experiment(std::move(*v), a.command, a.experiment);
  if (a.json)
    std::cout << shown.dump() << "\n";
  else
    std::cout << inspect_cli::view_text(k, shown);
  return 0;
}

int run_events(inspect_cli::source& src, const args& a) {
  auto f = a.filter;
  auto page = src.events(f);
  if (!page)
    fail(page.error());
  // Password and token hashes are never shown, from the master or the log.
  *page = conf::redact(*page);
  auto print = [&](const json& events, bool first) {
    if (a.json && a.follow) {
      for (const auto& e : events)
        std::cout << e.dump() << "\n";
    } else if (!events.empty() || first) {
      std::cout << inspect_cli::events_text(events, first);
    }
    std::cout.flush();
  };
  if (a.json && !a.follow) {
    std::cout << page->dump() << "\n";
    return 0;
  }
  print((*page)["events"], true);
  if (!a.follow)
    return 0;
  f.to.reset();
  f.limit = 1000;
  for (;;) {
    int64_t cursor = (*page)["last_position"].get<int64_t>();
    for (const auto& e : (*page)["events"])
      cursor = std::max(cursor, e["position"].get<int64_t>());
    if ((*page).value("truncated", false) && f.from)
      cursor = (*page)["events"].back()["position"].get<int64_t>();
    f.from = cursor + 1;
    std::this_thread::sleep_for(std::chrono::milliseconds{a.interval_ms});
    page = src.events(f);
    if (!page)
      fail(page.error());
    *page = conf::redact(*page);
    print((*page)["events"], false);
  }
}

int run_state(inspect_cli::source& src, const args& a) {
  if (a.positional.size() > 1)
    bad_args("state: unexpected argument '" + a.positional[1] + "'");
  std::optional<inspection::view_kind> k;
  if (!a.positional.empty()) {
    k = inspection::view_kind_from(a.positional[0]);
    if (!k)
      bad_args("state: no view '" + a.positional[0]
               + "'; known: " + inspection::view_kind_names());
  }
  auto st = src.state(a.at);
  if (!st)
    fail(st.error());
  if (k) {
    auto v = inspection::view(*st, *k);
    if (a.json)
      std::cout << v.dump() << "\n";
    else
      std::cout << inspect_cli::view_text(*k, v);
  } else if (a.json) {
    std::cout << conf::redact(state::to_snapshot(*st)).dump() << "\n";
  } else {
    std::cout << inspect_cli::summary_text(inspection::summary(*st));
  }
  return 0;
}

// The master's API over libcurl (net/http_client), never
// through a proxy: the master is usually local.
inspect_cli::http_transport curl_transport() {
  return
      [http = net::make_curl_http_client()](const inspect_cli::http_exchange& x)
          -> caf::expected<inspect_cli::http_answer> {
        net::http_request req;
        req.method = x.method;
        req.url = x.url;
        req.body = x.body;
        req.no_proxy = true;
        for (const auto& [name, value] : x.headers)
          req.headers.emplace_back(name, value);
        auto res = http->send(req);
        if (!res)
          return std::move(res.error());
        return inspect_cli::http_answer{res->status, std::move(res->body)};
      };
}

} // namespace

int main(int argc, char** argv) {
  auto a = parse(argc, argv);
  auto view = inspection::view_kind_from(a.command);
  if (!view && a.command != "events" && a.command != "state")
    bad_args("unknown command '" + a.command + "'");
  auto src = a.db.empty()
                 ? inspect_cli::make_api_source(a.api, curl_transport())
                 : inspect_cli::make_db_source(a.db);
  if (!src)
    fail(src.error());
  if (view)
    return run_view(**src, a, *view);
  if (a.command == "events")
    return run_events(**src, a);
  return run_state(**src, a);
}
