// master.yaml as det-master reads it at start-up: parse and validate
// (conf::parse_master_config), then what main() derives from a config that
// passed (experiment defaults, pool capacities, the redacted view behind
// GET /api/v1/master/config). Any input must give a config or an error,
// never a crash, a hang or an exception.

#include "conf/capacity.hpp"
#include "conf/experiment_config.hpp"
#include "conf/master_config.hpp"
#include "conf/redact.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text{reinterpret_cast<const char*>(data), size};
  auto cfg = det::conf::parse_master_config(text);
  if (!cfg)
    return 0;
  auto defaults = det::conf::experiment_defaults_from(*cfg);
  (void)defaults;
  for (const auto& pool : cfg->resource_pools)
    (void)det::conf::max_capacity(pool);
  (void)det::conf::redacted_config(*cfg).dump();
  return 0;
}
