#include "sim/log_trace.hpp"

#include "messages/errc.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

namespace det::sim {

namespace {

struct logged_experiment {
  std::string pool;
  std::string owner;
  int slots = 1;
};

struct logged_trial {
  int64_t experiment_id = 0;
  int64_t created_us = 0;
  int64_t ran_us = 0;
  int64_t placed_us = -1; ///< start of the run going on, -1 = none
  bool placed_once = false;
};

int64_t int_field(const nlohmann::json& j, const char* key, int64_t dflt) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : dflt;
}

std::string text_field(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

} // namespace

caf::error jobs_from_log(event_store& store, const std::string& pool,
                         trace& out) {
  std::map<int64_t, logged_experiment> experiments;
  std::map<int64_t, logged_trial> trials;
  int64_t last_us = 0;
  read_options opts;
  auto err = store.read(opts, [&](recorded_event&& e) -> caf::error {
    const auto& type = e.body.type;
    if (type != "experiment_submitted" && type != "trial_created"
        && type != "trial_placed" && type != "trial_exited")
      return caf::none;
    auto j = nlohmann::json::parse(e.body.payload, nullptr, false);
    if (!j.is_object())
      return make_error(errc::invalid_argument,
                        "event " + std::to_string(e.position)
                            + ": payload is not a JSON object");
    auto at = int_field(j, "at_us", 0);
    last_us = std::max(last_us, at);
    if (type == "experiment_submitted") {
      auto& x = experiments[int_field(j, "experiment_id", 0)];
      x.pool = text_field(j, "pool");
      x.owner = text_field(j, "owner");
      x.slots = static_cast<int>(int_field(j, "slots_per_trial", 1));
    } else if (type == "trial_created") {
      auto& t = trials[int_field(j, "trial_id", 0)];
      t.experiment_id = int_field(j, "experiment_id", 0);
      t.created_us = at;
    } else if (type == "trial_placed") {
      auto& t = trials[int_field(j, "trial_id", 0)];
      t.placed_us = at;
      t.placed_once = true;
    } else {
      auto& t = trials[int_field(j, "trial_id", 0)];
      if (t.placed_us >= 0)
        t.ran_us += at - t.placed_us;
      t.placed_us = -1;
    }
    return caf::none;
  });
  if (err)
    return err;
  out = trace{};
  int64_t origin = -1;
  for (const auto& [id, t] : trials)
    if (t.placed_once)
      origin = origin < 0 ? t.created_us : std::min(origin, t.created_us);
  for (auto& [id, t] : trials) {
    auto x = experiments.find(t.experiment_id);
    if (!t.placed_once || x == experiments.end()
        || (!pool.empty() && x->second.pool != pool))
      continue;
    if (t.placed_us >= 0)
      t.ran_us += last_us - t.placed_us;
    job j;
    j.submit_s = (t.created_us - origin) / 1000000;
    j.duration_s = (t.ran_us + 999999) / 1000000;
    j.gpus = x->second.slots;
    j.group = x->second.owner;
    if (j.duration_s <= 0 || j.gpus <= 0) {
      ++out.skipped;
      continue;
    }
    out.jobs.push_back(std::move(j));
  }
  out.origin_epoch_s = origin < 0 ? 0 : origin / 1000000;
  std::stable_sort(
      out.jobs.begin(), out.jobs.end(),
      [](const job& a, const job& b) { return a.submit_s < b.submit_s; });
  return caf::none;
}

} // namespace det::sim
