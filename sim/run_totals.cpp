#include "sim/engine_state.hpp"

#include <algorithm>

namespace det::sim::detail {

void total_up(sim_state& s) {
  auto& r = s.result;
  r.end_s = s.now_ms / 1000;
  double ms = 0;
  for (const auto& x : s.instances)
    ms += static_cast<double>(
        std::max<int64_t>(60000, x.ended_ms - x.launched_ms));
  r.instance_hours = ms / 3.6e6;
  r.cost = r.instance_hours * s.config->price_per_hour;
  for (size_t j = 0; j < s.state.size(); ++j) {
    const auto& sj = s.state[j];
    r.waits.push_back(sj.first_start_ms < 0
                          ? -1
                          : (sj.first_start_ms - (*s.jobs)[j].submit_s * 1000)
                                / 1000);
    r.never_started += sj.first_start_ms < 0 ? 1 : 0;
  }
}

} // namespace det::sim::detail
