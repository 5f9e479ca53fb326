#pragma once

// The checks of det-deploy's option values; each error names the flag and
// what is wrong with the value, and is errc::invalid_argument with the text
// to show the user. Pure.

#include <caf/error.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace det::deploy {

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
