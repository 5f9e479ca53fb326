#include "sim/bounds.hpp"

#include <algorithm>
#include <map>

namespace det::sim {

lower_bounds compute_bounds(const std::vector<job>& jobs, int gpus_per_instance,
                            double boot_s) {
  lower_bounds b;
  const double g = gpus_per_instance;
  std::map<int64_t, long long> delta; // time -> change of D(t)
  double work_s = 0;
  for (const auto& j : jobs) {
    work_s += static_cast<double>(j.gpus) * static_cast<double>(j.duration_s);
    delta[j.submit_s] += j.gpus;
    delta[j.submit_s + j.duration_s] -= j.gpus;
  }
  b.work_h = work_s / g / 3600.0;
  // Walk the step function of levels ceil(D/G); per level remember when it
  // last turned off, to charge min(gap, boot) when it turns on again.
  std::vector<int64_t> off_since; // by level - 1; -1 = never on yet
  long long d = 0;
  long long level = 0;
  int64_t prev = 0;
  double pack_s = 0;
  double extra_s = 0;
  for (const auto& [t, change] : delta) {
    pack_s += static_cast<double>(level) * static_cast<double>(t - prev);
    d += change;
    b.zero_wait_peak_gpus = std::max(b.zero_wait_peak_gpus, d);
    auto next = (d + gpus_per_instance - 1) / gpus_per_instance;
    for (auto k = level; k < next; ++k) { // levels turning on
      if (static_cast<size_t>(k) >= off_since.size()) {
        off_since.push_back(-1);
        extra_s += boot_s;
      } else {
        extra_s += std::min(boot_s, static_cast<double>(t - off_since[k]));
      }
    }
    for (auto k = next; k < level; ++k) // levels turning off
      off_since[k] = t;
    level = next;
    prev = t;
  }
  b.pack_h = pack_s / 3600.0;
  b.clairvoyant_h = (pack_s + extra_s) / 3600.0;
  return b;
}

} // namespace det::sim
