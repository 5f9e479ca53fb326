#include "core/instance_provider.hpp"

// The defaults of instance_provider's optional parts: a provider without
// spot requests, instance types or grace periods keeps these.

namespace det {

instance_provider::~instance_provider() = default;

void instance_provider::cancel_spot_requests(std::vector<std::string>,
                                             provider_done<caf::error> done) {
  done(caf::error{});
}

std::vector<std::string> instance_provider::instance_types() const {
  return {};
}

bool instance_provider::spot() const {
  return false;
}

int64_t instance_provider::consistency_grace_us() const {
  return 0;
}

int64_t instance_provider::orphan_grace_us() const {
  return 0;
}

std::string instance_provider::launch_error_kind(const caf::error&) const {
  return "other";
}

} // namespace det
