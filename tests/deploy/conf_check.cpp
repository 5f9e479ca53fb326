// conf_check FILE: loads FILE with det-master's own master.yaml parser
// (conf/master_config.hpp) and prints the effective config as JSON on
// stdout; exits 1 with the parser's errors on stderr when the file is
// refused. tests/deploy/test_moto_deploy.py compiles it against the build
// tree's libdet_conf.a to check the master.yaml each CloudFormation template
// writes.

#include "conf/master_config.hpp"
#include "messages/errc.hpp"

#include <iostream>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: conf_check MASTER_YAML\n";
    return 2;
  }
  auto cfg = det::conf::load_master_config(argv[1]);
  if (!cfg) {
    std::cerr << det::render(cfg.error()) << "\n";
    return 1;
  }
  std::cout << cfg->effective.dump(2) << "\n";
  return 0;
}
