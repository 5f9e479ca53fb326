#pragma once

// Environment variables by slot type, as upstream's
// `environment_variables` takes them (an experiment's environment, the
// master's and a pool's task_container_defaults): a list of "NAME=value"
// for every slot type, or a map {cpu, cuda, rocm} of such lists. A trial
// gets the list of its agent's slot type. Pure; any thread.

#include "conf/reader.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace det::conf {

struct env_by_slot_type {
  std::vector<std::string> cpu;
  std::vector<std::string> cuda;
  std::vector<std::string> rocm;

  bool empty() const { return cpu.empty() && cuda.empty() && rocm.empty(); }
  /// The map form: {"cpu": [...], "cuda": [...], "rocm": [...]}.
  nlohmann::json to_json() const;
};

/// Reads `v` (a list or a {cpu, cuda, rocm} map); each problem goes to
/// `diag` naming its path ("<path>.cuda[2]: expected \"NAME=value\" ...").
env_by_slot_type read_env_vars(const nlohmann::json& v, const std::string& path,
                               diagnostics& diag);

/// `defaults` first, then `own`, per slot type (a later NAME wins when
/// the list is applied).
env_by_slot_type merged_env(const env_by_slot_type& defaults,
                            const env_by_slot_type& own);

/// The variables a trial on agents of `slot_type` gets from a stored
/// environment_variables value (list or map; anything else: none): cuda
/// (also "gpu"), rocm, else cpu.
std::vector<std::string> env_for_slot_type(const nlohmann::json& vars,
                                           const std::string& slot_type);

} // namespace det::conf
