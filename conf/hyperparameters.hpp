#pragma once

// The hyperparameters block of an experiment config: name -> a constant,
// a range (int, double, log), a categorical choice, or a nested block.
// The searchers in policy/ sample from these; trials see plain values.

#include "conf/reader.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace det::conf {

struct named_hyperparameter;

struct hyperparameter {
  enum class kind {
    constant,
    int_range,
    double_range,
    log_range,
    categorical,
    nested
  };
  kind type = kind::constant;
  nlohmann::json val; ///< constant
  double minval = 0;  ///< ranges (log: exponents)
  double maxval = 0;
  double base = 10;                 ///< log
  std::optional<int64_t> count;     ///< ranges: grid points
  std::vector<nlohmann::json> vals; ///< categorical
  std::vector<named_hyperparameter> nested;
};

struct named_hyperparameter {
  std::string name;
  hyperparameter hp;
};

/// Reads the hyperparameters object `r`. A plain value is a constant (and is
/// rewritten to {type: const, val} in the tree, as upstream stores it); an
/// object with `type` is typed; an object without `type` is nested. Ranges
/// need minval < maxval (integers for int); log needs base > 0;
/// categorical needs a non-empty vals.
std::vector<named_hyperparameter> read_hyperparameters(object_reader& r);

/// Whether every range hyperparameter (at any depth) has a count; the name
/// path of the first that has none goes to `missing`.
bool all_ranges_have_count(const std::vector<named_hyperparameter>& hps,
                           std::string& missing,
                           const std::string& prefix = "");

} // namespace det::conf
