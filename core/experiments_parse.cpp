// An experiment edit parsed from its JSON (core/experiments_parse.hpp).

#include "core/experiments_parse.hpp"

#include "core/record_args.hpp"
#include "messages/errc.hpp"

#include <cmath>
#include <cstdint>

namespace det {

namespace {

using namespace det::record_args;
using nlohmann::json;

std::vector<std::string> edit_labels_of(const json& v) {
  if (!v.is_array() || v.size() > 1000)
    refuse(errc::invalid_argument,
           "labels: expected a list of at most 1000 labels");
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i)
    out.push_back(
        text_value("labels[" + std::to_string(i) + "]", v[i], name_rules));
  return out;
}

/// A client's value or key as a refusal quotes it: at most 64 bytes of
/// UTF-8 without control characters, however long or odd the original.
std::string edit_value_shown(const json& v) {
  return util::fit_text(v.dump(-1, ' ', true), {64, false, true});
}
std::string edit_key_shown(const std::string& key) {
  return util::fit_text(key, {64, false, true});
}

resources_edit resources_edit_of(const json& r, const std::string& at) {
  auto field = [&](const std::string& key) {
    return at.empty() ? edit_key_shown(key) : at + "." + edit_key_shown(key);
  };
  if (!r.is_object())
    refuse(errc::invalid_argument, (at.empty() ? std::string{"resources"} : at)
                                       + ": expected an object");
  resources_edit out;
  for (const auto& [key, v] : r.items()) {
    if (v.is_null())
      continue;
    if (key == "priority") {
      if (!v.is_number_integer() || v.get<int64_t>() < 1
          || v.get<int64_t>() > 99)
        refuse(errc::invalid_argument,
               field(key)
                   + ": expected a whole number from 1 (first) to 99, not "
                   + edit_value_shown(v));
      out.priority = v.get<int32_t>();
    } else if (key == "weight") {
      if (!v.is_number() || !(v.get<double>() > 0.0)
          || !std::isfinite(v.get<double>()))
        refuse(errc::invalid_argument,
               field(key) + ": expected a positive number, not "
                   + edit_value_shown(v));
      out.weight = v.get<double>();
    } else if (key == "maxSlots" || key == "max_slots") {
      if (!v.is_number_integer() || v.get<int64_t>() < 0
          || v.get<int64_t>() > INT32_MAX)
        refuse(errc::invalid_argument,
               field(key)
                   + ": expected a whole number of slots (0 = no limit), not "
                   + edit_value_shown(v));
      out.max_slots = v.get<int32_t>();
    } else {
      refuse(errc::invalid_argument,
             field(key)
                 + ": not a field that can be changed (priority, weight, "
                   "maxSlots)");
    }
  }
  return out;
}

gc_counts_edit gc_counts_edit_of(const json& c) {
  if (!c.is_object())
    refuse(errc::invalid_argument, "checkpointStorage: expected an object");
  gc_counts_edit out;
  for (const auto& [key, v] : c.items()) {
    std::optional<int64_t>* field =
        key == "saveExperimentBest" ? &out.save_experiment_best
        : key == "saveTrialBest"    ? &out.save_trial_best
        : key == "saveTrialLatest"  ? &out.save_trial_latest
                                    : nullptr;
    if (field == nullptr)
      refuse(errc::invalid_argument,
             "checkpointStorage." + edit_key_shown(key)
                 + ": not a field that can be changed (saveExperimentBest, "
                   "saveTrialBest, saveTrialLatest)");
    if (v.is_null())
      continue;
    if (!v.is_number_integer() || v.get<int64_t>() < 0
        || v.get<int64_t>() > INT32_MAX)
      refuse(errc::invalid_argument,
             "checkpointStorage." + key
                 + ": expected a whole number from 0, not "
                 + edit_value_shown(v));
    *field = v.get<int64_t>();
  }
  return out;
}

} // namespace

caf::expected<experiment_edit> parse_experiment_edit(int64_t id,
                                                     const json& patch) {
  if (!patch.is_object())
    return make_error(errc::invalid_argument,
                      "the patch must be a JSON object");
  return caught<experiment_edit>([&] {
    experiment_edit c;
    c.experiment_id = id;
    for (const auto& [key, v] : patch.items()) {
      if (v.is_null())
        continue;
      if (key == "id") {
        if (!v.is_number_integer() || v.get<int64_t>() != id)
          refuse(errc::invalid_argument, "id: the patch names experiment "
                                             + edit_value_shown(v) + ", not "
                                             + std::to_string(id));
      } else if (key == "name") {
        c.name = text_value(key, v, name_rules);
      } else if (key == "description") {
        c.description = text_value(key, v, prose_rules);
      } else if (key == "notes") {
        c.notes = text_value(key, v, notes_rules);
      } else if (key == "labels") {
        c.labels = edit_labels_of(v);
      } else if (key != "resources" && key != "checkpointStorage") {
        refuse(errc::invalid_argument,
               edit_key_shown(key)
                   + ": not a field of an experiment that can be edited");
      }
    }
    // Checked after the other fields, as their refusals come first.
    if (auto g = patch.find("checkpointStorage");
        g != patch.end() && !g->is_null())
      c.checkpoint_storage = gc_counts_edit_of(*g);
    if (auto r = patch.find("resources"); r != patch.end() && !r->is_null())
      c.resources = resources_edit_of(*r, "resources");
    return c;
  });
}

caf::expected<resources_edit> parse_resources_edit(const json& r,
                                                   const std::string& at) {
  return caught<resources_edit>([&] { return resources_edit_of(r, at); });
}

caf::expected<gc_counts_edit> parse_gc_counts_edit(const json& c) {
  return caught<gc_counts_edit>([&] { return gc_counts_edit_of(c); });
}

} // namespace det
