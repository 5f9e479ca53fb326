#include "sim/figures.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

namespace det::sim {

namespace {

nlohmann::json wait_percentiles(const std::vector<int64_t>& w) {
  nlohmann::json j = nlohmann::json::object();
  j["jobs"] = w.size();
  j["p50_s"] = percentile(w, 50);
  j["p95_s"] = percentile(w, 95);
  j["p99_s"] = percentile(w, 99);
  j["max_s"] = w.empty() ? 0 : *std::max_element(w.begin(), w.end());
  return j;
}

double round_to(double v, double unit) {
  return std::round(v / unit) * unit;
}

} // namespace

int64_t percentile(std::vector<int64_t> values, double p) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  auto rank = static_cast<size_t>(
      std::ceil(p / 100.0 * static_cast<double>(values.size())));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

nlohmann::json bounds_json(const lower_bounds& b) {
  nlohmann::json j = nlohmann::json::object();
  j["work_h"] = round_to(b.work_h, 0.01);
  j["pack_h"] = round_to(b.pack_h, 0.01);
  j["clairvoyant_h"] = round_to(b.clairvoyant_h, 0.01);
  j["zero_wait_peak_gpus"] = b.zero_wait_peak_gpus;
  return j;
}

nlohmann::json figures(const std::vector<job>& jobs, const run_result& r,
                       const lower_bounds& b) {
  nlohmann::json j = nlohmann::json::object();
  j["policy"] = r.policy;
  j["instance_hours"] = round_to(r.instance_hours, 0.01);
  j["cost"] = round_to(r.cost, 0.01);
  j["overhead_above_work_pct"] =
      b.work_h > 0 ? round_to((r.instance_hours / b.work_h - 1) * 100, 0.01)
                   : 0.0;
  j["ratio_to_clairvoyant"] =
      b.clairvoyant_h > 0 ? round_to(r.instance_hours / b.clairvoyant_h, 1e-4)
                          : 0.0;
  std::vector<int64_t> all;
  std::map<std::string, std::vector<int64_t>> by_group;
  std::map<int, std::vector<int64_t>> by_gang;
  int64_t longest_large = 0;
  for (size_t i = 0; i < jobs.size() && i < r.waits.size(); ++i) {
    auto w = r.waits[i];
    if (w < 0)
      continue;
    all.push_back(w);
    if (!jobs[i].group.empty())
      by_group[jobs[i].group].push_back(w);
    by_gang[jobs[i].gpus].push_back(w);
    if (jobs[i].gpus >= large_gang_gpus)
      longest_large = std::max(longest_large, w);
  }
  j["wait"] = wait_percentiles(all);
  nlohmann::json groups = nlohmann::json::object();
  for (const auto& [g, w] : by_group)
    groups[g] = wait_percentiles(w);
  j["wait_by_group"] = groups;
  nlohmann::json gangs = nlohmann::json::object();
  for (const auto& [g, w] : by_gang)
    gangs[std::to_string(g)] = wait_percentiles(w);
  j["wait_by_gang"] = gangs;
  j["longest_wait_large_gangs_s"] = longest_large;
  j["never_started"] = r.never_started;
  j["stalled"] = r.stalled;
  j["gpu_hours_lost"] = round_to(r.gpu_hours_lost, 0.01);
  j["busy_gpu_hours"] = round_to(r.busy_gpu_hours, 0.01);
  j["outage_idle_instance_hours"] =
      round_to(r.outage_idle_instance_hours, 0.01);
  j["restarts"] = r.restarts;
  j["moves"] = r.moves;
  j["consolidated_instances"] = r.consolidated_instances;
  j["move_gpu_hours"] = round_to(r.move_gpu_hours, 0.01);
  j["jobs_moved"] = r.jobs_moved;
  j["most_moves_of_a_job"] = r.most_moves_of_a_job;
  j["launched"] = r.launched;
  j["boot_failures"] = r.boot_failures;
  j["reclaims"] = r.reclaims;
  j["self_shutdowns"] = r.self_shutdowns;
  j["exits_tagged"] = r.exits_tagged;
  j["peak_instances"] = r.peak_instances;
  j["instances_at_end"] = r.instances_at_end;
  j["end_s"] = r.end_s;
  return j;
}

} // namespace det::sim
