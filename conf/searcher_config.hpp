#pragma once

// The searcher block of an experiment config: which search method creates
// the trials (policy/ implements them) and the fields each one needs.
// Names are upstream 0.38's: single, random, grid, adaptive_asha,
// async_halving. The removed ones (custom, adaptive, adaptive_simple,
// sync_halving) are refused as upstream 0.38 refuses them.

#include "conf/reader.hpp"

#include <optional>
#include <string>
#include <vector>

namespace det::conf {

/// A training length: {batches: N}, {records: N}, {epochs: N}, or a plain
/// integer (the Core API's own units).
struct length {
  enum class unit { batches, records, epochs, unitless };
  unit kind = unit::batches;
  int64_t units = 0;
};

const char* to_string(length::unit x);

/// Reads the length at `key` of `r` (absent: nullopt). `allow_plain` lets a
/// bare integer stand for unitless. Exactly one of batches/records/epochs.
std::optional<length> read_length(object_reader& r, const char* key,
                                  bool allow_plain);

struct searcher_config {
  std::string name = "single";
  std::string metric;
  bool smaller_is_better = true;
  std::optional<int64_t> source_trial_id;
  std::optional<std::string> source_checkpoint_uuid;
  std::optional<length> max_length;   ///< deprecated upstream, still honoured
  int64_t max_trials = 1;             ///< random, adaptive_asha
  int64_t max_concurrent_trials = 16; ///< 0 = no limit; single: 1
  // adaptive_asha / async_halving
  std::string time_metric;
  std::optional<int64_t> max_time;
  std::string mode = "standard"; ///< standard | aggressive | conservative
  double divisor = 4;
  int64_t max_rungs = 5;
  std::vector<int64_t> bracket_rungs;
  bool stop_once = false;
};

/// Reads and validates the searcher object `r`: name required; metric
/// required for every searcher (upstream 0.38); random and adaptive_asha
/// need max_trials; adaptive_asha and async_halving need max_time with
/// time_metric, or the legacy max_length; divisor > 1.
void read_searcher(object_reader& r, searcher_config& out);

} // namespace det::conf
