#include "sim/compare.hpp"

#include "sim/bounds.hpp"
#include "sim/engine.hpp"
#include "sim/figures.hpp"
#include "sim/svg_report.hpp"

namespace det::sim {

comparison compare(const std::vector<job>& jobs, const sim_config& config,
                   const std::vector<policy_spec>& specs,
                   const std::string& title, bool with_svg) {
  comparison out;
  auto b = compute_bounds(jobs, config.gpus_per_instance, config.boot_s);
  out.head = bounds_json(b);
  out.head["jobs"] = jobs.size();
  out.head["gpus_per_instance"] = config.gpus_per_instance;
  out.head["max_instances"] = config.max_instances;
  std::vector<run_result> runs;
  for (const auto& p : specs) {
    runs.push_back(simulate(jobs, config, p));
    out.runs.push_back(figures(jobs, runs.back(), b));
  }
  if (with_svg)
    out.svg = svg_report(title, runs, b, config.gpus_per_instance);
  return out;
}

} // namespace det::sim
