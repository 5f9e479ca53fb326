#include "aws/security_groups.hpp"

#include "messages/errc.hpp"

namespace det::aws {

caf::expected<std::string>
security_group_id_by_name(ec2_client& ec2, const std::string& name,
                          const std::string& vpc_id) {
  std::vector<ec2_filter> filters{{"group-name", {name}}};
  if (!vpc_id.empty())
    filters.push_back({"vpc-id", {vpc_id}});
  auto groups = ec2.describe_security_groups(filters);
  if (!groups)
    return groups.error();
  std::string where = vpc_id.empty() ? "" : " in " + vpc_id;
  if (groups->empty())
    return make_error(errc::invalid_argument,
                      "no security group named \"" + name + "\"" + where);
  if (groups->size() > 1) {
    std::string vpcs;
    for (const auto& g : *groups)
      vpcs += (vpcs.empty() ? "" : ", ") + g.group_id + " in "
              + (g.vpc_id.empty() ? "EC2-Classic" : g.vpc_id);
    return make_error(errc::invalid_argument,
                      std::to_string(groups->size())
                          + " security groups are named \"" + name + "\" ("
                          + vpcs + "): give the sg- id instead");
  }
  return groups->front().group_id;
}

} // namespace det::aws
