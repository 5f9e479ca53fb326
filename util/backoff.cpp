#include "util/backoff.hpp"

#include <algorithm>
#include <cmath>

namespace det::util {

double backoff_delay(double initial, double multiplier, double cap, int n,
                     double jitter, double u) {
  double d = initial * std::pow(std::max(multiplier, 1.0), std::max(n - 1, 0));
  d = std::min(d, cap); // also tames an overflowing pow (inf)
  return d * (1.0 - std::clamp(jitter, 0.0, 1.0) * std::clamp(u, 0.0, 1.0));
}

} // namespace det::util
