#include "store/memory_event_store.hpp"

#include "messages/errc.hpp"
#include "store/append_plan.hpp"

#include <chrono>

namespace det {

namespace {

int64_t now_us() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch())
      .count();
}

} // namespace

std::vector<caf::expected<append_result>>
memory_event_store::append_many(const std::vector<append_request>& requests) {
  std::vector<caf::expected<append_result>> out;
  out.reserve(requests.size());
  if (fail_next_) {
    fail_next_ = false;
    for (size_t i = 0; i < requests.size(); ++i)
      out.emplace_back(make_error(errc::store_unavailable,
                                  "memory store: injected failure"));
    return out;
  }
  auto current = [this](const std::string& s) {
    auto i = versions_.find(s);
    return i == versions_.end() ? int64_t{0} : i->second;
  };
  auto now = now_us();
  for (const auto& req : requests) {
    tentative_versions tentative;
    std::vector<int64_t> versions;
    if (auto err = plan_append(req, current, tentative, versions)) {
      out.emplace_back(std::move(err));
      continue;
    }
    append_result res;
    res.first_position = static_cast<int64_t>(events_.size()) + 1;
    for (size_t i = 0; i < req.events.size(); ++i) {
      const auto& ev = req.events[i];
      recorded_event rec{static_cast<int64_t>(events_.size()) + 1, ev.stream,
                         versions[i], ev.body, now};
      events_.push_back(std::move(rec));
    }
    for (auto& [stream, v] : tentative)
      versions_[stream] = v;
    res.last_position = static_cast<int64_t>(events_.size());
    out.emplace_back(res);
  }
  return out;
}

caf::error memory_event_store::read(const read_options& opts,
                                    const event_visitor& visit) {
  auto last = static_cast<int64_t>(events_.size());
  if (opts.up_to && *opts.up_to < last)
    last = *opts.up_to;
  for (auto pos = opts.after + 1; pos <= last; ++pos) {
    const auto& rec = events_[static_cast<size_t>(pos - 1)];
    if (opts.stream && rec.stream != *opts.stream)
      continue;
    auto copy = rec;
    if (auto err = visit(std::move(copy)))
      return err;
  }
  return {};
}

caf::error memory_event_store::read_fields(const field_query& q,
                                           const fields_visitor& visit) {
  std::vector<std::string> values;
  for (const auto& rec : events_) {
    if (rec.stream != q.stream || rec.body.type != q.type)
      continue;
    auto payload = nlohmann::json::parse(rec.body.payload, nullptr, false);
    values.clear();
    for (const auto& f : q.fields) {
      auto i = payload.is_object() ? payload.find(f) : payload.end();
      values.push_back(payload.is_object() && i != payload.end() ? i->dump()
                                                                 : "");
    }
    if (auto err = visit(rec.position, values))
      return err;
  }
  return {};
}

caf::expected<int64_t> memory_event_store::last_position() {
  return static_cast<int64_t>(events_.size());
}

caf::expected<int64_t>
memory_event_store::stream_version(const std::string& stream) {
  auto i = versions_.find(stream);
  return i == versions_.end() ? int64_t{0} : i->second;
}

caf::error memory_event_store::save_snapshot(const snapshot& snap) {
  auto copy = snap;
  copy.created_at_us = now_us();
  snapshots_[snap.position] = {copy, checksum(snap.state)};
  return {};
}

caf::expected<std::optional<snapshot>>
memory_event_store::latest_snapshot(int64_t at_most) {
  auto i = snapshots_.upper_bound(at_most);
  if (i == snapshots_.begin())
    return std::optional<snapshot>{};
  --i;
  const auto& [snap, sum] = i->second;
  if (checksum(snap.state) != sum)
    return make_error(errc::corrupt_snapshot, "snapshot at position "
                                                  + std::to_string(i->first)
                                                  + ": checksum mismatch");
  return std::optional<snapshot>{snap};
}

caf::expected<std::vector<int64_t>> memory_event_store::snapshot_positions() {
  std::vector<int64_t> out;
  for (const auto& kv : snapshots_)
    out.push_back(kv.first);
  return out;
}

caf::error memory_event_store::prune_snapshots(size_t keep) {
  while (snapshots_.size() > keep)
    snapshots_.erase(snapshots_.begin());
  return {};
}

void memory_event_store::corrupt_snapshot(int64_t position) {
  auto i = snapshots_.find(position);
  if (i != snapshots_.end() && !i->second.first.state.empty())
    i->second.first.state[0] ^= 0x20;
}

} // namespace det
