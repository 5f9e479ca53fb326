// apply_one for removing files from checkpoints:
// checkpoint_files_removal_requested marks completed, partially deleted or
// deleted checkpoints of an experiment as having a removal under way (with
// its globs); checkpoint_files_removed ends it: the resources left replace
// the checkpoint's, none left makes it deleted, different ones partially
// deleted. A uuid that is not a checkpoint of the experiment, or one being
// deleted, refuses the event.

#include "state/apply_detail.hpp"

#include <set>

namespace det::state::detail {

namespace {

bool removable(const std::string& state) {
  return state == "completed" || state == "partially_deleted"
         || state == "deleted";
}

// {path: size} with every size as text (a trial may report them either way).
nlohmann::json sizes_as_text(const nlohmann::json& resources) {
  nlohmann::json out = nlohmann::json::object();
  if (resources.is_object())
    for (const auto& [path, size] : resources.items())
      out[path] = size.is_string() ? size.get<std::string>() : size.dump();
  return out;
}

/// The copies of checkpoint `uuid` of experiment `exp` into `out`, or why
/// the event cannot apply.
verdict checkpoint_copies(cluster_state& s, int64_t exp,
                          const std::string& uuid,
                          std::vector<checkpoint_info*>& out) {
  if (s.experiments.count(exp) == 0)
    return "unknown experiment " + std::to_string(exp);
  out = copies_of(s, exp, uuid);
  if (out.empty())
    return "checkpoint " + quote(uuid) + " is not one of experiment "
           + std::to_string(exp);
  return {};
}

} // namespace

verdict apply_one(cluster_state& s,
                  const checkpoint_files_removal_requested& ev) {
  if (s.experiments.count(ev.experiment_id) == 0)
    return "unknown experiment " + std::to_string(ev.experiment_id);
  std::set<std::string> seen;
  std::vector<std::vector<checkpoint_info*>> found;
  for (const auto& uuid : ev.uuids) {
    if (!seen.insert(uuid).second)
      return "checkpoint " + quote(uuid) + " is listed twice";
    auto copies = copies_of(s, ev.experiment_id, uuid);
    if (copies.empty())
      return "checkpoint " + quote(uuid) + " is not one of experiment "
             + std::to_string(ev.experiment_id);
    if (!removable(copies.front()->state))
      return "checkpoint " + quote(uuid) + " is " + copies.front()->state;
    found.push_back(std::move(copies));
  }
  for (auto& copies : found)
    for (auto* c : copies) {
      c->removing_files = true;
      c->removing_globs = ev.globs;
    }
  return {};
}

verdict apply_one(cluster_state& s, const checkpoint_files_removed& ev) {
  std::vector<checkpoint_info*> copies;
  if (auto why = checkpoint_copies(s, ev.experiment_id, ev.uuid, copies);
      !why.empty())
    return why;
  if (!copies.front()->removing_files)
    return "checkpoint " + quote(ev.uuid) + " has no file removal under way";
  for (auto* c : copies) {
    c->removing_files = false;
    c->removing_globs.clear();
    if (!c->metadata.is_object())
      c->metadata = nlohmann::json::object();
    auto before =
        sizes_as_text(c->metadata.value("resources", nlohmann::json{}));
    // Every file gone: deleted, its list of files kept as it was (as
    // upstream's; a deleted checkpoint's size counts 0 anyway).
    if (ev.resources.empty()) {
      c->state = "deleted";
      continue;
    }
    if (!before.empty() && before != sizes_as_text(ev.resources))
      c->state = "partially_deleted";
    c->metadata["resources"] = ev.resources;
  }
  return {};
}

verdict apply_one(cluster_state& s, const checkpoint_metadata_set& ev) {
  std::vector<checkpoint_info*> copies;
  if (auto why = checkpoint_copies(s, ev.experiment_id, ev.uuid, copies);
      !why.empty())
    return why;
  for (auto* c : copies) {
    auto files = c->metadata.is_object()
                     ? c->metadata.value("resources", nlohmann::json())
                     : nlohmann::json();
    c->metadata = ev.metadata;
    if (!files.is_null())
      c->metadata["resources"] = std::move(files);
  }
  return {};
}

} // namespace det::state::detail
