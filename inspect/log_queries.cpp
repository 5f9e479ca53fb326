#include "inspect/log_queries.hpp"

#include "inspect/views.hpp"
#include "messages/errc.hpp"
#include "store/recovery.hpp"

#include <deque>

namespace det::inspection {

using nlohmann::json;

json event_json(const recorded_event& rec) {
  auto payload = json::parse(rec.body.payload, nullptr, false);
  if (payload.is_discarded())
    payload = rec.body.payload;
  auto at = time_json(rec.recorded_at_us);
  return {{"position", rec.position},
          {"stream", rec.stream},
          {"stream_version", rec.stream_version},
          {"type", rec.body.type},
          {"schema_version", rec.body.schema_version},
          {"recorded_at", at},
          {"payload", std::move(payload)}};
}

caf::expected<json> query_events(event_store& log, const event_filter& f) {
  if (f.limit < 1 || f.limit > 100000)
    return make_error(errc::invalid_argument,
                      "limit: must be between 1 and 100000, got "
                          + std::to_string(f.limit));
  if (f.from && *f.from < 1)
    return make_error(errc::invalid_argument, "from: positions start at 1, got "
                                                  + std::to_string(*f.from));
  if (f.to && *f.to < 0)
    return make_error(errc::invalid_argument,
                      "to: must not be negative, got " + std::to_string(*f.to));
  if (f.from && f.to && *f.to < *f.from)
    return make_error(errc::invalid_argument,
                      "to: " + std::to_string(*f.to)
                          + " is before from: " + std::to_string(*f.from));
  auto last = log.last_position();
  if (!last)
    return std::move(last.error());
  read_options ro;
  ro.up_to = f.to;
  ro.stream = f.stream;
  bool tail = !f.from;
  if (f.from)
    ro.after = *f.from - 1;
  else if (!f.stream && !f.type)
    // Unfiltered tail: only the last `limit` positions can show.
    ro.after = std::max<int64_t>(0, f.to.value_or(*last) - f.limit);
  std::deque<json> rows;
  bool truncated = false;
  auto stop = make_error(errc::invalid_argument, "limit reached");
  auto err = log.read(ro, [&](recorded_event&& rec) -> caf::error {
    if (f.type && rec.body.type != *f.type)
      return {};
    if (static_cast<int64_t>(rows.size()) == f.limit) {
      truncated = true;
      if (!tail)
        return stop;
      rows.pop_front();
    }
    rows.push_back(event_json(rec));
    return {};
  });
  if (err && !(truncated && !tail))
    return err;
  json events = json::array();
  for (auto& r : rows)
    events.push_back(std::move(r));
  return json{{"events", std::move(events)},
              {"last_position", *last},
              {"truncated", truncated}};
}

caf::expected<state::cluster_state> state_at(event_store& log, int64_t at,
                                             int64_t max_events) {
  if (at < 0)
    return make_error(errc::invalid_argument,
                      "at: a position is an integer >= 0, got "
                          + std::to_string(at));
  auto last = log.last_position();
  if (!last)
    return std::move(last.error());
  if (at > *last)
    return make_error(errc::invalid_argument,
                      "at: position " + std::to_string(at)
                          + " is past the end of the log (last position "
                          + std::to_string(*last) + ")");
  auto snap = log.latest_snapshot(at);
  if (!snap)
    return std::move(snap.error());
  auto from = *snap ? (*snap)->position : 0;
  if (at - from > max_events)
    return make_error(errc::invalid_argument,
                      "at: position " + std::to_string(at) + " needs "
                          + std::to_string(at - from)
                          + " events replayed after the nearest snapshot (at "
                          + std::to_string(from) + "); the limit is "
                          + std::to_string(max_events));
  return recover(log, true, nullptr, at);
}

} // namespace det::inspection
