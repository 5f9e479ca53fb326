#include "store/recovery.hpp"

#include "messages/errc.hpp"

namespace det {

caf::expected<state::cluster_state> recover(event_store& log, bool use_snapshot,
                                            recovery_report* report,
                                            std::optional<int64_t> up_to) {
  state::cluster_state st;
  recovery_report rep;
  if (use_snapshot) {
    auto snap = log.latest_snapshot(up_to.value_or(INT64_MAX));
    if (!snap)
      return std::move(snap.error());
    if (*snap) {
      auto j = nlohmann::json::parse((*snap)->state, nullptr, false);
      if (j.is_discarded())
        return make_error(errc::corrupt_snapshot,
                          "snapshot at position "
                              + std::to_string((*snap)->position)
                              + " is not valid JSON");
      auto restored = state::from_snapshot(j);
      if (!restored)
        return make_error(errc::corrupt_snapshot,
                          "snapshot at position "
                              + std::to_string((*snap)->position) + ": "
                              + render(restored.error()));
      if (restored->position != (*snap)->position)
        return make_error(errc::corrupt_snapshot,
                          "snapshot stored at position "
                              + std::to_string((*snap)->position)
                              + " holds the state of position "
                              + std::to_string(restored->position));
      st = std::move(*restored);
      rep.snapshot_position = st.position;
    }
  }
  read_options ro;
  ro.after = st.position;
  ro.up_to = up_to;
  ro.parse_payloads = false;
  auto err = log.read(ro, [&](recorded_event&& rec) {
    ++rep.events_replayed;
    return state::apply(st, rec);
  });
  if (err)
    return err;
  if (report != nullptr)
    *report = rep;
  return st;
}

caf::error save_snapshot(event_store& log, const state::cluster_state& st,
                         size_t keep) {
  snapshot s;
  s.position = st.position;
  s.schema_version = state::snapshot_version;
  s.state = state::to_snapshot(st).dump();
  if (auto err = log.save_snapshot(s))
    return err;
  return log.prune_snapshots(keep);
}

} // namespace det
