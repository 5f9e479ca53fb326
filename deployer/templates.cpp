#include "deployer/templates.hpp"

#include "messages/errc.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace det::deploy {

namespace fs = std::filesystem;

std::vector<std::string> template_dirs(const std::string& override_dir,
                                       const std::string& exe_path) {
  if (!override_dir.empty())
    return {override_dir};
  std::vector<std::string> dirs;
  if (!exe_path.empty())
    dirs.push_back((fs::path(exe_path).parent_path().parent_path() / "share"
                    / "determined" / "deploy" / "aws")
                       .lexically_normal()
                       .string());
  dirs.push_back(DET_SOURCE_TEMPLATES_DIR);
  dirs.push_back(DET_INSTALLED_TEMPLATES_DIR);
  return dirs;
}

caf::expected<template_file>
load_template(const std::string& deployment_type,
              const std::vector<std::string>& dirs) {
  std::string tried;
  for (const auto& dir : dirs) {
    auto path = (fs::path(dir) / (deployment_type + ".yaml")).string();
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    std::ostringstream body;
    body << in.rdbuf();
    return template_file{path, body.str()};
  }
  return make_error(errc::not_found, "no template for deployment type "
                                         + deployment_type + ": tried " + tried
                                         + " (see --templates-dir)");
}

caf::error check_template_size(const template_file& t) {
  if (t.body.size() <= template_body_limit)
    return caf::none;
  return make_error(errc::invalid_argument,
                    t.path + " is " + std::to_string(t.body.size())
                        + " bytes, over CloudFormation's limit of "
                        + std::to_string(template_body_limit)
                        + " bytes for a template sent inline (TemplateBody); "
                          "shorten it");
}

caf::error check_parameters(const template_file& t,
                            const std::vector<aws::stack_key_value>& params) {
  std::set<std::string> declared;
  try {
    auto doc = YAML::Load(t.body);
    for (const auto& p : doc["Parameters"])
      declared.insert(p.first.as<std::string>());
  } catch (const YAML::Exception& e) {
    return make_error(errc::invalid_argument,
                      t.path + " is not valid YAML: " + e.what());
  }
  for (const auto& kv : params)
    if (declared.count(kv.key) == 0)
      return make_error(errc::invalid_argument,
                        "template " + t.path + " has no parameter " + kv.key);
  return caf::none;
}

} // namespace det::deploy
