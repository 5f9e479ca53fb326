// The snapshot codec: cluster_state <-> JSON. The form is flat:
// {"snapshot_version", "position", "applied_by_type", "cluster_id",
//  "masters_started", "pools": [...], "agents": [...], "instances": [...],
//  "spot_requests": [...], "experiments": [...], "trials": [...],
//  "users": [...], "sessions": [{"token_hash", "username"}]}
// (maps as lists of records, each carrying its key). Each record's members
// are its fields() (state/model_fields.hpp), stored as
// state/snapshot_codec.hpp says. The allocation index is rebuilt, not
// stored. Reading checks every field's type, names the path of the first bad
// one, and then checks the invariants, so a snapshot that decodes but does
// not hold together is refused too.

#include "state/cluster_state.hpp"

#include "messages/errc.hpp"
#include "messages/json_fields.hpp"
#include "state/snapshot_codec.hpp"

namespace det::state {

using nlohmann::json;

nlohmann::json to_snapshot(const cluster_state& s) {
  auto out = codec::write(s);
  out["snapshot_version"] = snapshot_version;
  return out;
}

caf::expected<cluster_state> from_snapshot(const nlohmann::json& j) {
  auto corrupt = [](const std::string& why) {
    return make_error(errc::corrupt_snapshot, "snapshot: " + why);
  };
  cluster_state s;
  try {
    require_object(j, "snapshot");
    auto version = get_field<int32_t>(j, "snapshot_version");
    if (version != snapshot_version)
      return corrupt("snapshot_version " + std::to_string(version)
                     + " is not supported (this binary reads "
                     + std::to_string(snapshot_version) + ")");
    codec::read(j, s);
  } catch (const field_error& e) {
    return corrupt(e.what());
  } catch (const json::exception& e) {
    return corrupt(e.what());
  }
  auto broken = check_invariants(s);
  if (!broken.empty())
    return corrupt(
        "broken invariant: " + broken.front()
        + (broken.size() > 1
               ? " (and " + std::to_string(broken.size() - 1) + " more)"
               : ""));
  return s;
}

} // namespace det::state
