#include "aws/cloudformation_parse.hpp"
#include "util/text.hpp"

namespace det::aws {

namespace {

// Lists are "<Name><member>...</member></Name>" in CloudFormation.
std::vector<const xml_element*> members(const xml_element& el,
                                        std::string_view list_name) {
  if (auto* list = el.child(list_name))
    return list->children_named("member");
  return {};
}

std::vector<stack_key_value> pairs(const xml_element& el,
                                   std::string_view list_name,
                                   std::string_view key_name,
                                   std::string_view value_name) {
  std::vector<stack_key_value> out;
  for (auto* m : members(el, list_name))
    out.push_back({m->child_text(key_name), m->child_text(value_name)});
  return out;
}

std::string lookup(const std::vector<stack_key_value>& kvs,
                   const std::string& key) {
  for (const auto& kv : kvs)
    if (kv.key == key)
      return kv.value;
  return {};
}

// The "...Result" element a response wraps its data in; the root itself
// when there is none (tolerant of moto's variations).
const xml_element& result_of(const xml_element& root, std::string_view name) {
  if (auto* r = root.find(name))
    return *r;
  return root;
}

void add_list(param_list& out, const std::string& prefix,
              const std::vector<stack_key_value>& kvs, const char* key_name,
              const char* value_name) {
  for (size_t i = 0; i < kvs.size(); ++i) {
    auto base = prefix + ".member." + std::to_string(i + 1) + ".";
    out.emplace_back(base + key_name, kvs[i].key);
    out.emplace_back(base + value_name, kvs[i].value);
  }
}

} // namespace

std::string stack::output(const std::string& key) const {
  return lookup(outputs, key);
}

std::string stack::tag(const std::string& key) const {
  return lookup(tags, key);
}

bool is_terminal_stack_status(const std::string& status) {
  return !status.empty() && !util::ends_with(status, "_IN_PROGRESS");
}

bool is_failed_status(const std::string& status) {
  return util::ends_with(status, "_FAILED");
}

param_list stack_request_params(const stack_request& req) {
  param_list out{{"StackName", req.stack_name},
                 {"TemplateBody", req.template_body}};
  add_list(out, "Parameters", req.parameters, "ParameterKey", "ParameterValue");
  for (size_t i = 0; i < req.previous_value_parameters.size(); ++i) {
    auto base = "Parameters.member."
                + std::to_string(req.parameters.size() + i + 1) + ".";
    out.emplace_back(base + "ParameterKey", req.previous_value_parameters[i]);
    out.emplace_back(base + "UsePreviousValue", "true");
  }
  for (size_t i = 0; i < req.capabilities.size(); ++i)
    out.emplace_back("Capabilities.member." + std::to_string(i + 1),
                     req.capabilities[i]);
  add_list(out, "Tags", req.tags, "Key", "Value");
  return out;
}

param_list describe_stacks_params(const std::string& stack_name,
                                  const std::string& next_token) {
  param_list out;
  if (!stack_name.empty())
    out.emplace_back("StackName", stack_name);
  if (!next_token.empty())
    out.emplace_back("NextToken", next_token);
  return out;
}

param_list describe_stack_events_params(const std::string& stack_name,
                                        const std::string& next_token) {
  param_list out{{"StackName", stack_name}};
  if (!next_token.empty())
    out.emplace_back("NextToken", next_token);
  return out;
}

std::string parse_stack_id(const xml_element& root) {
  if (auto* id = root.find("StackId"))
    return id->text;
  return {};
}

cfn_page<stack> parse_describe_stacks(const xml_element& root) {
  cfn_page<stack> page;
  const auto& result = result_of(root, "DescribeStacksResult");
  for (auto* m : members(result, "Stacks")) {
    stack s;
    s.stack_id = m->child_text("StackId");
    s.stack_name = m->child_text("StackName");
    s.status = m->child_text("StackStatus");
    s.status_reason = m->child_text("StackStatusReason");
    s.creation_time = m->child_text("CreationTime");
    s.outputs = pairs(*m, "Outputs", "OutputKey", "OutputValue");
    s.parameters = pairs(*m, "Parameters", "ParameterKey", "ParameterValue");
    s.tags = pairs(*m, "Tags", "Key", "Value");
    page.items.push_back(std::move(s));
  }
  page.next_token = result.child_text("NextToken");
  return page;
}

cfn_page<stack_event> parse_describe_stack_events(const xml_element& root) {
  cfn_page<stack_event> page;
  const auto& result = result_of(root, "DescribeStackEventsResult");
  for (auto* m : members(result, "StackEvents")) {
    stack_event e;
    e.event_id = m->child_text("EventId");
    e.stack_id = m->child_text("StackId");
    e.timestamp = m->child_text("Timestamp");
    e.logical_id = m->child_text("LogicalResourceId");
    e.physical_id = m->child_text("PhysicalResourceId");
    e.resource_type = m->child_text("ResourceType");
    e.status = m->child_text("ResourceStatus");
    e.reason = m->child_text("ResourceStatusReason");
    page.items.push_back(std::move(e));
  }
  page.next_token = result.child_text("NextToken");
  return page;
}

} // namespace det::aws
