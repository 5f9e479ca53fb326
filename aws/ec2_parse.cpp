#include "aws/ec2_parse.hpp"

#include <cctype>
#include <cstdlib>

namespace det::aws {

namespace {

std::vector<ec2_tag> parse_tags(const xml_element& el) {
  std::vector<ec2_tag> tags;
  for (auto* item : el.items("tagSet"))
    tags.push_back({item->child_text("key"), item->child_text("value")});
  return tags;
}

std::string nested_text(const xml_element& el, const char* outer,
                        const char* inner) {
  auto* o = el.child(outer);
  return o ? o->child_text(inner) : std::string{};
}

} // namespace

std::optional<std::string> instance::tag(const std::string& key) const {
  for (const auto& t : tags)
    if (t.key == key)
      return t.value;
  return std::nullopt;
}

ec2_filter tag_filter(const std::string& key, const std::string& value) {
  return {"tag:" + key, {value}};
}

ec2_filter state_filter(std::vector<std::string> states) {
  return {"instance-state-name", std::move(states)};
}

instance parse_instance(const xml_element& item) {
  instance out;
  out.instance_id = item.child_text("instanceId");
  out.image_id = item.child_text("imageId");
  out.instance_type = item.child_text("instanceType");
  out.state = nested_text(item, "instanceState", "name");
  auto code = nested_text(item, "instanceState", "code");
  if (!code.empty())
    out.state_code =
        std::atoi(code.c_str()) & 0xff; // the high byte is internal
  out.state_reason_code = nested_text(item, "stateReason", "code");
  out.private_ip = item.child_text("privateIpAddress");
  out.public_ip = item.child_text("ipAddress");
  out.private_dns = item.child_text("privateDnsName");
  out.public_dns = item.child_text("dnsName");
  out.launch_time = item.child_text("launchTime");
  out.availability_zone = nested_text(item, "placement", "availabilityZone");
  out.subnet_id = item.child_text("subnetId");
  out.vpc_id = item.child_text("vpcId");
  out.key_name = item.child_text("keyName");
  out.client_token = item.child_text("clientToken");
  out.lifecycle = item.child_text("instanceLifecycle");
  out.spot_instance_request_id = item.child_text("spotInstanceRequestId");
  out.tags = parse_tags(item);
  return out;
}

std::vector<instance> parse_run_instances(const xml_element& root) {
  std::vector<instance> out;
  for (auto* item : root.items("instancesSet"))
    out.push_back(parse_instance(*item));
  return out;
}

ec2_page<instance> parse_describe_instances(const xml_element& root) {
  ec2_page<instance> page;
  for (auto* reservation : root.items("reservationSet"))
    for (auto* item : reservation->items("instancesSet"))
      page.items.push_back(parse_instance(*item));
  page.next_token = root.child_text("nextToken");
  return page;
}

std::vector<instance_state_change>
parse_terminate_instances(const xml_element& root) {
  std::vector<instance_state_change> out;
  for (auto* item : root.items("instancesSet"))
    out.push_back({item->child_text("instanceId"),
                   nested_text(*item, "previousState", "name"),
                   nested_text(*item, "currentState", "name")});
  return out;
}

ec2_page<spot_instance_request>
parse_spot_instance_requests(const xml_element& root) {
  ec2_page<spot_instance_request> page;
  for (auto* item : root.items("spotInstanceRequestSet")) {
    spot_instance_request r;
    r.request_id = item->child_text("spotInstanceRequestId");
    r.state = item->child_text("state");
    r.status_code = nested_text(*item, "status", "code");
    r.status_message = nested_text(*item, "status", "message");
    r.instance_id = item->child_text("instanceId");
    r.spot_price = item->child_text("spotPrice");
    r.type = item->child_text("type");
    r.create_time = item->child_text("createTime");
    r.tags = parse_tags(*item);
    page.items.push_back(std::move(r));
  }
  page.next_token = root.child_text("nextToken");
  return page;
}

ec2_page<security_group>
parse_describe_security_groups(const xml_element& root) {
  ec2_page<security_group> page;
  for (auto* item : root.items("securityGroupInfo"))
    page.items.push_back({item->child_text("groupId"),
                          item->child_text("groupName"),
                          item->child_text("vpcId")});
  page.next_token = root.child_text("nextToken");
  return page;
}

std::vector<spot_cancel_result>
parse_cancel_spot_instance_requests(const xml_element& root) {
  std::vector<spot_cancel_result> out;
  for (auto* item : root.items("spotInstanceRequestSet"))
    out.push_back(
        {item->child_text("spotInstanceRequestId"), item->child_text("state")});
  return out;
}

std::vector<std::string> instance_ids_in_message(const std::string& message) {
  // Instance ids are "i-" followed by hex digits; collect every such word.
  std::vector<std::string> ids;
  for (size_t i = 0; i + 2 < message.size(); ++i) {
    bool word_start =
        i == 0
        || !(std::isalnum(static_cast<unsigned char>(message[i - 1]))
             || message[i - 1] == '-');
    if (!word_start || message[i] != 'i' || message[i + 1] != '-')
      continue;
    size_t j = i + 2;
    while (j < message.size()
           && std::isalnum(static_cast<unsigned char>(message[j])))
      ++j;
    if (j > i + 2) {
      ids.push_back(message.substr(i, j - i));
      i = j;
    }
  }
  return ids;
}

} // namespace det::aws
