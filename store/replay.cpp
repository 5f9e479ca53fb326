#include "store/replay.hpp"

#include "messages/errc.hpp"

#include <chrono>

namespace det::replay {

bool report::ok() const {
  if (!error.empty() || !broken_invariants.empty())
    return false;
  for (const auto& s : snapshots)
    if (!s.matches)
      return false;
  return true;
}

std::string first_difference(const nlohmann::json& a, const nlohmann::json& b,
                             const std::string& path) {
  if (a.type() != b.type())
    return path.empty() ? "/" : path;
  if (a.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      auto o = b.find(it.key());
      if (o == b.end())
        return path + "/" + it.key();
      auto d = first_difference(it.value(), *o, path + "/" + it.key());
      if (!d.empty())
        return d;
    }
    for (auto it = b.begin(); it != b.end(); ++it)
      if (!a.contains(it.key()))
        return path + "/" + it.key();
    return "";
  }
  if (a.is_array()) {
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
      auto d = first_difference(a[i], b[i], path + "/" + std::to_string(i));
      if (!d.empty())
        return d;
    }
    if (a.size() != b.size())
      return path + "/" + std::to_string(std::min(a.size(), b.size()));
    return "";
  }
  return a == b ? "" : (path.empty() ? "/" : path);
}

namespace {

snapshot_check compare(event_store& snaps, int64_t position,
                       const state::cluster_state& rebuilt) {
  snapshot_check out;
  out.position = position;
  auto snap = snaps.latest_snapshot(position);
  if (!snap) {
    out.detail = render(snap.error());
    return out;
  }
  if (!*snap || (*snap)->position != position) {
    out.detail = "snapshot disappeared while replaying";
    return out;
  }
  nlohmann::json stored;
  try {
    stored = nlohmann::json::parse((*snap)->state);
  } catch (const nlohmann::json::exception& e) {
    out.detail = std::string{"snapshot is not valid JSON: "} + e.what();
    return out;
  }
  auto decoded = state::from_snapshot(stored);
  if (!decoded) {
    out.detail = render(decoded.error());
    return out;
  }
  if (*decoded == rebuilt) {
    out.matches = true;
    return out;
  }
  auto diff = first_difference(stored, state::to_snapshot(rebuilt));
  out.detail = "differs from the state rebuilt from events 1.."
               + std::to_string(position) + (diff.empty() ? "" : " at " + diff);
  return out;
}

} // namespace

report run(event_store& log, event_store& snapshots, const options& opts) {
  report rep;
  auto start = std::chrono::steady_clock::now();
  std::vector<int64_t> snap_positions;
  if (opts.verify_snapshots && !opts.stream) {
    auto ps = snapshots.snapshot_positions();
    if (!ps) {
      rep.error = render(ps.error());
      return rep;
    }
    for (auto p : *ps)
      if (!opts.to || p <= *opts.to)
        snap_positions.push_back(p);
  }
  size_t next_snap = 0;
  state::cluster_state st;
  // Snapshots at position 0 reflect the empty state.
  while (next_snap < snap_positions.size() && snap_positions[next_snap] == 0)
    rep.snapshots.push_back(
        compare(snapshots, snap_positions[next_snap++], st));
  read_options ro;
  ro.up_to = opts.to;
  ro.stream = opts.stream;
  ro.parse_payloads = false;
  auto err = log.read(ro, [&](recorded_event&& rec) -> caf::error {
    auto ev = decode(rec);
    if (!ev)
      return std::move(ev.error());
    rep.last_position = rec.position;
    ++rep.events;
    ++rep.counts_by_type[rec.body.type];
    if (opts.stream)
      return {}; // one stream alone is not a state; decoding checks it
    if (auto e = state::apply(st, rec, std::move(*ev)))
      return e;
    if (opts.check_each) {
      auto broken = state::check_invariants(st);
      if (!broken.empty()) {
        for (auto& b : broken)
          rep.broken_invariants.push_back(
              "after position " + std::to_string(rec.position) + ": " + b);
        return make_error(errc::invariant_violated,
                          "invariants broken after position "
                              + std::to_string(rec.position));
      }
    }
    while (next_snap < snap_positions.size()
           && snap_positions[next_snap] == rec.position)
      rep.snapshots.push_back(
          compare(snapshots, snap_positions[next_snap++], st));
    return {};
  });
  if (err)
    rep.error = render(err);
  if (!opts.stream && rep.broken_invariants.empty())
    for (auto& b : state::check_invariants(st))
      rep.broken_invariants.push_back("at the end: " + b);
  // Snapshots past the last event describe events that are not in the log.
  for (; next_snap < snap_positions.size(); ++next_snap)
    rep.snapshots.push_back({snap_positions[next_snap], false,
                             rep.error.empty()
                                 ? "snapshot is past the last event ("
                                       + std::to_string(rep.last_position) + ")"
                                 : "not checked: replay stopped at the error"});
  rep.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return rep;
}

} // namespace det::replay
