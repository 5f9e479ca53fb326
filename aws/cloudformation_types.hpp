#pragma once

// Plain data of the CloudFormation calls det-deploy makes (API version
// 2010-05-15). Field names follow the API in snake_case; strings are empty
// where CloudFormation sent nothing.

#include <string>
#include <vector>

namespace det::aws {

/// A Parameters.member.N, a Tags.member.N or an Outputs.member.N: a name
/// and its value, in the order CloudFormation listed them.
struct stack_key_value {
  std::string key;
  std::string value;

  friend bool operator==(const stack_key_value& a, const stack_key_value& b) {
    return a.key == b.key && a.value == b.value;
  }
};

/// CreateStack and UpdateStack (the same fields; UpdateStack ignores
/// on_failure).
struct stack_request {
  std::string stack_name;
  /// Sent inline; CloudFormation takes at most 51,200 bytes this way.
  std::string template_body;
  std::vector<stack_key_value> parameters;
  /// UpdateStack only: parameters that keep the stack's current value
  /// (UsePreviousValue), e.g. a NoEcho password the caller was not given.
  std::vector<std::string> previous_value_parameters;
  /// CAPABILITY_IAM, CAPABILITY_NAMED_IAM, ...
  std::vector<std::string> capabilities;
  std::vector<stack_key_value> tags;
};

/// One stack of DescribeStacks.
struct stack {
  std::string stack_id;
  std::string stack_name;
  /// CREATE_IN_PROGRESS, CREATE_COMPLETE, ROLLBACK_COMPLETE, ...
  std::string status;
  std::string status_reason;
  /// ISO 8601, as sent ("2024-05-01T10:11:12.345Z").
  std::string creation_time;
  std::vector<stack_key_value> outputs;
  std::vector<stack_key_value> parameters;
  std::vector<stack_key_value> tags;

  /// The output or tag named `key`; "" when absent.
  std::string output(const std::string& key) const;
  std::string tag(const std::string& key) const;
};

/// One entry of DescribeStackEvents (newest first there).
struct stack_event {
  std::string event_id;
  std::string stack_id;
  std::string timestamp;
  std::string logical_id;
  std::string physical_id;
  std::string resource_type;
  std::string status;
  std::string reason;
};

/// The final state a CloudFormation operation reaches: anything not
/// ending in _IN_PROGRESS.
bool is_terminal_stack_status(const std::string& status);

/// A resource or stack status that reports a failure (CREATE_FAILED,
/// UPDATE_FAILED, DELETE_FAILED, ...).
bool is_failed_status(const std::string& status);

} // namespace det::aws
