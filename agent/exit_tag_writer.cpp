#include "agent/exit_tag_writer.hpp"

#include "aws/credential_chain.hpp"
#include "aws/imds_client.hpp"
#include "aws/query_ec2_client.hpp"
#include "messages/errc.hpp"
#include "messages/exit_tags.hpp"
#include "net/http_client.hpp"

namespace det::agent {

exit_tag_writer::exit_tag_writer(aws::env_lookup env) : env_(std::move(env)) {}

exit_tag_writer::exit_tag_writer(std::string instance_id,
                                 std::shared_ptr<aws::ec2_client> ec2)
    : instance_id_(std::move(instance_id)), ec2_(std::move(ec2)) {}

caf::error exit_tag_writer::resolve() {
  if (ec2_ && !instance_id_.empty())
    return {};
  aws::imds_client imds{aws::imds_config_from_env(env_),
                        net::make_curl_http_client()};
  auto id = imds.instance_id();
  if (!id)
    return make_error(errc::remote_error,
                      "exit tags: this instance's id from IMDS: "
                          + render(id.error()));
  aws::credential_chain_options opts;
  opts.env = env_;
  auto region = aws::resolve_region(opts);
  if (!region)
    return make_error(errc::remote_error,
                      "exit tags: the region: " + render(region.error()));
  aws::ec2_client_config cc;
  cc.region = *region;
  cc.timeout = std::chrono::seconds{10};
  ec2_ = aws::make_curl_ec2_client(cc, aws::make_default_credential_chain(opts),
                                   env_);
  instance_id_ = *id;
  return {};
}

caf::error exit_tag_writer::write(const std::vector<exit_report>& exits) {
  if (exits.empty())
    return {};
  if (exits.size() > max_exit_tags)
    return make_error(
        errc::invalid_argument,
        "exit tags: " + std::to_string(exits.size()) + " exits, more than the "
            + std::to_string(max_exit_tags) + " one instance holds");
  std::vector<aws::ec2_tag> tags;
  for (const auto& e : exits) {
    auto t = encode_exit_tag(e);
    if (!t)
      return std::move(t.error());
    tags.push_back({t->first, t->second});
  }
  std::lock_guard<std::mutex> guard{mu_};
  if (auto err = resolve())
    return err;
  return ec2_->create_tags({instance_id_}, tags);
}

} // namespace det::agent
