#include "core/checkpoint_files.hpp"

#include "messages/errc.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <map>
#include <set>

namespace det {

namespace {

using nlohmann::json;

bool fn(const std::string& glob, const std::string& text) {
  return ::fnmatch(glob.c_str(), text.c_str(), 0) == 0;
}

} // namespace

caf::expected<std::vector<std::string>>
checkpoint_globs_of(const json& globs, const std::string& field) {
  std::vector<std::string> out;
  if (globs.is_null())
    return out;
  if (!globs.is_array())
    return make_error(errc::invalid_argument,
                      field + ": expected a list of globs");
  if (globs.size() > max_checkpoint_globs)
    return make_error(errc::invalid_argument,
                      field + ": at most "
                          + std::to_string(max_checkpoint_globs) + " globs");
  for (const auto& g : globs) {
    if (!g.is_string())
      return make_error(errc::invalid_argument,
                        field + ": each glob must be a string");
    auto text = g.get<std::string>();
    if (text.empty())
      return make_error(errc::invalid_argument,
                        field + ": a glob must not be empty");
    if (text.size() > max_checkpoint_glob_bytes)
      return make_error(errc::invalid_argument,
                        field + ": a glob is at most "
                            + std::to_string(max_checkpoint_glob_bytes)
                            + " bytes");
    if (std::any_of(text.begin(), text.end(), [](char c) {
          return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
        }))
      return make_error(errc::invalid_argument,
                        field + ": a glob must not hold control characters");
    if (text.front() == '/')
      return make_error(errc::invalid_argument,
                        field + ": glob '" + text
                            + "' is absolute; globs are relative to the "
                              "checkpoint's folder");
    // Upstream refuses ".." anywhere in a glob; so do we.
    if (text.find("..") != std::string::npos)
      return make_error(errc::invalid_argument,
                        field + ": glob '" + text + "' must not contain '..'");
    out.push_back(std::move(text));
  }
  return out;
}

bool checkpoint_glob_matches(const std::string& glob, const std::string& path) {
  if (path.empty() || glob.empty())
    return false;
  auto matches = [&glob](const std::string& p) {
    if (fn(glob, p))
      return true;
    return glob.rfind("**/", 0) == 0 && fn(glob.substr(3), p);
  };
  // The path itself, then each folder it lies in.
  if (matches(path))
    return true;
  for (auto slash = path.find('/'); slash != std::string::npos;
       slash = path.find('/', slash + 1))
    if (matches(path.substr(0, slash)))
      return true;
  return false;
}

caf::expected<std::vector<checkpoint_files_removal_requested>>
user_checkpoint_file_removal(const state::cluster_state& s,
                             const std::vector<std::string>& uuids,
                             const std::vector<std::string>& globs,
                             const std::string& username, int64_t now_us) {
  std::map<std::string,
           std::pair<const state::trial_info*, const state::checkpoint_info*>>
      index;
  for (const auto& [tid, t] : s.trials)
    for (const auto& c : t.checkpoints)
      index.emplace(c.uuid, std::pair{&t, &c});
  std::map<int64_t, checkpoint_files_removal_requested> by_exp;
  std::set<std::string> seen;
  std::vector<std::string> missing;
  for (const auto& uuid : uuids) {
    if (!seen.insert(uuid).second)
      continue;
    auto f = index.find(uuid);
    if (f == index.end()) {
      missing.push_back(uuid);
      continue;
    }
    const auto& [owner, found] = f->second;
    if (found->state == "deleting")
      return make_error(errc::invalid_argument, "checkpointUuids: checkpoint '"
                                                    + uuid
                                                    + "' is being deleted");
    if (found->removing_files)
      return make_error(errc::invalid_argument,
                        "checkpointUuids: checkpoint '" + uuid
                            + "' already has a file removal under way");
    auto& ev = by_exp[owner->experiment_id];
    ev.experiment_id = owner->experiment_id;
    ev.uuids.push_back(uuid);
    ev.globs = globs;
    ev.username = username;
    ev.at_us = now_us;
  }
  if (!missing.empty()) {
    std::sort(missing.begin(), missing.end());
    std::string names;
    for (const auto& m : missing)
      names += (names.empty() ? "" : ", ") + m;
    return make_error(errc::not_found,
                      "checkpointUuids: checkpoints " + names + " not found");
  }
  std::vector<checkpoint_files_removal_requested> out;
  for (auto& [id, ev] : by_exp)
    out.push_back(std::move(ev));
  return out;
}

caf::expected<checkpoint_metadata_set>
user_checkpoint_metadata(const state::cluster_state& s, const std::string& uuid,
                         nlohmann::json metadata, const std::string& username,
                         int64_t now_us) {
  if (!metadata.is_object())
    return make_error(errc::invalid_argument,
                      "checkpoint.metadata: expected an object");
  metadata.erase("resources");
  if (metadata.dump().size() > max_checkpoint_metadata_bytes)
    return make_error(errc::invalid_argument,
                      "checkpoint.metadata: at most "
                          + std::to_string(max_checkpoint_metadata_bytes)
                          + " bytes of JSON");
  for (const auto& [tid, t] : s.trials)
    for (const auto& c : t.checkpoints) {
      if (c.uuid != uuid)
        continue;
      if (c.state == "deleting" || c.state == "deleted")
        return make_error(errc::invalid_argument,
                          "checkpoint '" + uuid + "' is " + c.state);
      return checkpoint_metadata_set{t.experiment_id, uuid, std::move(metadata),
                                     username, now_us};
    }
  return make_error(errc::not_found, "checkpoint '" + uuid + "' not found");
}

std::vector<checkpoint_file_removal>
pending_checkpoint_file_removals(const state::cluster_state& s) {
  std::vector<checkpoint_file_removal> out;
  for (const auto& [tid, t] : s.trials)
    for (const auto& c : t.checkpoints)
      if (c.removing_files) {
        checkpoint_file_removal r{t.experiment_id, c.uuid, c.removing_globs,
                                  json::object()};
        if (auto e = s.experiments.find(t.experiment_id);
            e != s.experiments.end())
          r.storage =
              e->second.config.value("checkpoint_storage", json::object());
        out.push_back(std::move(r));
      }
  return out;
}

} // namespace det
