#include "api/api_metrics.hpp"

#include "api/log_reader.hpp"
#include "api/route_util.hpp"
#include "api/views.hpp"
#include "conf/redact.hpp"
#include "http/grpc_error.hpp"
#include "messages/errc.hpp"
#include "messages/metric_group.hpp"
#include "state/queries.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <tuple>

namespace det::api {

using json = nlohmann::json;

namespace {

using http::grpc_code;
using http::http_request;
using http::responder;

constexpr size_t max_trials = 100;
constexpr int64_t default_points = 1000;
constexpr int64_t max_points = 100000;

/// What a metrics request asks for, checked.
struct metric_query {
  std::vector<int64_t> trials;
  /// Empty: training and validation (time-series only).
  std::string group;
  std::vector<std::string> names;
  /// The metrics metricIds name ("group.name"), by group (time-series:
  /// each group one series, as upstream answers them).
  std::map<std::string, std::vector<std::string>> ids;
  int64_t min_steps = 0;
  int64_t max_steps = INT64_MAX;
  size_t points = default_points;
  /// Only reports after this one (their ids are log positions): a client
  /// that follows a curve asks for what is new.
  int64_t after_id = 0;
};

std::string shown_value(std::string_view v);

std::optional<int64_t> integer(const http_request& req, const responder& res,
                               const char* name, int64_t lo, int64_t hi) {
  auto v = req.query.get(name);
  if (!v)
    return std::nullopt;
  try {
    size_t used = 0;
    auto n = std::stoll(*v, &used);
    if (used == v->size() && n >= lo && n <= hi)
      return n;
  } catch (const std::exception&) {
  }
  res.send_error(grpc_code::invalid_argument,
                 std::string{name} + ": expected an integer in "
                     + std::to_string(lo) + ".." + std::to_string(hi)
                     + ", got '" + shown_value(*v) + "'");
  return int64_t{-1}; // answered
}

/// Metric histories are for users: a trial's allocation token could name
/// other trials in the query (403).
bool user_only(const http_request& req, const responder& res) {
  if (req.principal.allocation_id.empty())
    return true;
  res.send_error(grpc_code::permission_denied,
                 "a trial's allocation token cannot read metric histories");
  return false;
}

/// A client's value fit to quote in an error message.
std::string shown_value(std::string_view v) {
  return util::fit_text(v, util::text_rules{64, false, true});
}

/// Reads and checks the query; answers 400 and returns nothing when bad.
/// `fixed_group`: the route's own group ("" lets the query choose).
std::optional<metric_query> query_of(const http_request& req,
                                     const responder& res,
                                     const std::string& fixed_group,
                                     bool group_required) {
  metric_query q;
  auto ids = req.query.get_all("trialIds");
  if (ids.empty() || ids.size() > max_trials) {
    res.send_error(grpc_code::invalid_argument,
                   "trialIds: between 1 and " + std::to_string(max_trials)
                       + " trial ids are required, got "
                       + std::to_string(ids.size()));
    return std::nullopt;
  }
  for (const auto& text : ids) {
    auto id = positive_id(text);
    if (!id) {
      res.send_error(grpc_code::invalid_argument,
                     "trialIds: not a trial id: '" + shown_value(text) + "'");
      return std::nullopt;
    }
    q.trials.push_back(*id);
  }
  q.group = fixed_group;
  if (q.group.empty()) {
    if (auto g = req.query.get("group"); g && !g->empty())
      q.group = *g;
    else if (auto t = req.query.get("metricType"); t && !t->empty()) {
      if (*t == "METRIC_TYPE_TRAINING")
        q.group = "training";
      else if (*t == "METRIC_TYPE_VALIDATION")
        q.group = "validation";
      else {
        res.send_error(grpc_code::invalid_argument,
                       "metricType: expected METRIC_TYPE_TRAINING or "
                       "METRIC_TYPE_VALIDATION, got '"
                           + shown_value(*t) + "'");
        return std::nullopt;
      }
    }
    if (!q.group.empty()) {
      if (auto why = metric_group_problem(q.group); !why.empty()) {
        res.send_error(grpc_code::invalid_argument, "group " + why);
        return std::nullopt;
      }
    }
    if (group_required && q.group.empty()) {
      res.send_error(grpc_code::invalid_argument, "group: required");
      return std::nullopt;
    }
  }
  for (const auto& n : req.query.get_all("metricNames"))
    q.names.push_back(n);
  // metricIds name a metric with its group: "validation.loss", "abc.x".
  auto metric_ids = req.query.get_all("metricIds");
  if (!metric_ids.empty() && !q.names.empty()) {
    res.send_error(grpc_code::invalid_argument,
                   "metricIds: cannot be given with metricNames");
    return std::nullopt;
  }
  for (const auto& id : metric_ids) {
    auto dot = id.find('.');
    std::string why;
    if (dot == std::string::npos)
      why = "it has no '.'";
    else if (auto g = metric_group_problem(std::string_view{id}.substr(0, dot));
             !g.empty())
      why = "its group " + g;
    else if (dot + 1 == id.size())
      why = "its name is empty";
    if (!why.empty()) {
      res.send_error(grpc_code::invalid_argument,
                     "metricIds: expected group.name, got '" + shown_value(id)
                         + "': " + why);
      return std::nullopt;
    }
    q.ids[id.substr(0, dot)].push_back(id.substr(dot + 1));
  }
  auto start = integer(req, res, "startBatches", 0, INT64_MAX);
  auto end = integer(req, res, "endBatches", 0, INT64_MAX);
  auto points = integer(req, res, "maxDatapoints", 0, max_points);
  auto after = integer(req, res, "afterId", 0, INT64_MAX);
  if ((start && *start < 0) || (end && *end < 0) || (points && *points < 0)
      || (after && *after < 0))
    return std::nullopt; // answered
  if (after)
    q.after_id = *after;
  if (start)
    q.min_steps = *start;
  if (end)
    q.max_steps = *end;
  // 0 asks for the default, as upstream reads an unset field.
  if (points && *points > 0)
    q.points = static_cast<size_t>(*points);
  return q;
}

/// A trial's reports from the log, in log order: the store projects the
/// few payload fields a report keeps (no payload is parsed here; the
/// metrics stay the text the store renders).
caf::expected<std::vector<read::metric_report>> load_reports(event_store& log,
                                                             int64_t trial) {
  std::vector<read::metric_report> out;
  field_query q{
      "trial/" + std::to_string(trial),
      trial_metrics_reported::type_name,
      {"kind", "steps_completed", "metrics", "allocation_id", "at_us"}};
  auto text = [](const std::string& j) {
    auto v = nlohmann::json::parse(j, nullptr, false);
    return v.is_string() ? v.get<std::string>() : std::string{};
  };
  auto number = [](const std::string& j) -> std::optional<int64_t> {
    try {
      size_t used = 0;
      auto n = std::stoll(j, &used);
      if (used == j.size())
        return n;
    } catch (const std::exception&) {
    }
    return std::nullopt;
  };
  auto err = log.read_fields(
      q, [&](int64_t position, std::vector<std::string>& f) -> caf::error {
        auto steps = number(f[1]);
        if (f[0].empty() || !steps || f[2].empty() || f[2].front() != '{')
          return make_error(errc::invalid_event,
                            "event " + std::to_string(position)
                                + ": not a metric report this master can read");
        read::metric_report r;
        r.position = position;
        r.trial_id = trial;
        r.group = text(f[0]);
        r.steps = *steps;
        r.metrics = std::move(f[2]);
        r.allocation_id = text(f[3]);
        r.at_us = number(f[4]).value_or(0);
        out.push_back(std::move(r));
        return {};
      });
  if (err)
    return err;
  return out;
}

/// The run number of an allocation id ("12.3" -> 3).
int64_t run_of(const std::string& allocation_id) {
  auto dot = allocation_id.rfind('.');
  if (dot == std::string::npos)
    return 0;
  try {
    return std::stoll(allocation_id.substr(dot + 1));
  } catch (const std::exception&) {
    return 0;
  }
}

/// A v1MetricsReport; the metrics object as upstream keys it (validation
/// under "validation_metrics", any other group under "avg_metrics").
void append_report(std::string& out, const read::metric_report& r) {
  out += R"({"trialId":)" + std::to_string(r.trial_id);
  out += R"(,"trialRunId":)" + std::to_string(run_of(r.allocation_id));
  out += R"(,"id":)" + std::to_string(r.position);
  out += R"(,"totalBatches":)" + std::to_string(r.steps);
  out += R"(,"endTime":)" + json(rfc3339(r.at_us)).dump();
  out += R"(,"group":)" + json(r.group).dump();
  out += R"(,"archived":false,"metrics":{)";
  out += r.group == "validation" ? R"("validation_metrics":)"
                                 : R"("avg_metrics":)";
  out += r.metrics;
  out += R"(,"batch_metrics":null}})";
}

/// What a route takes from the read model about a trial, besides its
/// reports (rendered on the replica, used on the log reader's thread).
using describe_fn =
    std::function<json(const state::cluster_state&, const state::trial_info&)>;

json trial_of(const state::cluster_state& s, const state::trial_info& t) {
  return trial_json(s, t);
}

/// Runs `then` with each asked trial's reports, on the log reader's thread,
/// once the read model knows every trial (404 naming the first it does
/// not). `then` also gets what `describe` said of each trial.
void with_reports(const ctx_ptr& ctx, const std::shared_ptr<log_reader>& reader,
                  const responder& res, const metric_query& q,
                  std::function<void(const std::vector<json>&,
                                     const std::vector<read::report_list>&)>
                      then,
                  describe_fn describe = &trial_of) {
  if (!ctx->reads || !ctx->history || !reader) {
    res.send_error(grpc_code::unavailable, "no metric history here");
    return;
  }
  ctx->reads->read(
      0, deadline_of(ctx),
      [ctx, reader, res, q, then = std::move(then),
       describe = std::move(describe)](const read::read_view& v) {
        std::vector<json> trials;
        for (auto id : q.trials) {
          auto t = state::find_listed_trial(v.state, id);
          if (t == nullptr) {
            res.send_error(grpc_code::not_found,
                           "trial " + std::to_string(id) + " not found");
            return;
          }
          trials.push_back(describe(v.state, *t));
        }
        auto queued =
            reader->submit([ctx, res, q, trials, then](event_store* log,
                                                       const caf::error& err) {
              if (log == nullptr) {
                res.send_error(grpc_code::unavailable,
                               "the event log cannot be read: " + render(err));
                return;
              }
              std::vector<read::report_list> lists;
              for (auto id : q.trials) {
                auto l = ctx->history->reports(
                    id, [log](int64_t t) { return load_reports(*log, t); });
                if (!l) {
                  res.send_error(grpc_code::unavailable,
                                 "trial " + std::to_string(id)
                                     + ": metrics cannot be read: "
                                     + render(l.error()));
                  return;
                }
                lists.push_back(std::move(*l));
              }
              then(trials, lists);
            });
        if (!queued)
          res.send_error(grpc_code::unavailable,
                         "too many metric queries are waiting; try again");
      },
      refused(res));
}

/// Every report of the asked group, in lines of at most 1,000.
void stream_route(const ctx_ptr& ctx, const std::shared_ptr<log_reader>& reader,
                  const http_request& req, const responder& res,
                  const std::string& fixed_group) {
  auto q = query_of(req, res, fixed_group, true);
  if (!q)
    return;
  with_reports(
      ctx, reader, res, *q,
      [res, group = q->group,
       after = q->after_id](const std::vector<json>&,
                            const std::vector<read::report_list>& lists) {
        constexpr size_t per_line = 1000;
        std::string body;
        std::string line;
        size_t in_line = 0;
        auto flush = [&] {
          body += R"({"result":{"metrics":[)" + line + "]}}\n";
          line.clear();
          in_line = 0;
        };
        for (const auto& l : lists) {
          auto hidden = read::rolled_back(l);
          for (size_t i = 0; i < l.size(); ++i) {
            if (l[i].group != group || l[i].position <= after || hidden[i])
              continue;
            if (in_line != 0)
              line += ',';
            append_report(line, l[i]);
            if (++in_line == per_line)
              flush();
          }
        }
        if (in_line != 0 || body.empty())
          flush();
        res.send_json(std::move(body));
      });
}

/// One v1DownsampledMetrics: the sampled points of `group`, each with the
/// metrics `names` (all when none are named).
json series(const read::report_list& l, const std::string& group,
            const std::vector<std::string>& names, const metric_query& q) {
  json data = json::array();
  for (auto i : sample_reports(l, group, q.min_steps, q.max_steps, q.points)) {
    const auto& r = l[i];
    auto all = json::parse(r.metrics, nullptr, false);
    if (!all.is_object())
      continue;
    json values = json::object();
    if (names.empty())
      values = all;
    else
      for (const auto& n : names)
        if (auto v = all.find(n); v != all.end())
          values[n] = *v;
    json point{{"batches", r.steps},
               {"time", rfc3339(r.at_us)},
               {"values", std::move(values)}};
    if (auto e = all.find("epoch"); e != all.end() && e->is_number())
      point["epoch"] = *e;
    data.push_back(std::move(point));
  }
  std::string type = group == "training"     ? "METRIC_TYPE_TRAINING"
                     : group == "validation" ? "METRIC_TYPE_VALIDATION"
                                             : "METRIC_TYPE_UNSPECIFIED";
  return {{"type", type}, {"group", group}, {"data", std::move(data)}};
}

void time_series_route(const ctx_ptr& ctx,
                       const std::shared_ptr<log_reader>& reader,
                       const http_request& req, const responder& res) {
  auto q = query_of(req, res, "", false);
  if (!q)
    return;
  // The series to answer, by group in name order as upstream's: those
  // metricIds name, or the asked group (both main ones when none is).
  auto groups = q->ids;
  if (groups.empty() && q->group.empty())
    groups = {{"training", q->names}, {"validation", q->names}};
  else if (groups.empty())
    groups = {{q->group, q->names}};
  with_reports(
      ctx, reader, res, *q,
      [res, q = *q, groups](const std::vector<json>& trials,
                            const std::vector<read::report_list>& lists) {
        json out = json::array();
        for (size_t k = 0; k < trials.size(); ++k) {
          json metrics = json::array();
          for (const auto& [group, names] : groups)
            metrics.push_back(series(lists[k], group, names, q));
          out.push_back(
              {{"trial", trials[k]}, {"metrics", std::move(metrics)}});
        }
        res.send_json(json{{"trials", std::move(out)}}.dump());
      });
}

/// A trial's checkpoints as workloads.
json checkpoint_workloads(const state::cluster_state&,
                          const state::trial_info& t) {
  json list = json::array();
  for (const auto& c : t.checkpoints)
    list.push_back({{"checkpoint",
                     {{"uuid", c.uuid},
                      {"state", checkpoint_state_name(c)},
                      {"totalBatches", c.steps_completed},
                      {"endTime", rfc3339(c.at_us)},
                      {"metadata", c.metadata},
                      {"resources", json::object()}}}});
  return list;
}

/// GET /api/v1/trials/{id}/workloads: every training and validation
/// report and every checkpoint, ordered by batches (reports before the
/// checkpoint of the same step), paged.
void workloads_route(const ctx_ptr& ctx,
                     const std::shared_ptr<log_reader>& reader,
                     const http_request& req, const responder& res) {
  auto id = id_param(req, res, "trial_id");
  if (!id)
    return;
  auto p = page_of(req, res);
  if (!p)
    return;
  metric_query q;
  q.trials = {*id};
  with_reports(
      ctx, reader, res, q,
      [res, p = *p](const std::vector<json>& checkpoints,
                    const std::vector<read::report_list>& lists) {
        struct entry {
          int64_t steps;
          int kind; // 0 training, 1 validation, 2 checkpoint
          size_t index;
        };
        const auto& l = lists.front();
        const auto& cks = checkpoints.front();
        std::vector<entry> order;
        auto hidden = read::rolled_back(l);
        for (size_t i = 0; i < l.size(); ++i) {
          if (hidden[i])
            continue;
          if (l[i].group == "training")
            order.push_back({l[i].steps, 0, i});
          else if (l[i].group == "validation")
            order.push_back({l[i].steps, 1, i});
        }
        for (size_t i = 0; i < cks.size(); ++i)
          order.push_back(
              {cks[i]["checkpoint"]["totalBatches"].get<int64_t>(), 2, i});
        std::stable_sort(
            order.begin(), order.end(), [](const entry& a, const entry& b) {
              return std::tie(a.steps, a.kind) < std::tie(b.steps, b.kind);
            });
        auto total = static_cast<int64_t>(order.size());
        auto [start, end] = page_bounds(total, p);
        json items = json::array();
        for (auto k = start; k < end; ++k) {
          const auto& e = order[static_cast<size_t>(k)];
          if (e.kind == 2) {
            items.push_back(cks[e.index]);
            continue;
          }
          const auto& r = l[e.index];
          items.push_back(
              {{e.kind == 0 ? "training" : "validation",
                metrics_workload(json::parse(r.metrics, nullptr, false),
                                 r.steps, r.at_us)}});
        }
        res.send_json(json{{"workloads", std::move(items)},
                           {"pagination", pagination_of(p, total)}}
                          .dump());
      },
      &checkpoint_workloads);
}

/// GET /api/v1/trials/{id}/timeline: the trial's events but its metric
/// reports, oldest first, the last max_timeline_events of them, secrets
/// redacted (the WebUI's trial timeline).
void timeline_route(const std::shared_ptr<log_reader>& reader,
                    const http_request& req, const responder& res) {
  constexpr size_t max_timeline_events = 10000;
  auto id = id_param(req, res, "trial_id");
  if (!id)
    return;
  if (!reader)
    return res.send_error(grpc_code::unavailable, "no event log to read");
  auto queued = reader->submit(
      [res, id = *id](event_store* log, const caf::error& open_err) {
        if (log == nullptr)
          return res.send(http::error_response(open_err));
        read_options ro;
        ro.stream = "trial/" + std::to_string(id);
        std::deque<json> rows;
        auto err = log->read(ro, [&](recorded_event&& rec) -> caf::error {
          if (rec.body.type == trial_metrics_reported::type_name)
            return {};
          if (rows.size() == max_timeline_events)
            rows.pop_front();
          auto p = json::parse(rec.body.payload, nullptr, false);
          rows.push_back(
              {{"position", rec.position},
               {"type", rec.body.type},
               {"recordedAt", rfc3339(rec.recorded_at_us)},
               {"payload", p.is_discarded() ? json{} : conf::redact(p)}});
          return {};
        });
        if (err)
          return res.send(http::error_response(err));
        if (rows.empty())
          return res.send_error(grpc_code::not_found,
                                "trial " + std::to_string(id) + " not found");
        json list = json::array();
        for (auto& r : rows)
          list.push_back(std::move(r));
        res.send_json(json{{"events", std::move(list)}}.dump());
      });
  if (!queued)
    res.send_error(grpc_code::unavailable,
                   "too many event-log queries waiting; try again");
}

} // namespace

void trial_metrics_stream(const ctx_ptr& ctx, const http::http_request& req,
                          const http::responder& res) {
  if (user_only(req, res))
    stream_route(ctx, ctx->metric_reader, req, res, "");
}

void training_metrics_stream(const ctx_ptr& ctx, const http::http_request& req,
                             const http::responder& res) {
  if (user_only(req, res))
    stream_route(ctx, ctx->metric_reader, req, res, "training");
}

void validation_metrics_stream(const ctx_ptr& ctx,
                               const http::http_request& req,
                               const http::responder& res) {
  if (user_only(req, res))
    stream_route(ctx, ctx->metric_reader, req, res, "validation");
}

void trial_workloads(const ctx_ptr& ctx, const http::http_request& req,
                     const http::responder& res) {
  workloads_route(ctx, ctx->metric_reader, req, res);
}

void trial_timeline(const ctx_ptr& ctx, const http::http_request& req,
                    const http::responder& res) {
  if (user_only(req, res))
    timeline_route(ctx->metric_reader, req, res);
}

void trial_time_series(const ctx_ptr& ctx, const http::http_request& req,
                       const http::responder& res) {
  if (user_only(req, res))
    time_series_route(ctx, ctx->metric_reader, req, res);
}

} // namespace det::api
