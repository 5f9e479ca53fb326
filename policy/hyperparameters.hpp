#pragma once

// The hyperparameter space of an experiment config, as upstream writes it:
// each name maps to {type: const|int|double|log|categorical, ...} (a bare
// value is a const; an object without "type" nests more names). Parsed
// once per experiment; grid points and random samples are plain JSON
// objects with the same nesting, ready for a trial's hparams.

#include "policy/rng.hpp"

#include <caf/expected.hpp>

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace det::policy {

struct hparam {
  enum class kind { constant, integer, real, log, categorical, nested };
  std::string name;
  kind type = kind::constant;
  nlohmann::json value;             // constant
  double minval = 0, maxval = 0;    // integer, real, log (exponents for log)
  double base = 10;                 // log
  std::optional<int> count;         // grid points for integer, real, log
  std::vector<nlohmann::json> vals; // categorical
  std::vector<hparam> children;     // nested
};

using hparam_space = std::vector<hparam>; // sorted by name

/// Fails with errc::invalid_argument naming the field ("hyperparameters.lr
/// .maxval: ...") when the space is malformed.
[[nodiscard]] caf::expected<hparam_space>
parse_hyperparameters(const nlohmann::json& j);

/// The grid's points in a fixed order (the last name varies fastest).
/// Fails when a ranged hyperparameter has no count or the grid has more
/// than `max_points` points.
[[nodiscard]] caf::expected<std::vector<nlohmann::json>>
grid_points(const hparam_space& space, size_t max_points = 100000);

/// One random point: int uniform in [minval, maxval], double uniform in
/// [minval, maxval), log base^uniform(minval, maxval), categorical uniform.
[[nodiscard]] nlohmann::json sample(const hparam_space& space, rng& r);

} // namespace det::policy
