// det-deploy: one command from an AWS account to a running det-master
// cluster, through CloudFormation and the templates of deploy/aws/.
//
//   det-deploy aws up --cluster-id ID --keypair NAME --package URL
//                     --agent-image-id AMI [options]
//   det-deploy aws down --cluster-id ID
//   det-deploy aws list [--json]
//
// Exit status: 0 success, 1 failure, 2 bad arguments. See --help.

#include "aws/aws_error.hpp"
#include "deployer/commands.hpp"
#include "deployer/options.hpp"

#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

using namespace det;

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  auto cmd = deploy::parse_command_line(args);
  if (!cmd) {
    std::string topic = args.size() >= 2 && args[0] == "aws"
                            ? "det-deploy aws " + args[1] + " --help"
                            : "det-deploy --help";
    // One line: the reason, then where to read more.
    std::cerr << "det-deploy: " << aws::error_text(cmd.error()) << ". Try '"
              << topic << "'.\n";
    return 2;
  }
  if (cmd->kind == deploy::command_kind::help) {
    std::cout << deploy::usage(cmd->help_topic);
    return 0;
  }
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  deploy::command_context ctx{std::cout, std::cerr,
                              ec ? std::string{argv[0]} : exe.string()};
  switch (cmd->kind) {
  case deploy::command_kind::up:
    return deploy::run_up(cmd->up, ctx);
  case deploy::command_kind::down:
    return deploy::run_down(cmd->down, ctx);
  case deploy::command_kind::list:
    return deploy::run_list(cmd->list, ctx);
  case deploy::command_kind::help:
    break;
  }
  return 0;
}
