#pragma once

// Time as policy/ sees it: always passed in by the caller (the actor's
// clock in production, a constant in tests), never read here.

#include <chrono>

namespace det::policy {

using timestamp = std::chrono::system_clock::time_point;
using duration = std::chrono::system_clock::duration;

} // namespace det::policy
