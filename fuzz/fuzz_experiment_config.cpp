// An experiment config as POST /api/v1/experiments handles it: the
// submitted YAML/JSON text through conf::parse_experiment_config with the
// defaults of the checked-in master.yaml (its pools, priorities and
// checkpoint storage), then the slot check against the pool's capacity and
// the filled-in tree the master stores (dumped as the event payload is).
// The redacted view of the filled tree is what GET routes show.

#include "conf/capacity.hpp"
#include "conf/experiment_config.hpp"
#include "conf/master_config.hpp"
#include "conf/redact.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

// The pools of a typical cluster: a static default pool and a provisioned
// one with a capacity, so check_slots_fit has something to say.
constexpr const char* master_yaml = R"(
resource_pools:
  - pool_name: default
  - pool_name: gpu
    provider:
      type: aws
      region: us-west-2
      image_id: ami-0123456789abcdef0
      ssh_key_name: fuzz
      instance_type: p3.8xlarge
      max_instances: 2
checkpoint_storage:
  type: shared_fs
  host_path: /tmp
)";

struct cluster {
  det::conf::master_config master;
  det::conf::experiment_defaults defaults;

  cluster() {
    auto cfg = det::conf::parse_master_config(master_yaml);
    if (!cfg) {
      std::fprintf(stderr,
                   "fuzz_experiment_config: bad built-in master.yaml: %s\n",
                   det::render(cfg.error()).c_str());
      std::abort();
    }
    master = std::move(*cfg);
    defaults = det::conf::experiment_defaults_from(master);
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const cluster c;
  std::string_view text{reinterpret_cast<const char*>(data), size};
  auto cfg = det::conf::parse_experiment_config(text, c.defaults);
  if (!cfg)
    return 0;
  if (const auto* pool = c.master.find_pool(cfg->resources.resource_pool))
    if (auto cap = det::conf::max_capacity(*pool))
      (void)det::conf::check_slots_fit(cfg->resources.slots_per_trial,
                                       cfg->resources.is_single_node, *cap);
  // The stored form must parse back to the same config.
  auto stored = cfg->filled.dump();
  auto again = det::conf::parse_experiment_config(stored, c.defaults);
  if (!again) {
    std::fprintf(stderr, "filled config does not parse again: %s\n",
                 stored.c_str());
    std::abort();
  }
  (void)det::conf::redact(cfg->filled).dump();
  return 0;
}
