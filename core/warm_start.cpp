#include "core/warm_start.hpp"

#include "messages/errc.hpp"
#include "state/queries.hpp"

namespace det {

namespace {

using nlohmann::json;

const state::checkpoint_info* find_checkpoint(const state::cluster_state& s,
                                              const std::string& uuid) {
  for (const auto& [id, t] : s.trials)
    for (const auto& c : t.checkpoints)
      if (c.uuid == uuid)
        return &c;
  return nullptr;
}

caf::expected<std::optional<state::checkpoint_info>>
completed(const state::checkpoint_info& c, const std::string& field) {
  if (c.state != "completed")
    return make_error(errc::invalid_argument,
                      field + ": checkpoint '" + c.uuid + "' is " + c.state);
  return std::optional<state::checkpoint_info>{c};
}

} // namespace

caf::expected<std::optional<state::checkpoint_info>>
warm_start_checkpoint(const state::cluster_state& s, const json& config) {
  auto searcher = config.value("searcher", json::object());
  if (!searcher.is_object())
    return std::optional<state::checkpoint_info>{};
  if (auto u = searcher.find("source_checkpoint_uuid");
      u != searcher.end() && u->is_string()) {
    const auto& uuid = u->get_ref<const std::string&>();
    auto c = find_checkpoint(s, uuid);
    if (c == nullptr)
      return make_error(errc::not_found,
                        "searcher.source_checkpoint_uuid: no checkpoint '"
                            + uuid + "'");
    return completed(*c, "searcher.source_checkpoint_uuid");
  }
  if (auto t = searcher.find("source_trial_id");
      t != searcher.end() && t->is_number_integer()) {
    auto id = t->get<int64_t>();
    auto trial = state::find_trial(s, id);
    if (trial == nullptr)
      return make_error(errc::not_found, "searcher.source_trial_id: no trial "
                                             + std::to_string(id));
    if (!trial->latest_checkpoint)
      return make_error(errc::invalid_argument,
                        "searcher.source_trial_id: trial " + std::to_string(id)
                            + " has no checkpoint");
    // The copy in the list holds the checkpoint's current state.
    auto c = find_checkpoint(s, trial->latest_checkpoint->uuid);
    return completed(c != nullptr ? *c : *trial->latest_checkpoint,
                     "searcher.source_trial_id");
  }
  return std::optional<state::checkpoint_info>{};
}

} // namespace det
