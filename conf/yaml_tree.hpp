#pragma once

// Configuration text -> one common tree. master.yaml and agent.yaml are YAML
// files; the det CLI posts the experiment config as YAML text inside a JSON
// request. Everything in conf/ validates an nlohmann::json tree, so YAML is
// converted here once, and JSON text (a subset of YAML) takes the same path.
//
// Scalar typing follows YAML 1.2's core schema as Go's yaml library (and so
// the upstream master) sees it: an unquoted 10 is an integer, 1.5 a number,
// true/false a boolean, ~/null/empty a null; anything quoted stays a string.
// yaml-cpp's exceptions stop here.

#include "messages/errc.hpp"

#include <caf/expected.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace det::conf {

/// The tree of a YAML (or JSON) document. An empty document is an empty
/// object. Fails with errc::invalid_argument "not valid yaml: <reason> at
/// line L, column C" on a syntax error, or on a mapping key that is not a
/// scalar.
[[nodiscard]] caf::expected<nlohmann::json> parse_tree(std::string_view text);

/// `tree` as block-style YAML that parse_tree reads back to `tree`: a
/// string that would read as another type ("10", "true", "") is quoted.
/// What `det-master --check-config` prints.
std::string to_yaml(const nlohmann::json& tree);

/// The whole content of the file at `path`; errc::not_found when it cannot
/// be read.
[[nodiscard]] caf::expected<std::string>
read_text_file(const std::string& path);

} // namespace det::conf
