#include "conf/task_env.hpp"

namespace det::conf {

namespace {

using nlohmann::json;

std::vector<std::string> read_list(const json& v, const std::string& path,
                                   diagnostics& diag) {
  std::vector<std::string> out;
  if (!v.is_array()) {
    diag.error(path, "expected a list of \"NAME=value\", got " + describe(v));
    return out;
  }
  for (size_t i = 0; i < v.size(); ++i) {
    const auto& x = v[i];
    if (!x.is_string() || x.get<std::string>().find('=') == 0
        || x.get<std::string>().find('=') == std::string::npos)
      diag.error(index_path(path, i),
                 "expected \"NAME=value\", got " + describe(x));
    else
      out.push_back(x.get<std::string>());
  }
  return out;
}

} // namespace

json env_by_slot_type::to_json() const {
  return {{"cpu", cpu}, {"cuda", cuda}, {"rocm", rocm}};
}

env_by_slot_type read_env_vars(const json& v, const std::string& path,
                               diagnostics& diag) {
  env_by_slot_type out;
  if (v.is_null())
    return out;
  if (v.is_array()) {
    out.cpu = read_list(v, path, diag);
    out.cuda = out.rocm = out.cpu;
    return out;
  }
  if (!v.is_object()) {
    diag.error(path, "expected a list of \"NAME=value\" or {cpu, cuda, "
                     "rocm}, got "
                         + describe(v));
    return out;
  }
  for (const auto& [key, list] : v.items()) {
    auto* dest = key == "cpu"    ? &out.cpu
                 : key == "cuda" ? &out.cuda
                 : key == "rocm" ? &out.rocm
                                 : nullptr;
    if (dest == nullptr)
      diag.error(join_path(path, key), "unknown slot type (cpu, cuda, rocm)");
    else if (!list.is_null())
      *dest = read_list(list, join_path(path, key), diag);
  }
  return out;
}

env_by_slot_type merged_env(const env_by_slot_type& defaults,
                            const env_by_slot_type& own) {
  auto out = defaults;
  out.cpu.insert(out.cpu.end(), own.cpu.begin(), own.cpu.end());
  out.cuda.insert(out.cuda.end(), own.cuda.begin(), own.cuda.end());
  out.rocm.insert(out.rocm.end(), own.rocm.begin(), own.rocm.end());
  return out;
}

std::vector<std::string> env_for_slot_type(const json& vars,
                                           const std::string& slot_type) {
  json list = vars;
  if (vars.is_object()) {
    auto key = slot_type == "cuda" || slot_type == "gpu" ? "cuda"
               : slot_type == "rocm"                     ? "rocm"
                                                         : "cpu";
    list = vars.value(key, json::array());
  }
  std::vector<std::string> out;
  if (list.is_array())
    for (const auto& x : list)
      if (x.is_string())
        out.push_back(x.get<std::string>());
  return out;
}

} // namespace det::conf
