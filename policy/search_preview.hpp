#pragma once

// `det preview-search`: what a searcher would do, without running
// anything. The searcher of the config runs against simulated trials: each
// trains to the length it is asked for and reports a validation value drawn
// from a generator seeded by the config's seed, until the searcher shuts
// down. Trials are grouped by the length they trained to, as upstream's
// summary does. Pure; a bounded number of steps.

#include <caf/expected.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>

namespace det::policy {

/// Upstream's v1SearchSummary: {"config": <the searcher block>,
/// "trials": [{"count": N, "unit": {"name": "batches", "value": L,
/// "maxLength": false}}, ...]} in increasing length; a trial that decides
/// its own length (no max_length) is {"unit": {"maxLength": true}}.
/// errc::invalid_argument names a bad field of `config` (the whole
/// experiment config), or says the search is too large to preview.
[[nodiscard]] caf::expected<nlohmann::json>
preview_search(const nlohmann::json& config, uint64_t seed);

} // namespace det::policy
