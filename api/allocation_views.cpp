#include "api/allocation_views.hpp"

#include "api/views_cluster.hpp"
#include "state/records_queries.hpp"
#include "util/time_text.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <initializer_list>
#include <map>
#include <vector>

namespace det::api {

using nlohmann::json;

namespace {

constexpr int64_t us_per_day = int64_t{86'400} * 1'000'000;
constexpr const char* daily_period =
    "RESOURCE_ALLOCATION_AGGREGATION_PERIOD_DAILY";
constexpr const char* monthly_period =
    "RESOURCE_ALLOCATION_AGGREGATION_PERIOD_MONTHLY";

/// The first of `names` the query has.
std::optional<std::string>
query_value(const http::query_params& q,
            std::initializer_list<const char*> names) {
  for (auto n : names)
    if (auto v = q.get(n))
      return v;
  return std::nullopt;
}

/// Floor division: the day of a time before 1970 is negative.
int64_t day_of(int64_t at_us) {
  return at_us >= 0 ? at_us / us_per_day
                    : -((-at_us + us_per_day - 1) / us_per_day);
}

/// "YYYY-MM-DD" (or "YYYY-MM" when `month`) of day `day`.
std::string day_text(int64_t day, bool month) {
  std::time_t secs = static_cast<std::time_t>(day * 86'400);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, month ? "%Y-%m" : "%Y-%m-%d", &tm);
  return buf;
}

/// The day of "YYYY-MM-DD" (`month`: the first day of "YYYY-MM"); a date
/// that does not exist ("2024-02-30") is nothing.
std::optional<int64_t> parse_day(const std::string& text, bool month) {
  if (text.size() != (month ? 7u : 10u))
    return std::nullopt;
  auto full = month ? text + "-01" : text;
  auto at = util::parse_rfc3339(full + "T00:00:00Z");
  if (!at)
    return std::nullopt;
  auto day = day_of(*at);
  if (day_text(day, false) != full)
    return std::nullopt;
  return day;
}

/// Go's encoding/csv quoting: a field with a comma, quote, line break or
/// leading space is quoted, its quotes doubled.
std::string csv_cell(const std::string& v) {
  bool quote = !v.empty() && v.front() == ' ';
  for (char c : v)
    if (c == ',' || c == '"' || c == '\n' || c == '\r')
      quote = true;
  if (!quote)
    return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"')
      out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_row(const std::vector<std::string>& cells) {
  std::string out;
  for (size_t i = 0; i < cells.size(); ++i)
    out += (i ? "," : "") + csv_cell(cells[i]);
  return out + "\n";
}

std::string fixed6(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%f", v);
  return buf;
}

/// When `r` ended, or now while it lives (never before it started).
int64_t end_or_now(const state::allocation_record& r, int64_t now_us) {
  return std::max(r.started_at_us, r.ended_at_us > 0 ? r.ended_at_us : now_us);
}

/// Seconds of [from, to] inside [r's start, its end or now].
double overlap_seconds(const state::allocation_record& r, int64_t from,
                       int64_t to, int64_t now_us) {
  auto lo = std::max(r.started_at_us, from);
  auto hi = std::min(end_or_now(r, now_us), to);
  return hi > lo ? static_cast<double>(hi - lo) / 1e6 : 0.0;
}

/// The allocations that overlap `w`, oldest first.
std::vector<const state::allocation_record*>
in_window(const state::cluster_state& s, time_window w, int64_t now_us) {
  std::vector<const state::allocation_record*> out;
  for (const auto& [id, r] : s.allocation_history)
    if (r.started_at_us <= w.before_us && end_or_now(r, now_us) >= w.after_us)
      out.push_back(&r);
  std::sort(out.begin(), out.end(), [](auto a, auto b) {
    return a->started_at_us != b->started_at_us
               ? a->started_at_us < b->started_at_us
               : a->id < b->id;
  });
  return out;
}

/// Slot-seconds by key, per aggregation type, of one period.
struct period_totals {
  double seconds = 0;
  std::map<std::string, double> by_user, by_label, by_pool;

  void add(const state::allocation_record& r, double slot_seconds) {
    seconds += slot_seconds;
    by_user[r.owner] += slot_seconds;
    by_pool[r.pool] += slot_seconds;
    for (const auto& l : r.labels)
      by_label[l] += slot_seconds;
  }
};

/// The periods of `a` (by "YYYY-MM-DD" or "YYYY-MM"), each day from the
/// first allocation's through today, and what each allocation used in it.
std::map<std::string, period_totals> aggregate(const state::cluster_state& s,
                                               aggregation a, int64_t now_us) {
  std::map<std::string, period_totals> out;
  if (s.allocation_history.empty())
    return out;
  int64_t first = INT64_MAX;
  for (const auto& [id, r] : s.allocation_history)
    first = std::min(first, r.started_at_us);
  auto from_day = std::max(a.first_day, day_of(first));
  auto to_day = std::min(a.last_day, day_of(now_us));
  for (auto d = from_day; d <= to_day; ++d)
    out[day_text(d, a.monthly)];
  for (const auto& [id, r] : s.allocation_history) {
    auto lo = std::max(from_day, day_of(r.started_at_us));
    auto hi = std::min(to_day, day_of(end_or_now(r, now_us)));
    for (auto d = lo; d <= hi; ++d) {
      auto secs =
          overlap_seconds(r, d * us_per_day, (d + 1) * us_per_day, now_us);
      if (secs > 0)
        out[day_text(d, a.monthly)].add(r, secs * static_cast<double>(r.slots));
    }
  }
  return out;
}

json user_id_of(const state::cluster_state& s, const std::string& name) {
  auto u = s.users.find(name);
  return u == s.users.end() ? json{} : json(u->second.id);
}

} // namespace

std::optional<time_window> window_of(const http::query_params& q,
                                     std::string& why) {
  time_window w;
  struct bound {
    const char* name;
    const char* camel;
    int64_t* out;
  };
  for (auto b : {bound{"timestamp_after", "timestampAfter", &w.after_us},
                 bound{"timestamp_before", "timestampBefore", &w.before_us}}) {
    auto text = query_value(q, {b.name, b.camel});
    if (!text) {
      why = std::string{b.name} + ": required (YYYY-MM-DDTHH:MM:SSZ)";
      return std::nullopt;
    }
    auto at = util::parse_rfc3339(*text);
    if (!at) {
      why =
          std::string{b.name} + ": not an RFC 3339 time (YYYY-MM-DDTHH:MM:SSZ)";
      return std::nullopt;
    }
    *b.out = *at;
  }
  if (w.after_us > w.before_us) {
    why = "timestamp_after: after timestamp_before";
    return std::nullopt;
  }
  return w;
}

std::optional<aggregation> aggregation_of(const http::query_params& q,
                                          std::string& why) {
  aggregation a;
  auto period = query_value(q, {"period"});
  if (!period || period->empty()) {
    why = std::string{"period: required ("} + daily_period + " or "
          + monthly_period + ")";
    return std::nullopt;
  }
  if (*period == monthly_period || *period == "2") {
    a.monthly = true;
  } else if (*period != daily_period && *period != "1") {
    why = "period: unknown value (" + std::string{daily_period} + " or "
          + monthly_period + ")";
    return std::nullopt;
  }
  const char* form = a.monthly ? "YYYY-MM" : "YYYY-MM-DD";
  struct bound {
    const char* name;
    const char* camel;
    int64_t* out;
  };
  for (auto b : {bound{"start_date", "startDate", &a.first_day},
                 bound{"end_date", "endDate", &a.last_day}}) {
    auto text = query_value(q, {b.name, b.camel});
    if (!text) {
      why = std::string{b.name} + ": required (" + form + ")";
      return std::nullopt;
    }
    auto day = parse_day(*text, a.monthly);
    if (!day) {
      why = std::string{b.name} + ": not a date of the form " + form;
      return std::nullopt;
    }
    *b.out = *day;
  }
  if (a.monthly) {
    // Through the end date's month: the day before the next month's first.
    auto next = day_text(a.last_day + 31, true);
    a.last_day = *parse_day(next, true) - 1;
  }
  if (a.first_day > a.last_day) {
    why = "start_date: after end_date";
    return std::nullopt;
  }
  return a;
}

json raw_allocation_response(const state::cluster_state& s, time_window w,
                             int64_t now_us) {
  json entries = json::array();
  for (auto r : in_window(s, w, now_us)) {
    json e = {{"kind", "allocation"},
              {"startTime", util::format_rfc3339(r->started_at_us)},
              {"experimentId", r->experiment_id},
              {"username", r->owner},
              {"userId", user_id_of(s, r->owner)},
              {"labels", r->labels},
              {"seconds", overlap_seconds(*r, w.after_us, w.before_us, now_us)},
              {"slots", r->slots}};
    if (r->ended_at_us > 0)
      e["endTime"] = util::format_rfc3339(r->ended_at_us);
    entries.push_back(std::move(e));
  }
  return {{"resourceEntries", std::move(entries)}};
}

std::string raw_allocation_csv(const state::cluster_state& s, time_window w,
                               int64_t now_us) {
  std::string out = csv_row({"experiment_id", "kind", "username", "labels",
                             "slots", "start_time", "end_time", "seconds"});
  for (auto r : in_window(s, w, now_us)) {
    // Upstream escapes backslashes and commas inside each label, then
    // joins them with commas.
    std::string labels;
    for (const auto& l : r->labels) {
      std::string escaped;
      for (char c : l) {
        if (c == '\\' || c == ',')
          escaped += '\\';
        escaped += c;
      }
      labels += (labels.empty() ? "" : ",") + escaped;
    }
    out += csv_row(
        {std::to_string(r->experiment_id), "allocation", r->owner, labels,
         std::to_string(r->slots), util::format_rfc3339(r->started_at_us),
         util::format_rfc3339(r->ended_at_us),
         fixed6(overlap_seconds(*r, w.after_us, w.before_us, now_us))});
  }
  return out;
}

std::string allocations_csv(const state::cluster_state& s, time_window w,
                            int64_t now_us) {
  std::string out =
      csv_row({"allocation_id", "task_type", "username", "workspace_name",
               "experiment_id", "slots", "start_time", "end_time",
               "imagepulling_time", "slot_hours", "resource_pool"});
  for (auto r : in_window(s, w, now_us)) {
    auto hours = overlap_seconds(*r, w.after_us, w.before_us, now_us)
                 * static_cast<double>(r->slots) / 3600.0;
    out += csv_row(
        {r->id, "TRIAL", r->owner, r->workspace_name,
         r->experiment_id > 0 ? std::to_string(r->experiment_id) : "",
         std::to_string(r->slots), util::format_rfc3339(r->started_at_us),
         util::format_rfc3339(r->ended_at_us), "0.0",
         hours == 0 ? "0.0" : fixed6(hours), r->pool});
  }
  // Tasks (commands, notebooks, ...) placed on an agent, while the state
  // keeps them (24 h after they end): their current allocation.
  for (const auto& [id, t] : s.tasks) {
    if (t.placed_at_us == 0)
      continue;
    auto end = t.ended_at_us > 0 ? t.ended_at_us : now_us;
    if (t.placed_at_us > w.before_us || end < w.after_us)
      continue;
    auto lo = std::max(t.placed_at_us, w.after_us);
    auto hi = std::min(end, w.before_us);
    auto hours = hi > lo ? static_cast<double>(hi - lo) / 1e6
                               * static_cast<double>(t.slots) / 3600.0
                         : 0.0;
    auto ws = state::find_workspace(s, t.workspace_id);
    out += csv_row({t.allocation_id, t.task_type, t.owner,
                    ws ? ws->name : std::string{}, "", std::to_string(t.slots),
                    util::format_rfc3339(t.placed_at_us),
                    util::format_rfc3339(t.ended_at_us), "0.0",
                    hours == 0 ? "0.0" : fixed6(hours), t.pool});
  }
  return out;
}

json aggregated_allocation_response(const state::cluster_state& s,
                                    aggregation a, int64_t now_us) {
  json entries = json::array();
  for (const auto& [start, t] : aggregate(s, a, now_us))
    entries.push_back({{"periodStart", start},
                       {"period", a.monthly ? monthly_period : daily_period},
                       {"seconds", t.seconds},
                       {"byUsername", t.by_user},
                       {"byExperimentLabel", t.by_label},
                       {"byResourcePool", t.by_pool},
                       {"byAgentLabel", json::object()}});
  return {{"resourceEntries", std::move(entries)}};
}

std::string aggregated_allocation_csv(const state::cluster_state& s,
                                      aggregation a, int64_t now_us) {
  std::string out =
      csv_row({"aggregation_type", "aggregation_key", "date", "seconds"});
  for (const auto& [start, t] : aggregate(s, a, now_us)) {
    auto rows = [&out, &start = start](const char* type,
                                       const std::map<std::string, double>& m) {
      for (const auto& [key, secs] : m)
        out += csv_row({type, key, start, fixed6(secs)});
    };
    rows("experiment_label", t.by_label);
    rows("username", t.by_user);
    rows("resource_pool", t.by_pool);
    rows("total", {{"total", t.seconds}});
  }
  return out;
}

json legacy_tasks_response(const state::cluster_state& s) {
  // The v1 view's summaries, renamed to upstream's Go JSON field names.
  auto v1 = tasks_response(s);
  json out = json::object();
  for (const auto& [alloc, t] : v1["allocationIdToSummary"].items()) {
    json resources = json::array();
    for (const auto& r : t["resources"]) {
      json agent_devices = json::object();
      for (const auto& [agent, devs] : r["agentDevices"].items()) {
        json list = json::array();
        for (const auto& d : devs["devices"])
          list.push_back(
              {{"id", d["id"]}, {"brand", ""}, {"uuid", ""}, {"type", "cpu"}});
        agent_devices[agent] = std::move(list);
      }
      resources.push_back({{"resources_id", r["resourcesId"]},
                           {"resources_type", "docker-container"},
                           {"allocation_id", r["allocationId"]},
                           {"agent_devices", std::move(agent_devices)},
                           {"container_id", r["containerId"]},
                           {"Started", nullptr},
                           {"Exited", nullptr}});
    }
    out[alloc] = {{"task_id", t["taskId"]},
                  {"allocation_id", t["allocationId"]},
                  {"name", t["name"]},
                  {"registered_time", t["registeredTime"]},
                  {"resource_pool", t["resourcePool"]},
                  {"slots_needed", t["slotsNeeded"]},
                  {"resources", std::move(resources)},
                  {"scheduler_type", t["schedulerType"]},
                  {"priority", t["priority"]}};
  }
  return out;
}

} // namespace det::api
