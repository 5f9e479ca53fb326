#pragma once

// det-agent's log: one line per call on stderr, "<UTC time> <level>
// <message>", safe from any thread. Callers never pass secrets (the agent
// token, session tokens) in a message.

#include <string>
#include <string_view>

namespace det::agent {

enum class log_level { debug, info, warn, error };

/// Lines below `min` are dropped; "debug" | "info" | "warn" | "error",
/// anything else means info.
void set_log_level(std::string_view min);

void log(log_level level, const std::string& message);

} // namespace det::agent
