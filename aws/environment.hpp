#pragma once

// Reading environment variables through a function, so the credential chain
// and endpoint resolution can be tested without touching the process
// environment (which is not thread-safe to change).

#include <functional>
#include <optional>
#include <string>

namespace det::aws {

/// The value of a variable, or nullopt when unset. An empty value counts as
/// unset, as the AWS SDKs treat it.
using env_lookup =
    std::function<std::optional<std::string>(const std::string&)>;

/// getenv() of this process.
env_lookup process_environment();

} // namespace det::aws
