#include "api/trial_history.hpp"

#include "api/log_reader.hpp"
#include "api/views.hpp"
#include "conf/redact.hpp"
#include "http/grpc_error.hpp"
#include "messages/errc.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <vector>

namespace det::api {

namespace {

using json = nlohmann::json;
using http::grpc_code;
using http::http_request;
using http::responder;

constexpr size_t max_trials_per_query = 100;
/// Reports in one answer, all trials together (about 200 bytes each).
constexpr size_t max_reports_per_query = 1'000'000;
constexpr size_t max_timeline_events = 10000;

bool user_only(const http_request& req, const responder& res) {
  if (req.principal.allocation_id.empty())
    return true;
  res.send_error(grpc_code::permission_denied,
                 "a trial's allocation token cannot read metric histories");
  return false;
}

/// Positive integer, or nullopt.
std::optional<int64_t> positive(const std::string& text) {
  try {
    size_t used = 0;
    auto n = std::stoll(text, &used);
    if (used == text.size() && n > 0)
      return n;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

/// The rendered reports of the trials asked for, each known by its log
/// position. Touched only by jobs on the log reader's one thread, so it
/// needs no lock. Each ask reads only the trial's events after the last
/// one it holds; past max_cached_reports in all, everything is dropped and
/// read again when asked for.
class report_cache {
public:
  static constexpr size_t max_cached_reports = 3'000'000;

  /// Appends the trial's reports of `group` ("" = every group) after log
  /// position `after` to `out` as one result line; `budget` counts down
  /// the reports the answer may still hold.
  caf::error line(event_store& log, int64_t trial_id, const std::string& group,
                  int64_t after, size_t& budget, std::string& out) {
    if (total_ > max_cached_reports) {
      trials_.clear();
      total_ = 0;
    }
    auto& t = trials_[trial_id];
    if (auto err = refresh(log, trial_id, t))
      return err;
    auto it = std::upper_bound(
        t.reports.begin(), t.reports.end(), after,
        [](int64_t a, const report& r) { return a < r.position; });
    out += R"({"result":{"metrics":[)";
    bool first = true;
    for (; it != t.reports.end() && budget > 0; ++it) {
      if (!group.empty() && it->group != group)
        continue;
      if (!first)
        out += ',';
      first = false;
      out += it->text;
      --budget;
    }
    out += "]}}\n";
    return {};
  }

private:
  struct report {
    int64_t position = 0;
    std::string group;
    std::string text;
  };
  struct trial_reports {
    int64_t read_up_to = 0; ///< the last event of the stream read
    std::vector<report> reports;
  };

  caf::error refresh(event_store& log, int64_t trial_id, trial_reports& t) {
    read_options ro;
    ro.stream = "trial/" + std::to_string(trial_id);
    ro.after = t.read_up_to;
    // Payloads parsed on the store's own reader thread, beside this one.
    ro.parse_payloads = true;
    return log.read(ro, [&](recorded_event&& rec) -> caf::error {
      t.read_up_to = rec.position;
      if (rec.body.type != "trial_metrics_reported")
        return {};
      const auto& p = rec.parsed;
      if (!p.is_object())
        return {};
      auto kind = p.value("kind", std::string{});
      auto at = p.value("at_us", int64_t{0});
      auto m = p.find("metrics");
      // Written out once: 100,000 reports are one learning curve. The
      // metrics as upstream keys them (v1MetricsReport's Struct).
      auto text = R"({"trialId":)" + std::to_string(trial_id) + R"(,"id":)"
                  + std::to_string(rec.position) + R"(,"group":)"
                  + json(kind).dump() + R"(,"totalBatches":)"
                  + std::to_string(p.value("steps_completed", int64_t{0}))
                  + R"(,"endTime":")"
                  + rfc3339(at != 0 ? at : rec.recorded_at_us)
                  + R"(","archived":false,"metrics":{)"
                  + (kind == "validation" ? R"("validation_metrics":)"
                                          : R"("avg_metrics":)")
                  + (m != p.end() && m->is_object() ? m->dump() : "{}")
                  + R"(,"batch_metrics":null}})";
      t.reports.push_back({rec.position, std::move(kind), std::move(text)});
      ++total_;
      return {};
    });
  }

  std::map<int64_t, trial_reports> trials_;
  size_t total_ = 0;
};

void trial_metrics_route(const std::shared_ptr<log_reader>& reader,
                         const std::shared_ptr<report_cache>& cache,
                         const http_request& req, const responder& res) {
  auto texts = req.query.get_all("trialIds");
  if (texts.empty() || texts.size() > max_trials_per_query)
    return res.send_error(grpc_code::invalid_argument,
                          "trialIds: give 1 to "
                              + std::to_string(max_trials_per_query)
                              + " trial ids");
  std::vector<int64_t> ids;
  for (const auto& t : texts) {
    auto id = positive(t);
    if (!id)
      return res.send_error(grpc_code::invalid_argument,
                            "trialIds: not a valid id: '" + t.substr(0, 40)
                                + "'");
    ids.push_back(*id);
  }
  // Upstream's groups are names without '.'; this master records two
  // (training, validation): any other is an empty history.
  auto group = req.query.get("group").value_or("");
  if (group == "GROUP_TRAINING" || group == "METRIC_TYPE_TRAINING")
    group = "training";
  if (group == "GROUP_VALIDATION" || group == "METRIC_TYPE_VALIDATION")
    group = "validation";
  bool bad_group = group.size() > 255 || group.find('.') != std::string::npos;
  for (unsigned char ch : group)
    bad_group = bad_group || ch < 0x20 || ch == 0x7f;
  if (bad_group)
    return res.send_error(grpc_code::invalid_argument,
                          "group: a name of at most 255 bytes without '.' "
                          "or control characters is expected, got '"
                              + group.substr(0, 40) + "'");
  int64_t after = 0;
  if (auto a = req.query.get("afterId")) {
    auto n = positive(*a);
    if (!n && *a != "0")
      return res.send_error(grpc_code::invalid_argument,
                            "afterId: not a report id: '" + a->substr(0, 40)
                                + "'");
    after = n.value_or(0);
  }
  if (!reader)
    return res.send_error(grpc_code::unavailable, "no event log to read");
  auto ok = reader->submit([res, cache, ids, group, after](
                               event_store* log, const caf::error& open_err) {
    if (log == nullptr)
      return res.send(http::error_response(open_err));
    std::string body;
    size_t budget = max_reports_per_query;
    for (auto id : ids)
      if (auto err = cache->line(*log, id, group, after, budget, body))
        return res.send(http::error_response(err));
    res.send(http::http_response::json(200, std::move(body)));
  });
  if (!ok)
    res.send_error(grpc_code::unavailable,
                   "too many event-log queries waiting; try again");
}

void timeline_route(const std::shared_ptr<log_reader>& reader,
                    const http_request& req, const responder& res) {
  auto id = positive(req.param("trial_id"));
  if (!id)
    return res.send_error(grpc_code::invalid_argument,
                          "trial_id: not a valid id: '"
                              + req.param("trial_id").substr(0, 40) + "'");
  if (!reader)
    return res.send_error(grpc_code::unavailable, "no event log to read");
  auto ok = reader->submit(
      [res, id = *id](event_store* log, const caf::error& open_err) {
        if (log == nullptr)
          return res.send(http::error_response(open_err));
        read_options ro;
        ro.stream = "trial/" + std::to_string(id);
        std::deque<json> rows;
        auto err = log->read(ro, [&](recorded_event&& rec) -> caf::error {
          if (rec.body.type == "trial_metrics_reported")
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
        json out{{"events", std::move(list)}};
        res.send_json(out.dump());
      });
  if (!ok)
    res.send_error(grpc_code::unavailable,
                   "too many event-log queries waiting; try again");
}

} // namespace

void add_trial_history_routes(http::router& r,
                              std::shared_ptr<const api_context> ctx) {
  // Without a log URL (tests of the routes alone) there is nothing to read:
  // the routes answer 503.
  std::shared_ptr<log_reader> reader;
  if (!ctx->db_url.empty())
    reader = std::make_shared<log_reader>(ctx->db_url);
  auto served = r.table();
  const std::pair<std::string, std::string> metrics_route{
      "GET", "/api/v1/trials/metrics/trial_metrics"};
  if (std::find(served.begin(), served.end(), metrics_route) == served.end())
    r.get(metrics_route.second,
          [reader, cache = std::make_shared<report_cache>()](http_request req,
                                                             responder res) {
            if (user_only(req, res))
              trial_metrics_route(reader, cache, req, res);
          });
  r.get("/api/v1/trials/{trial_id}/timeline",
        [reader](http_request req, responder res) {
          if (user_only(req, res))
            timeline_route(reader, req, res);
        });
}

} // namespace det::api
