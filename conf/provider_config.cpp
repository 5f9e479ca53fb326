#include "conf/provider_config.hpp"

#include "conf/duration.hpp"
#include "conf/ec2_instance_slots.hpp"

#include <cctype>

namespace det::conf {

using nlohmann::json;
using namespace std::chrono_literals;

const char* to_string(provider_type x) {
  switch (x) {
  case provider_type::none:
    return "none";
  case provider_type::aws:
    return "aws";
  case provider_type::local:
    return "local";
  }
  return "none";
}

int64_t provider_config::slots_per_instance() const {
  switch (type) {
  case provider_type::none:
    return 0;
  case provider_type::local:
    return local.slots_per_instance;
  case provider_type::aws: {
    if (aws.instance_slots)
      return *aws.instance_slots;
    auto gpus = ec2_gpu_count(aws.instance_type).value_or(0);
    if (gpus == 0 && aws.cpu_slots_allowed)
      return 1;
    return gpus;
  }
  }
  return 0;
}

namespace {

// Fields only the aws provider has: named in the error a local pool gets.
constexpr const char* aws_only_fields[] = {
    "region",         "endpoint_url",
    "image_id",       "instance_type",
    "instance_slots", "alternative_instance_types",
    "instance_name",  "root_volume_size",
    "ssh_key_name",   "network_interface",
    "security_group", "iam_instance_profile_arn",
    "tag_key",        "tag_value",
    "spot",           "spot_max_price",
    "custom_tags",    "cpu_slots_allowed",
    "log_group",      "log_stream",
};

constexpr const char* reserved_tag_keys[] = {
    "Name",
    "determined-resource-pool",
    "determined-master-address",
};

// sg- followed by 8 or 17 hex digits, as EC2 issues them.
bool is_security_group_id(const std::string& s) {
  if (s.rfind("sg-", 0) != 0 || (s.size() != 11 && s.size() != 20))
    return false;
  for (size_t i = 3; i < s.size(); ++i)
    if (!std::isxdigit(static_cast<unsigned char>(s[i])))
      return false;
  return true;
}

// `security_group` (the older documents' field): a group id goes where
// upstream's network_interface.security_group_id does; a name is kept for
// the provisioner to resolve to its id at start-up (EC2 launches with a
// network interface take ids only). EC2 refuses names starting "sg-".
void read_security_group(object_reader& r, aws_provider_config& aws) {
  auto sg = r.opt_str("security_group");
  if (!sg)
    return;
  auto& ni_id = aws.network_interface.security_group_id;
  if (sg->empty()) {
    r.fail("security_group", "must not be empty (a group name or an sg- id)");
  } else if (sg->rfind("sg-", 0) == 0) {
    if (!is_security_group_id(*sg))
      r.fail("security_group", "\"" + *sg
                                   + "\" is not a security group id (sg- and "
                                     "8 or 17 hex digits) and EC2 refuses "
                                     "names starting with sg-");
    else if (!ni_id.empty() && ni_id != *sg)
      r.fail("security_group", "\"" + *sg
                                   + "\" conflicts with network_interface."
                                   + "security_group_id \"" + ni_id + "\"");
    else
      ni_id = *sg;
  } else if (sg->size() > 255) {
    r.fail("security_group", "a group name has at most 255 characters, got "
                                 + std::to_string(sg->size()));
  } else if (!ni_id.empty()) {
    r.fail("security_group", "\"" + *sg + "\" conflicts with network_interface."
                                 + "security_group_id \"" + ni_id
                                 + "\": set one of them");
  } else {
    aws.security_group_name = *sg;
  }
}

bool is_price(const std::string& s) {
  int dots = 0;
  bool digit = false;
  for (char c : s) {
    if (c == '.')
      ++dots;
    else if (std::isdigit(static_cast<unsigned char>(c)))
      digit = true;
    else
      return false;
  }
  return digit && dots <= 1;
}

void read_custom_tags(object_reader& r, aws_provider_config& aws) {
  auto* v = r.raw("custom_tags");
  if (v == nullptr) {
    if (r.fill_defaults())
      r.node()["custom_tags"] = json::array();
    return;
  }
  auto path = r.path_of("custom_tags");
  if (v->is_object()) { // {key: value} shorthand -> the upstream list form
    json list = json::array();
    for (auto& kv : v->items())
      list.push_back({{"key", kv.key()}, {"value", kv.value()}});
    *v = std::move(list);
  }
  if (!v->is_array()) {
    r.fail("custom_tags",
           "expected a list of {key, value}, got " + describe(*v));
    return;
  }
  for (size_t i = 0; i < v->size(); ++i) {
    object_reader t{(*v)[i], index_path(path, i), r.diag()};
    ec2_tag tag;
    tag.key = t.required_str("key");
    tag.value = t.str("value", "");
    t.finish();
    for (auto k : reserved_tag_keys)
      if (tag.key == k)
        t.fail("key", "'" + tag.key + "' is set by det-master itself");
    if (!tag.key.empty() && tag.key == aws.tag_key)
      t.fail("key", "'" + tag.key + "' is the pool's tag_key");
    aws.custom_tags.push_back(std::move(tag));
  }
}

void read_aws(object_reader& r, provider_config& out,
              const provider_context& ctx) {
  auto& aws = out.aws;
  aws.region = r.str("region", "");
  if (auto e = r.opt_str("endpoint_url")) {
    aws.endpoint_url = *e;
    if (e->rfind("http://", 0) != 0 && e->rfind("https://", 0) != 0)
      r.fail("endpoint_url",
             "expected an http:// or https:// URL, got \"" + *e + "\"");
  }
  aws.image_id = r.required_str(
      "image_id", "required for the aws provider (the agent AMI to launch)");
  if (aws.image_id.rfind("ssm:", 0) == 0 && aws.image_id.size() == 4)
    r.fail("image_id", "\"ssm:\" names no SSM parameter (e.g. "
                       "ssm:/aws/service/debian/release/12/latest/amd64)");
  aws.ssh_key_name =
      r.required_str("ssh_key_name", "required for the aws provider");
  aws.instance_type = r.str("instance_type", "g4dn.metal");
  aws.instance_slots = r.opt_integer("instance_slots", 0);
  auto gpus = ec2_gpu_count(aws.instance_type);
  if (!gpus && !aws.instance_slots)
    r.fail("instance_type", "unknown instance type \"" + aws.instance_type
                                + "\": set instance_slots to say how many "
                                  "slots it has");
  aws.alternative_instance_types = r.str_list("alternative_instance_types");
  // -1 when the primary type's slot count is unknown (already reported).
  int64_t primary_slots =
      aws.instance_slots ? *aws.instance_slots : gpus.value_or(-1);
  for (size_t i = 0; i < aws.alternative_instance_types.size(); ++i) {
    const auto& t = aws.alternative_instance_types[i];
    auto alt = ec2_gpu_count(t);
    auto path = index_path(r.path_of("alternative_instance_types"), i);
    if (aws.instance_slots)
      continue; // instance_slots says what every type of the pool brings
    if (!alt)
      r.diag().error(path, "unknown instance type \"" + t + "\"");
    else if (primary_slots >= 0 && *alt != primary_slots)
      r.diag().error(path, "\"" + t + "\" has " + std::to_string(*alt)
                               + " slots but instance_type has "
                               + std::to_string(primary_slots)
                               + "; every type of a pool needs the same count");
  }
  aws.instance_name = r.str("instance_name", "determined-ai-agent");
  aws.root_volume_size = r.integer("root_volume_size", 200, 100);
  {
    auto ni = r.child("network_interface");
    aws.network_interface.public_ip = ni.boolean("public_ip", true);
    aws.network_interface.subnet_id = ni.str("subnet_id", "");
    aws.network_interface.security_group_id = ni.str("security_group_id", "");
    ni.finish();
  }
  read_security_group(r, aws);
  aws.iam_instance_profile_arn = r.str("iam_instance_profile_arn", "");
  aws.tag_key = r.str("tag_key", "managed_by");
  if (aws.tag_key.empty())
    r.fail("tag_key", "must not be empty");
  aws.tag_value = r.str("tag_value", ctx.cluster_id.empty()
                                         ? "determined-ai-determined"
                                         : "determined-ai-" + ctx.cluster_id);
  if (aws.tag_value.empty())
    r.fail("tag_value", "must not be empty");
  aws.spot = r.boolean("spot", false);
  if (auto* p = r.raw("spot_max_price")) {
    std::string price;
    if (p->is_number())
      price = p->dump();
    else if (p->is_string())
      price = p->get<std::string>();
    if (!aws.spot)
      r.fail("spot_max_price", "only valid with spot: true");
    else if (!is_price(price))
      r.fail("spot_max_price",
             "expected a price such as \"0.90\", got " + describe(*p));
    else {
      aws.spot_max_price = price;
      *p = price;
    }
  }
  read_custom_tags(r, aws);
  aws.cpu_slots_allowed = r.boolean("cpu_slots_allowed", false);
  aws.log_group = r.str("log_group", "");
  aws.log_stream = r.str("log_stream", "");
}

void read_local(object_reader& r, provider_config& out) {
  auto& local = out.local;
  local.slots_per_instance = r.integer("slots_per_instance", 1, 0, 1024);
  local.agent_binary = r.str("agent_binary", "det-agent");
  if (local.agent_binary.empty())
    r.fail("agent_binary", "must not be empty");
  local.work_dir = r.str("work_dir", "/tmp/det-local-agents");
  local.agent_args = r.str_list("agent_args");
  for (auto k : aws_only_fields) {
    if (r.has(k)) {
      r.allow({k});
      r.fail(k, "only valid for the aws provider");
    }
  }
}

} // namespace

void read_provider(object_reader& r, provider_config& out,
                   const provider_context& ctx) {
  r.alias("provider", "type");
  r.alias("master_address", "master_url"); // the first seed's name
  if (!r.has("type")) {
    r.fail("type", "required: 'aws' or 'local'");
    r.allow_all();
    return;
  }
  auto kind = r.choice("type", "local", {"aws", "local"});
  out.type = kind == "aws" ? provider_type::aws : provider_type::local;

  // master_url: how agents reach the master.
  std::string scheme = ctx.tls ? "https" : "http";
  auto text = r.opt_str("master_url");
  if (!text) {
    auto host = out.type == provider_type::aws ? "local-ipv4" : "127.0.0.1";
    text = scheme + "://" + host + ":" + std::to_string(ctx.master_port);
    if (r.fill_defaults())
      r.node()["master_url"] = *text;
  }
  if (auto a = parse_master_url(*text, scheme, ctx.master_port))
    out.master_url = *a;
  else
    r.fail("master_url", message_of(a.error()));
  out.master_cert_name = r.str("master_cert_name", "");
  out.startup_script = r.str("startup_script", "");
  out.container_startup_script = r.str("container_startup_script", "");
  out.agent_docker_image = r.str("agent_docker_image", "");
  out.agent_docker_network = r.str("agent_docker_network", "determined");
  out.agent_docker_runtime = r.str("agent_docker_runtime", "runc");
  r.allow({"agent_fluent_image", "agent_config_file_contents"});
  out.agent_reconnect_attempts = r.integer("agent_reconnect_attempts", 5, 0);
  out.agent_reconnect_backoff =
      r.dur("agent_reconnect_backoff", 5s, "5s", true);
  out.max_idle_agent_period =
      r.dur("max_idle_agent_period", 20min, "20m", true);
  out.unreachable_idle_agent_period =
      r.dur("unreachable_idle_agent_period",
            default_unreachable_idle_agent_period, "1m");
  out.max_agent_starting_period =
      r.dur("max_agent_starting_period", 20min, "20m", true);
  out.scale_up_delay = r.dur("scale_up_delay", 5s, "5s");
  out.min_instances = r.integer("min_instances", 0, 0);
  out.max_instances = r.integer("max_instances", 5, 1);
  if (out.min_instances > out.max_instances)
    r.fail("min_instances", "must not exceed max_instances ("
                                + std::to_string(out.max_instances) + "), got "
                                + std::to_string(out.min_instances));
  out.launch_error_timeout = r.dur("launch_error_timeout", 0ms, "0s");
  out.launch_error_retries = r.integer("launch_error_retries", 0, 0);
  out.consolidate = r.boolean("consolidate", false);
  out.consolidate_after = r.dur("consolidate_after", 10min, "10m");
  out.consolidation_move_cost = r.dur("consolidation_move_cost", 2min, "2m");
  if (out.type == provider_type::aws)
    read_aws(r, out, ctx);
  else
    read_local(r, out);
  r.finish();
}

} // namespace det::conf
