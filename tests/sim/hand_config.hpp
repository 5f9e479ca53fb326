#pragma once

// The configuration of det-sim's hand-checked cases: 8-GPU instances that
// boot in exactly 180 s at $10 an hour, no faults.

#include "sim/sim_config.hpp"

namespace det::sim::test {

inline sim_config hand_config() {
  sim_config c;
  c.gpus_per_instance = 8;
  c.boot_s = 180;
  c.price_per_hour = 10;
  return c;
}

} // namespace det::sim::test
