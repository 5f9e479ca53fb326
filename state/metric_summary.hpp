#pragma once

// A trial's summary of one metric group, as upstream shows it in a trial's
// `summaryMetrics`: per metric name {"type", "count", "sum", "min", "max",
// "mean", "last"} for numbers, {"type", "last"} for anything else. Folded
// report by report in apply (state/apply_trials.cpp), so replay builds it
// and it never needs the history. Pure and total; any thread.
//
// As upstream: a string "NaN", "Infinity" or "-Infinity" is a number, and
// a non-finite result is stored as that string (the snapshot stays JSON);
// an ISO-8601 time string is a "date"; a metric whose type changes
// becomes a "string" without statistics. Unlike upstream, a metric absent
// from a report keeps its `last` (upstream sets it to null).

#include <nlohmann/json.hpp>

#include <cstddef>

namespace det::state {

/// The metric groups whose summaries a trial keeps; reports of further
/// groups are still logged and served from the history. Bounds what one
/// trial can make every replica hold.
constexpr size_t max_summarized_groups = 100;

/// Folds one report's `metrics` (an object) into `summary` (an object of
/// metric name to its summary; null counts as empty).
void fold_metric_summary(nlohmann::json& summary,
                         const nlohmann::json& metrics);

} // namespace det::state
