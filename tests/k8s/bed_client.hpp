#pragma once

// What the suites against the test bed's API server share: a client from
// the bed's kubeconfig (K8S_BED_KUBECONFIG), and names that do not collide
// between runs.

#include "k8s/access.hpp"
#include "k8s/api_client.hpp"

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>

namespace det::test {

/// A client of the bed's API server, or nullptr when no bed is named (the
/// suite then skips).
inline std::shared_ptr<k8s::api_client> bed_client() {
  const char* kc = std::getenv("K8S_BED_KUBECONFIG");
  if (kc == nullptr || *kc == '\0')
    return nullptr;
  auto access = k8s::load_kubeconfig(kc);
  return access ? k8s::make_curl_api_client(*access) : nullptr;
}

/// `base` with a suffix from the clock: a name no earlier run used.
inline std::string unique(const char* base) {
  return std::string{base} + "-"
         + std::to_string(
             std::chrono::steady_clock::now().time_since_epoch().count()
             % 1000000007);
}

} // namespace det::test
