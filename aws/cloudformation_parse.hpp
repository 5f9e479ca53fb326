#pragma once

// CloudFormation Query parameters and response documents (API version
// 2010-05-15): the flattened "Parameters.member.N.ParameterKey" form out,
// the "...Result" documents in, by element name. Pure; any thread.

#include "aws/cloudformation_types.hpp"
#include "aws/sigv4.hpp"
#include "aws/xml.hpp"

#include <string>
#include <vector>

namespace det::aws {

template <class T> struct cfn_page {
  std::vector<T> items;
  /// Empty on the last page.
  std::string next_token;
};

/// CreateStack / UpdateStack parameters (the two take the same ones).
param_list stack_request_params(const stack_request& req);

/// DescribeStacks of one stack (`stack_name` a name or an id), or of every
/// stack when it is empty; `next_token` empty for the first page.
param_list describe_stacks_params(const std::string& stack_name,
                                  const std::string& next_token);

param_list describe_stack_events_params(const std::string& stack_name,
                                        const std::string& next_token);

/// The StackId of a CreateStack or UpdateStack response; "" if absent.
std::string parse_stack_id(const xml_element& root);

cfn_page<stack> parse_describe_stacks(const xml_element& root);

cfn_page<stack_event> parse_describe_stack_events(const xml_element& root);

} // namespace det::aws
