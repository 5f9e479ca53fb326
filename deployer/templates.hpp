#pragma once

// Where det-deploy finds the CloudFormation templates at run time, and the
// checks a template passes before it is sent. One source of truth: the
// files of deploy/aws/, installed to <prefix>/share/determined/deploy/aws
// by `cmake --install` and the .deb; a binary in the build tree reads them
// from the source tree.

#include "aws/cloudformation_types.hpp"

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include <string>
#include <vector>

namespace det::deploy {

/// CloudFormation's limit for a template sent inline as TemplateBody.
inline constexpr size_t template_body_limit = 51'200;

struct template_file {
  std::string path;
  std::string body;
};

/// The directories searched, in order: `override_dir` alone when set;
/// else <exe_dir>/../share/determined/deploy/aws, the source tree's
/// deploy/aws, then the configured install prefix's.
std::vector<std::string> template_dirs(const std::string& override_dir,
                                       const std::string& exe_path);

/// <dir>/<deployment_type>.yaml from the first directory that has it.
/// errc::not_found naming every path tried.
[[nodiscard]] caf::expected<template_file>
load_template(const std::string& deployment_type,
              const std::vector<std::string>& dirs);

/// errc::invalid_argument naming the file, its size and the limit when the
/// body is too large to send inline.
[[nodiscard]] caf::error check_template_size(const template_file& t);

/// Every parameter sent must be declared in the template's Parameters
/// (CloudFormation would refuse it, later and less clearly).
/// errc::invalid_argument naming the parameter and the file.
[[nodiscard]] caf::error
check_parameters(const template_file& t,
                 const std::vector<aws::stack_key_value>& params);

} // namespace det::deploy
