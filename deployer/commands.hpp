#pragma once

// The three `det-deploy aws` commands over our aws/ client: up (create or
// update the stack, follow it, print the outputs), down (terminate the
// agents the master launched, delete the stack, follow it) and list (the
// stacks det-deploy tagged). Each returns the process exit status: 0 done,
// 1 failed (the reason printed to `err`). Nothing here prints a secret:
// the DB password appears only as "****", credentials only as the sources
// tried.

#include "aws/environment.hpp"
#include "deployer/options.hpp"
#include "deployer/stack_waiter.hpp"

#include <ostream>
#include <string>

namespace det::deploy {

struct command_context {
  std::ostream& out;
  std::ostream& err;
  /// This program's path, to find the installed templates next to it.
  std::string exe_path;
  aws::env_lookup env = aws::process_environment();
  waiter_clock clock = waiter_clock::real();
};

int run_up(const up_options& opts, command_context& ctx);
int run_down(const down_options& opts, command_context& ctx);
int run_list(const list_options& opts, command_context& ctx);

/// The --dry-run document: CreateStack's input as `aws cloudformation
/// create-stack --cli-input-json` reads it (StackName, TemplateBody,
/// Parameters, Capabilities, Tags), secret parameters as "****".
std::string dry_run_json(const aws::stack_request& req);

} // namespace det::deploy
