#include "conf/searcher_config.hpp"

namespace det::conf {

using nlohmann::json;

const char* to_string(length::unit x) {
  switch (x) {
  case length::unit::batches:
    return "batches";
  case length::unit::records:
    return "records";
  case length::unit::epochs:
    return "epochs";
  case length::unit::unitless:
    return "units";
  }
  return "batches";
}

std::optional<length> read_length(object_reader& r, const char* key,
                                  bool allow_plain) {
  auto* v = r.raw(key);
  if (v == nullptr)
    return std::nullopt;
  if (allow_plain && as_integer(*v)) {
    auto n = r.opt_integer(key, 0);
    if (!n)
      return std::nullopt;
    return length{length::unit::unitless, *n};
  }
  const char* shape = allow_plain
                          ? "an integer or an object with one of \"batches\", "
                            "\"records\" or \"epochs\""
                          : "an object with one of \"batches\", \"records\" or "
                            "\"epochs\"";
  if (!v->is_object() || v->size() != 1) {
    r.fail(key, std::string{"expected "} + shape + ", got "
                    + (v->is_object() ? v->dump() : describe(*v)));
    return std::nullopt;
  }
  object_reader lr{*v, r.path_of(key), r.diag()};
  std::optional<length> out;
  for (auto u :
       {length::unit::batches, length::unit::records, length::unit::epochs}) {
    if (lr.has(to_string(u))) {
      if (auto n = lr.opt_integer(to_string(u), 0))
        out = length{u, *n};
    }
  }
  lr.finish();
  return out;
}

void read_searcher(object_reader& r, searcher_config& out) {
  static const std::set<std::string> removed = {
      "custom", "adaptive", "adaptive_simple", "sync_halving", "pbt"};
  if (!r.has("name")) {
    r.fail("name", "required (one of 'single', 'random', 'grid', "
                   "'adaptive_asha', 'async_halving')");
    r.allow_all();
    return;
  }
  if (auto n = r.opt_str("name"); n && removed.count(*n)) {
    r.fail("name", "the '" + *n
                       + "' searcher has been removed and is not "
                         "valid for new experiments");
    r.allow_all();
    return;
  }
  out.name =
      r.choice("name", "single",
               {"single", "random", "grid", "adaptive_asha", "async_halving"});
  bool asha = out.name == "adaptive_asha" || out.name == "async_halving";
  out.metric = r.required_str("metric", ("required for " + out.name).c_str());
  out.smaller_is_better = r.boolean("smaller_is_better", true);
  out.source_trial_id = r.opt_integer("source_trial_id", 1);
  out.source_checkpoint_uuid = r.opt_str("source_checkpoint_uuid");
  if (out.source_trial_id && out.source_checkpoint_uuid)
    r.fail_here("give source_trial_id or source_checkpoint_uuid, not both");
  out.max_length = read_length(r, "max_length", true);

  if (out.name == "single") {
    out.max_trials = 1;
    out.max_concurrent_trials = 1;
    r.allow({"max_trials", "max_concurrent_trials"});
  } else {
    if (out.name == "grid") {
      r.allow({"max_trials"});
    } else if (!r.has("max_trials")) {
      r.fail("max_trials", "required for " + out.name);
      r.allow({"max_trials"});
    } else {
      out.max_trials = r.integer("max_trials", 1, 1);
    }
    out.max_concurrent_trials = r.integer("max_concurrent_trials", 16, 0);
  }
  if (asha) {
    out.time_metric = r.str("time_metric", "");
    out.max_time = r.opt_integer("max_time", 1);
    bool modern = out.max_time && !out.time_metric.empty();
    if (!modern && !out.max_length)
      r.fail_here("the " + out.name
                  + " searcher requires max_time and "
                    "time_metric to be set (or the legacy max_length)");
    else if (out.max_time.has_value() != !out.time_metric.empty())
      r.fail_here("max_time and time_metric go together");
    out.mode = r.choice("mode", "standard",
                        {"standard", "aggressive", "conservative"});
    out.divisor = r.number("divisor", 4);
    if (out.divisor <= 1)
      r.fail("divisor", "must be greater than 1");
    out.max_rungs = r.integer("max_rungs", 5, 1);
    if (auto* br = r.raw("bracket_rungs")) {
      if (!br->is_array())
        r.fail("bracket_rungs",
               "expected a list of integers, got " + describe(*br));
      else
        for (size_t i = 0; i < br->size(); ++i) {
          auto n = as_integer((*br)[i]);
          if (!n || *n < 1)
            r.diag().error(index_path(r.path_of("bracket_rungs"), i),
                           "expected a positive integer, got "
                               + describe((*br)[i]));
          else
            out.bracket_rungs.push_back(*n);
        }
    }
    out.stop_once = r.boolean("stop_once", false);
  }
  r.finish();
}

} // namespace det::conf
