#include "provision/aws_provider.hpp"

#include "messages/exit_tags.hpp"

#include "conf/duration.hpp"

#include "util/text.hpp"

#include "aws/aws_error.hpp"
#include "metrics/master_metrics.hpp"
#include "util/log.hpp"

#include <cstdlib>
#include <map>
#include <unistd.h>

namespace det::provision {

const char* const pool_tag_key = "det-pool";
const char* const cluster_tag_key = "det-cluster-id";
const char* const launch_tag_key = "det-launch";

namespace {

int64_t wall_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// The test-only crash hook (see the header).
void maybe_crash_after(const std::string& hook, const char* call) {
  if (!hook.empty() && hook == call) {
    log::critical() << "DET_TEST_CRASH_AFTER=" << call
                    << ": exiting before the result is recorded";
    _exit(70);
  }
}

std::optional<std::string> tag_of(const std::vector<aws::ec2_tag>& tags,
                                  const std::string& key) {
  for (const auto& t : tags)
    if (t.key == key)
      return t.value;
  return std::nullopt;
}

} // namespace

std::string agent_user_data(const aws_provider_options& o) {
  std::string s = "#!/bin/bash\n"
                  "# det-master: an agent of resource pool "
                  + o.pool + "\n";
  if (!o.startup_script.empty())
    s += o.startup_script + "\n";
  s += "IMDS=http://169.254.169.254/latest\n"
       "TOK=$(curl -sf -X PUT $IMDS/api/token "
       "-H 'X-aws-ec2-metadata-token-ttl-seconds: 300')\n"
       "INSTANCE_ID=$(curl -sf -H \"X-aws-ec2-metadata-token: $TOK\" "
       "$IMDS/meta-data/instance-id)\n"
       "export DET_AGENT_TOKEN="
       + util::shell_quote(o.agent_token) + "\n";
  std::string cw_env;
  if (!o.aws.log_group.empty()) {
    // The pool's log_group: det-agent ships its logs and metrics there.
    s += "export DET_CLOUDWATCH_LOG_GROUP=" + util::shell_quote(o.aws.log_group)
         + "\nexport DET_CLUSTER_ID=" + util::shell_quote(o.cluster_id) + "\n";
    cw_env = "-e DET_CLOUDWATCH_LOG_GROUP -e DET_CLUSTER_ID ";
  }
  std::string args = "--master-url " + util::shell_quote(o.master_url)
                     + " --resource-pool " + util::shell_quote(o.pool)
                     + " --agent-id \"$INSTANCE_ID\"";
  if (o.aws.spot)
    args += " --spot-notice";
  // Idle this long while the master is unreachable, det-agent exits 75 and
  // the instance shuts down, which terminates it (launched so).
  args += " --idle-shutdown-after "
          + conf::format_duration(o.max_idle_agent_period);
  // While the master is unreachable the idle period is the pool's shorter
  // one, and exits the master has not recorded go into the instance's
  // tags before it stops (the returning master reads them: list()).
  if (o.unreachable_idle_agent_period.count() > 0)
    args += " --idle-shutdown-unreachable "
            + conf::format_duration(o.unreachable_idle_agent_period);
  args += " --exit-tags";
  if (!o.agent_docker_image.empty())
    s += "docker run --rm --network host -e DET_AGENT_TOKEN " + cw_env
         + util::shell_quote(o.agent_docker_image) + " det-agent " + args
         + "\n";
  else
    s += "det-agent " + args + "\n";
  s += "if [ $? -eq 75 ]; then shutdown -h now; fi\n";
  return s;
}

aws_provider::aws_provider(aws_provider_options opts,
                           std::shared_ptr<aws::async_ec2> ec2)
    : opts_(std::move(opts)), ec2_(std::move(ec2)) {}

std::vector<aws::ec2_tag> aws_provider::pool_tags() const {
  std::vector<aws::ec2_tag> t{{opts_.aws.tag_key, opts_.aws.tag_value},
                              {pool_tag_key, opts_.pool},
                              {cluster_tag_key, opts_.cluster_id},
                              {"Name", opts_.aws.instance_name}};
  for (const auto& c : opts_.aws.custom_tags)
    t.push_back({c.key, c.value});
  return t;
}

bool aws_provider::ours(const std::vector<aws::ec2_tag>& tags) const {
  return tag_of(tags, opts_.aws.tag_key) == opts_.aws.tag_value
         && tag_of(tags, pool_tag_key) == opts_.pool;
}

std::vector<std::string> aws_provider::instance_types() const {
  std::vector<std::string> out{opts_.aws.instance_type};
  for (const auto& t : opts_.aws.alternative_instance_types)
    if (t != opts_.aws.instance_type)
      out.push_back(t);
  return out;
}

bool aws_provider::spot() const {
  return opts_.aws.spot;
}

int64_t aws_provider::consistency_grace_us() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             opts_.consistency_grace)
      .count();
}

int64_t aws_provider::orphan_grace_us() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             opts_.orphan_grace)
      .count();
}

std::string aws_provider::launch_error_kind(const caf::error& err) const {
  using k = aws::aws_error_kind;
  switch (aws::aws_error_of(err).kind) {
  case k::insufficient_capacity:
    return "insufficient_capacity";
  case k::quota:
    return "quota_exceeded";
  case k::auth:
    return "unauthorized";
  case k::bad_request:
  case k::not_found:
    return "invalid_request";
  case k::throttling:
  case k::server_error:
  case k::transport:
    return "unavailable";
  case k::none:
    break;
  }
  return "other";
}

void aws_provider::count(const char* operation, bool ok) {
  metrics::count_provisioner_call(opts_.pool, operation, ok);
}

void aws_provider::invalidate() {
  std::lock_guard<std::mutex> guard{mtx_};
  cache_.reset();
}

void aws_provider::launch(const launch_spec& spec,
                          provider_done<caf::expected<launch_result>> done) {
  auto tags = pool_tags();
  tags.push_back({launch_tag_key, spec.client_token});
  const auto& a = opts_.aws;
  std::optional<aws::network_interface_spec> ni;
  ni.emplace();
  ni->associate_public_ip = a.network_interface.public_ip;
  if (!a.network_interface.security_group_id.empty())
    ni->security_group_ids.push_back(a.network_interface.security_group_id);
  ni->subnet_id = a.network_interface.subnet_id;
  auto self = shared_from_this();
  if (spec.spot) {
    aws::spot_request_spec r;
    r.instance_count = spec.count;
    r.spot_price = a.spot_max_price.value_or("");
    r.client_token = spec.client_token;
    r.request_tags = tags;
    r.image_id = a.image_id;
    r.instance_type = spec.instance_type;
    r.key_name = a.ssh_key_name;
    r.iam_instance_profile_arn = a.iam_instance_profile_arn;
    r.network_interface = ni;
    r.root_volume_size_gb = static_cast<int>(a.root_volume_size);
    r.user_data = agent_user_data(opts_);
    ec2_->request_spot_instances(
        std::move(r),
        [self,
         done](caf::expected<std::vector<aws::spot_instance_request>> res) {
          self->launched(
              "RequestSpotInstances", "request_spot_instances", std::move(res),
              [](const aws::spot_instance_request& x) { return x.request_id; },
              &launch_result::spot_request_ids, done);
        });
    return;
  }
  aws::run_instances_request r;
  r.image_id = a.image_id;
  r.instance_type = spec.instance_type;
  // All or nothing: a partial launch would leave the launch outstanding
  // and re-ask at once (and moto honours only MinCount).
  r.min_count = spec.count;
  r.max_count = spec.count;
  r.client_token = spec.client_token;
  r.instance_tags = tags;
  r.volume_tags = tags;
  r.iam_instance_profile_arn = a.iam_instance_profile_arn;
  r.network_interface = ni;
  r.key_name = a.ssh_key_name;
  r.root_volume_size_gb = static_cast<int>(a.root_volume_size);
  r.user_data = agent_user_data(opts_);
  r.require_imdsv2 = true;
  r.terminate_on_shutdown = true;
  ec2_->run_instances(
      std::move(r),
      [self, done](caf::expected<std::vector<aws::instance>> res) {
        self->launched(
            "RunInstances", "run_instances", std::move(res),
            [](const aws::instance& x) { return x.instance_id; },
            &launch_result::instance_ids, done);
      });
}

template <class Item, class IdOf>
void aws_provider::launched(
    const char* operation, const char* crash_point,
    caf::expected<std::vector<Item>> res, IdOf id_of,
    std::vector<std::string> launch_result::*ids,
    const provider_done<caf::expected<launch_result>>& done) {
  maybe_crash_after(opts_.test_crash_after, crash_point);
  count(operation, static_cast<bool>(res));
  invalidate();
  if (!res) {
    done(std::move(res.error()));
    return;
  }
  launch_result out;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    for (const auto& item : *res) {
      (out.*ids).push_back(id_of(item));
      owned_.insert(id_of(item));
    }
  }
  done(std::move(out));
}

std::vector<std::string> aws_provider::only_ours(std::vector<std::string> ids) {
  std::vector<std::string> out;
  std::lock_guard<std::mutex> guard{mtx_};
  for (auto& id : ids) {
    if (owned_.count(id) != 0)
      out.push_back(std::move(id));
    else
      log::warn() << "provisioner " << opts_.pool << ": refusing to"
                  << " touch " << id << ": never seen with the pool's tags";
  }
  return out;
}

void aws_provider::terminate(std::vector<std::string> ids,
                             provider_done<caf::error> done) {
  ids = only_ours(std::move(ids));
  if (ids.empty()) {
    done(caf::error{});
    return;
  }
  auto self = shared_from_this();
  ec2_->terminate_instances(
      std::move(ids), [self, done](caf::expected<aws::terminate_result> res) {
        self->count("TerminateInstances", static_cast<bool>(res));
        self->invalidate();
        done(res ? caf::error{} : std::move(res.error()));
      });
}

void aws_provider::cancel_spot_requests(std::vector<std::string> ids,
                                        provider_done<caf::error> done) {
  ids = only_ours(std::move(ids));
  if (ids.empty()) {
    done(caf::error{});
    return;
  }
  auto self = shared_from_this();
  ec2_->cancel_spot_instance_requests(
      std::move(ids),
      [self, done](caf::expected<std::vector<aws::spot_cancel_result>> res) {
        self->count("CancelSpotInstanceRequests", static_cast<bool>(res));
        self->invalidate();
        done(res ? caf::error{} : std::move(res.error()));
      });
}

void aws_provider::list(provider_done<caf::expected<provider_inventory>> done) {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (cache_
        && std::chrono::steady_clock::now() - cached_at_
               < opts_.list_interval) {
      auto copy = *cache_;
      done(std::move(copy));
      return;
    }
  }
  refresh(std::move(done));
}

void aws_provider::refresh(
    provider_done<caf::expected<provider_inventory>> done) {
  auto self = shared_from_this();
  auto taken = wall_us();
  aws::describe_instances_request req;
  req.filters = {aws::tag_filter(opts_.aws.tag_key, opts_.aws.tag_value),
                 aws::tag_filter(pool_tag_key, opts_.pool),
                 // terminated: EC2 lists them for about an hour, with the
                 // exits their agent wrote into their tags before stopping.
                 aws::state_filter({"pending", "running", "stopping", "stopped",
                                    "shutting-down", "terminated"})};
  req.page_size = opts_.page_size;
  ec2_->describe_instances(
      std::move(req),
      [self, done, taken](caf::expected<std::vector<aws::instance>> res) {
        self->count("DescribeInstances", static_cast<bool>(res));
        if (!res) {
          done(std::move(res.error()));
          return;
        }
        provider_inventory inv;
        inv.taken_at_us = taken;
        for (const auto& i : *res) {
          if (!self->ours(i.tags))
            continue; // a filter value matched as a wildcard: not ours
          provider_instance x;
          x.id = i.instance_id;
          x.state = i.state;
          x.launch_token = i.tag(launch_tag_key).value_or("");
          x.spot_request_id = i.spot_instance_request_id;
          std::vector<agent::tag_pair> tags;
          for (const auto& t : i.tags)
            tags.emplace_back(t.key, t.value);
          auto claims = agent::exit_claims_of(tags);
          if (!claims.exits.empty())
            inv.exit_claims[x.id] = std::move(claims.exits);
          if (!claims.refused.empty())
            inv.refused_exit_tags[x.id] = std::move(claims.refused);
          inv.instances.push_back(std::move(x));
        }
        if (!self->opts_.aws.spot) {
          self->finish_listing(std::move(inv), {}, done);
          return;
        }
        aws::describe_spot_requests_request sreq;
        sreq.filters = {
            aws::tag_filter(self->opts_.aws.tag_key, self->opts_.aws.tag_value),
            aws::tag_filter(pool_tag_key, self->opts_.pool)};
        self->ec2_->describe_spot_instance_requests(
            std::move(sreq),
            [self, done, inv = std::move(inv)](
                caf::expected<std::vector<aws::spot_instance_request>>
                    sres) mutable {
              self->count("DescribeSpotInstanceRequests",
                          static_cast<bool>(sres));
              if (!sres) {
                done(std::move(sres.error()));
                return;
              }
              self->finish_listing(std::move(inv), std::move(*sres), done);
            });
      });
}

void aws_provider::finish_listing(
    provider_inventory inv, std::vector<aws::spot_instance_request> reqs,
    provider_done<caf::expected<provider_inventory>> done) {
  std::set<std::string> listed;
  for (const auto& i : inv.instances)
    listed.insert(i.id);
  // Fulfilled requests whose instance is not tagged yet: tag it as ours.
  std::map<std::string, std::string> untagged; // instance -> launch token
  for (const auto& r : reqs) {
    if (!ours(r.tags))
      continue;
    provider_spot_request x;
    x.id = r.request_id;
    x.state = r.state;
    x.instance_id = r.instance_id;
    x.launch_token = tag_of(r.tags, launch_tag_key).value_or("");
    if (!r.instance_id.empty() && listed.count(r.instance_id) == 0
        && r.state == "active")
      untagged.emplace(r.instance_id, x.launch_token);
    inv.spot_requests.push_back(std::move(x));
  }
  auto self = shared_from_this();
  auto publish = [self, done](provider_inventory got) {
    {
      std::lock_guard<std::mutex> guard{self->mtx_};
      for (const auto& i : got.instances)
        self->owned_.insert(i.id);
      for (const auto& r : got.spot_requests)
        self->owned_.insert(r.id);
      self->cache_ = got;
      self->cached_at_ = std::chrono::steady_clock::now();
    }
    done(std::move(got));
  };
  if (untagged.empty()) {
    publish(std::move(inv));
    return;
  }
  std::vector<std::string> ids;
  for (const auto& [id, token] : untagged) {
    ids.push_back(id);
    provider_instance x;
    x.id = id;
    x.state = "pending";
    x.launch_token = token;
    inv.instances.push_back(std::move(x));
  }
  ec2_->create_tags(ids, pool_tags(),
                    [self, done, publish, inv = std::move(inv)](
                        caf::expected<caf::unit_t> res) mutable {
                      if (!res) {
                        done(std::move(res.error()));
                        return;
                      }
                      publish(std::move(inv));
                    });
}

} // namespace det::provision
