#include "rm/agent_rm.hpp"

#include "actors/provisioner_actor.hpp"
#include "api/auth_crypto.hpp"
#include "aws/async_executor.hpp"
#include "provision/aws_provider.hpp"
#include "provision/local_provider.hpp"
#include "store/cluster_secrets.hpp"
#include "util/log.hpp"

#include <caf/send.hpp>

#include <vector>

namespace det::rm {

namespace {

class agent_rm final : public resource_manager {
public:
  agent_rm(conf::master_config cfg, conf::provisioner_env env)
      : cfg_(std::move(cfg)), env_(std::move(env)) {}

  ~agent_rm() override { stop(); }

  void attach_api(api::api_context&) override {
    // The agents' routes show the connected det-agents: nothing to add.
  }

  caf::error start(const rm_context& ctx) override {
    auto owner = host_owner(ctx);
    if (!owner)
      return std::move(owner.error());
    for (const auto& rp : cfg_.resource_pools) {
      if (rp.provider.type == conf::provider_type::local)
        start_local(ctx, rp, *owner);
      else if (rp.provider.type == conf::provider_type::aws)
        start_aws(ctx, rp);
    }
    return caf::none;
  }

  void stop() override {
    for (auto& p : provisioners_)
      caf::anon_send_exit(p, caf::exit_reason::user_shutdown);
    provisioners_.clear();
    if (aws_calls_)
      aws_calls_->shutdown();
    aws_calls_.reset();
  }

private:
  /// The cluster's identity on a shared host (local pools' folders): made
  /// once, kept in its database, so two clusters with one cluster id on one
  /// host still never take each other's folders. "" without local pools.
  caf::expected<std::string> host_owner(const rm_context& ctx) {
    for (const auto& rp : cfg_.resource_pools) {
      if (rp.provider.type != conf::provider_type::local)
        continue;
      auto owner = pg_cluster_secret(ctx.db_url, "host_owner", api::new_token);
      if (!owner)
        return make_error(errc::store_unavailable,
                          "cannot read the cluster's host owner id: "
                              + render(owner.error()));
      return owner;
    }
    return std::string{};
  }

  void start_local(const rm_context& ctx, const conf::resource_pool_config& rp,
                   const std::string& owner) {
    provision::local_provider_options lo;
    lo.local = rp.provider.local;
    lo.pool = rp.pool_name;
    lo.master_url = ctx.scheme + "://127.0.0.1:" + std::to_string(ctx.port);
    lo.agent_token = cfg_.agent_token;
    lo.bin_dir = ctx.bin_dir;
    lo.cluster_id = ctx.cluster_id;
    lo.owner = owner;
    provisioner_options po;
    po.pool = rp.pool_name;
    po.cluster_id = ctx.cluster_id;
    po.slots_per_instance = rp.provider.slots_per_instance();
    po.scale_up_delay = rp.provider.scale_up_delay;
    provisioners_.push_back(
        spawn_provisioner(*ctx.sys, ctx.master,
                          std::make_shared<provision::local_provider>(lo), po));
    log::info() << "local provisioner for pool " << rp.pool_name << " started";
  }

  void start_aws(const rm_context& ctx, const conf::resource_pool_config& rp) {
    if (!aws_calls_)
      aws_calls_ = std::make_shared<aws::async_executor>(4);
    auto prov = provision::make_aws_provider(
        rp, ctx.cluster_id, cfg_.agent_token, aws_calls_, env_);
    if (!prov) {
      log::error() << "pool " << rp.pool_name << ": " << render(prov.error());
      return;
    }
    provisioner_options po;
    po.pool = rp.pool_name;
    po.cluster_id = ctx.cluster_id;
    po.slots_per_instance = rp.provider.slots_per_instance();
    po.scale_up_delay = rp.provider.scale_up_delay;
    provision::tune_from_env(po, env_);
    provisioners_.push_back(spawn_provisioner(*ctx.sys, ctx.master, *prov, po));
    log::info() << "aws provisioner for pool " << rp.pool_name
                << " started (instance type " << rp.provider.aws.instance_type
                << (rp.provider.aws.spot ? ", spot" : "") << ")";
  }

  conf::master_config cfg_;
  conf::provisioner_env env_;
  std::vector<caf::actor> provisioners_;
  std::shared_ptr<aws::async_executor> aws_calls_;
};

} // namespace

std::unique_ptr<resource_manager> make_agent_rm(const conf::master_config& cfg,
                                                conf::provisioner_env env) {
  return std::make_unique<agent_rm>(cfg, std::move(env));
}

} // namespace det::rm
