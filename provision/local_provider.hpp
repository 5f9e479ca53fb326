#pragma once

// The local provider: an "instance" is a det-agent process on this
// machine, started with the pool's slots and the instance id as its agent
// id, in <cluster dir>/<id>/ (its output in agent.log there, its pid in
// pid). terminate() sends SIGTERM. Processes this master started are
// reaped by alive(); processes of a previous master of the same cluster
// (found through their pid files at construction) are adopted and watched
// with kill(pid, 0), so a restart neither loses nor duplicates instances
// (each keeps its launch's client token in <cluster dir>/<id>/launch_token,
// so the provisioner can match it to its launch). The agent token reaches
// the agent through DET_AGENT_TOKEN, never its command line. Its calls
// finish at once (starting or signalling a process), so it answers on the
// caller's thread.
//
// Several clusters may share a host and a work_dir (the base): each keeps
// its instances in a folder of its own, <work_dir>/<cluster id>, or, when
// a folder of that name belongs to another cluster (same cluster id, other
// database), the first <work_dir>/<cluster id>.N that is free or its own.
// A folder is this cluster's when it is a real directory (no symlink) of
// this user with an `owner` file naming opts.owner. Folders are created
// 0700. The provider never lists, adopts, signals or deletes anything in
// another cluster's folder.

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
  /// The cluster's id (folder name) and its identity on shared hosts: a
  /// value only this cluster has (det-master: generated once, kept in its
  /// database), written to the owner file of its folder.
  std::string cluster_id = "determined";
  std::string owner;
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

  /// This cluster's folder under work_dir; "" when it could not be made
  /// (then start() fails naming why).
  [[nodiscard]] const std::string& cluster_dir() const { return dir_; }

private:
  struct proc {
    pid_t pid = 0;
    bool child = true;
  };
  std::string dir_of(const std::string& id) const;
  std::string agent_binary() const;
  local_provider_options opts_;
  std::string dir_;       ///< this cluster's folder
  std::string dir_error_; ///< why there is none
  std::map<std::string, proc> procs_;
};

} // namespace det::provision
