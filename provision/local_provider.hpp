#pragma once

// The local provider: an "instance" is a det-agent process on this
// machine, started with the pool's slots and the instance id as its agent
// id, in work_dir/<id>/ (its output in agent.log there, its pid in pid).
// terminate() sends SIGTERM. Processes this master started are reaped by
// alive(); processes of a previous master (found through their pid files
// at construction) are adopted and watched with kill(pid, 0), so a restart
// neither loses nor duplicates instances (each keeps its launch's client
// token in work_dir/<id>/launch_token, so the provisioner can match it to
// its launch). The agent token reaches the agent through DET_AGENT_TOKEN,
// never its command line. Its calls finish at once (starting or signalling
// a process), so it answers on the caller's thread.

#include "conf/provider_config.hpp"
#include "core/provisioning.hpp"

#include <sys/types.h>

#include <map>
#include <set>

namespace det::provision {

struct local_provider_options {
  conf::local_provider_config local;
  std::string pool;
  std::string master_url;  ///< e.g. http://127.0.0.1:8080
  std::string agent_token; ///< "" = none
  /// Where a bare agent_binary name is looked for first (det-master's dir).
  std::string bin_dir;
};

class local_provider : public instance_provider {
public:
  explicit local_provider(local_provider_options opts);
  void launch(const launch_spec& spec,
              provider_done<caf::expected<launch_result>> done) override;
  void terminate(std::vector<std::string> ids,
                 provider_done<caf::error> done) override;
  void list(provider_done<caf::expected<provider_inventory>> done) override;
  int64_t orphan_grace_us() const override;

  /// Starts instance `id` (its agent's id) with `slots` slots.
  [[nodiscard]] caf::error start(const std::string& id, int64_t slots,
                                 const std::string& token);
  /// Ids of the instances that still exist.
  std::set<std::string> alive();

private:
  struct proc {
    pid_t pid = 0;
    bool child = true;
  };
  std::string dir_of(const std::string& id) const;
  std::string agent_binary() const;
  local_provider_options opts_;
  std::map<std::string, proc> procs_;
};

} // namespace det::provision
