#include "rm/resource_manager.hpp"

#include "rm/agent_rm.hpp"
#include "rm/kubernetes_rm.hpp"

namespace det::rm {

std::unique_ptr<resource_manager>
make_resource_manager(const conf::master_config& cfg,
                      const conf::master_env& env) {
  if (cfg.resource_manager_type == "kubernetes")
    return make_kubernetes_rm(cfg, env.k8s_sa_dir);
  return make_agent_rm(cfg, env.provisioner);
}

} // namespace det::rm
