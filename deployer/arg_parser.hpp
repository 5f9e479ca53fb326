#pragma once

// The small command-line machinery det-deploy's options are built on: a
// table of option specs (name, value placeholder, help, setter), a parser
// that feeds them ("--name value", "--name=value", switches) and the help
// text made from the same table, so the two cannot drift apart; and value
// checks whose errors name the flag. Every error is errc::invalid_argument
// with the text to show the user. Pure.

#include <caf/error.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace det::deploy {

using setter = std::function<caf::error(const std::string&)>;

struct option_spec {
  std::string name;
  /// Empty for a switch (no value).
  std::string metavar;
  std::string help;
  setter set;
};

/// Feeds args[first..] to the specs; fails on the first unknown argument,
/// missing value or value a setter refuses.
[[nodiscard]] caf::error parse_options(const std::vector<std::string>& args,
                                       size_t first,
                                       const std::vector<option_spec>& specs);

/// "options:" and each spec with its help wrapped to 78 columns.
std::string describe_options(const std::vector<option_spec>& specs);

/// errc::invalid_argument with `msg`.
caf::error bad(const std::string& msg);

std::string join(const std::vector<std::string>& items,
                 const std::string& sep = ", ");

/// `value` must be one of `allowed`; the error lists them.
[[nodiscard]] caf::error one_of(const std::string& flag,
                                const std::string& value,
                                const std::vector<std::string>& allowed);

/// `value` must match the regular expression `pattern`; the error says it
/// is not `what`.
[[nodiscard]] caf::error matches(const std::string& flag,
                                 const std::string& value, const char* pattern,
                                 const std::string& what);

/// A whole number of at least `min`.
[[nodiscard]] caf::error to_int(const std::string& flag,
                                const std::string& value, int min, int& out);

/// A Go duration ("10m", "1h30m"); a bare number is seconds.
[[nodiscard]] caf::error to_duration(const std::string& flag,
                                     const std::string& value,
                                     std::chrono::milliseconds& out);

/// An IPv4 CIDR range ("203.0.113.0/24").
[[nodiscard]] caf::error check_cidr(const std::string& flag,
                                    const std::string& value);

} // namespace det::deploy
