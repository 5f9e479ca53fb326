#include "sim/policies.hpp"

#include "conf/provider_config.hpp"

#include <chrono>

namespace det::sim {

std::optional<policy_spec> policy_named(const std::string& name,
                                        int64_t ours_idle_s) {
  if (name == "ours")
    return policy_spec{name, fleet_rule::ours, ours_idle_s, 0};
  if (name == "ours+self-stop")
    return policy_spec{name, fleet_rule::ours, ours_idle_s, ours_idle_s};
  if (name == "ours+self-stop-drop-exits")
    return policy_spec{name, fleet_rule::ours, ours_idle_s, ours_idle_s, true};
  if (name == "ours+self-stop-tag-exits") {
    policy_spec p{name, fleet_rule::ours, ours_idle_s, ours_idle_s};
    p.self_shutdown_unreachable_s =
        std::chrono::duration_cast<std::chrono::seconds>(
            conf::default_unreachable_idle_agent_period)
            .count();
    p.self_stop_tags_exits = true;
    return p;
  }
  if (name == "ours+consolidate") {
    policy_spec p{name, fleet_rule::ours, ours_idle_s, 0};
    p.consolidate = true;
    return p;
  }
  if (name == "det-20m")
    return policy_spec{name, fleet_rule::determined, 20 * 60, 0};
  if (name == "det-5m")
    return policy_spec{name, fleet_rule::determined, 5 * 60, 0};
  if (name == "ca")
    return policy_spec{name, fleet_rule::cluster_autoscaler, 10 * 60, 0};
  if (name == "karpenter")
    return policy_spec{name, fleet_rule::karpenter, 0, 0};
  return std::nullopt;
}

const std::vector<std::string>& policy_names() {
  static const std::vector<std::string> names{"ours",
                                              "ours+self-stop",
                                              "ours+self-stop-drop-exits",
                                              "ours+self-stop-tag-exits",
                                              "ours+consolidate",
                                              "det-20m",
                                              "det-5m",
                                              "ca",
                                              "karpenter"};
  return names;
}

const std::vector<std::string>& standard_policy_names() {
  static const std::vector<std::string> names{"ours", "det-20m", "det-5m", "ca",
                                              "karpenter"};
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::vector<policy_spec> standard_policies(int64_t ours_idle_s) {
  std::vector<policy_spec> out;
  for (const auto& n : standard_policy_names())
    out.push_back(*policy_named(n, ours_idle_s));
  return out;
}

} // namespace det::sim
