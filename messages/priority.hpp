#pragma once

// Upstream's scheduling priority runs from 1 (most urgent) to 99. This is
// the one default: an experiment whose config and pool name none, the
// master's scheduler.default_priority when master.yaml names none, and what
// a record made before priorities were stored means.

#include <cstdint>

namespace det {

constexpr int32_t default_priority = 42;

} // namespace det
