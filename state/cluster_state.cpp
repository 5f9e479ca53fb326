#include "state/cluster_state.hpp"

#include "messages/errc.hpp"

namespace det::state {

caf::error apply(cluster_state& s, const recorded_event& meta,
                 const domain_event& ev) {
  if (meta.position != s.position + 1)
    return make_error(errc::invalid_event,
                      "event at position " + std::to_string(meta.position)
                        + " does not follow position "
                        + std::to_string(s.position));
  s.position = meta.position;
  ++s.applied_by_type[type_name_of(ev)];
  return {};
}

caf::error apply(cluster_state& s, const recorded_event& rec) {
  auto ev = decode(rec);
  if (!ev)
    return std::move(ev.error());
  return apply(s, rec, *ev);
}

std::vector<std::string> check_invariants(const cluster_state&) {
  return {};
}

nlohmann::json to_snapshot(const cluster_state& s) {
  return {{"position", s.position}, {"applied_by_type", s.applied_by_type}};
}

caf::expected<cluster_state> from_snapshot(const nlohmann::json& j) {
  try {
    cluster_state s;
    s.position = j.at("position").get<int64_t>();
    s.applied_by_type
      = j.at("applied_by_type").get<std::map<std::string, int64_t>>();
    return s;
  } catch (const nlohmann::json::exception& e) {
    return make_error(errc::corrupt_snapshot,
                      std::string{"snapshot does not decode: "} + e.what());
  }
}

} // namespace det::state
