#include "agent/harness_files.hpp"

#include "messages/errc.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace det::agent {

namespace {

using json = nlohmann::json;

std::string get(const env_map& env, const char* key) {
  auto i = env.find(key);
  return i == env.end() ? "" : i->second;
}

int64_t get_int(const env_map& env, const char* key, int64_t fallback) {
  try {
    return std::stoll(get(env, key));
  } catch (const std::exception&) {
    return fallback;
  }
}

json get_json(const env_map& env, const char* key, json fallback) {
  auto j = json::parse(get(env, key), nullptr, false);
  return j.is_discarded() ? fallback : j;
}

json nullable(const std::string& s) {
  return s.empty() ? json(nullptr) : json(s);
}

/// DET_SLOT_IDS as upstream sends it ("[0,1]"); a comma list also reads.
json slot_ids(const env_map& env) {
  auto text = get(env, "DET_SLOT_IDS");
  auto j = json::parse(text, nullptr, false);
  if (!j.is_discarded() && j.is_array())
    return j;
  json out = json::array();
  size_t start = 0;
  while (start < text.size()) {
    auto end = text.find(',', start);
    auto word = text.substr(start, end - start);
    try {
      out.push_back(std::stoll(word));
    } catch (const std::exception&) {
    }
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  return out;
}

caf::error write_file(const std::filesystem::path& path,
                      const std::string& text) {
  auto tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out{tmp, std::ios::binary | std::ios::trunc};
    out << text;
    if (!out.flush())
      return make_error(errc::remote_error, "cannot write " + tmp.string());
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec)
    return make_error(errc::remote_error,
                      "cannot write " + path.string() + ": " + ec.message());
  return {};
}

} // namespace

std::map<std::string, std::string> info_files(const env_map& env) {
  auto slots = slot_ids(env);
  auto config = get_json(env, "DET_EXPERIMENT_CONFIG", json::object());
  json cluster{
      {"master_url", get(env, "DET_MASTER")},
      // The cluster's uuid, as GET /info answers it (older masters send
      // only the configured id).
      {"cluster_id", get(env, "DET_CLUSTER_UUID").empty()
                         ? get(env, "DET_CLUSTER_ID")
                         : get(env, "DET_CLUSTER_UUID")},
      {"agent_id", get(env, "DET_AGENT_ID")},
      {"slot_ids", slots},
      {"task_id", get(env, "DET_TASK_ID")},
      {"allocation_id", get(env, "DET_ALLOCATION_ID")},
      {"session_token", get(env, "DET_SESSION_TOKEN")},
      {"task_type", get(env, "DET_TASK_TYPE")},
      {"master_cert_name", nullable(get(env, "DET_MASTER_CERT_NAME"))},
      {"master_cert_file", nullable(get(env, "DET_MASTER_CERT_FILE"))},
      {"latest_checkpoint", nullable(get(env, "DET_LATEST_CHECKPOINT"))},
  };
  json trial{
      {"trial_id", get_int(env, "DET_TRIAL_ID", 0)},
      {"experiment_id", get_int(env, "DET_EXPERIMENT_ID", 0)},
      {"trial_seed", get_int(env, "DET_TRIAL_SEED", 0)},
      {"hparams", get_json(env, "DET_HPARAMS", json::object())},
      {"config", config},
      {"steps_completed", get_int(env, "DET_STEPS_COMPLETED", 0)},
      {"trial_run_id", get_int(env, "DET_TRIAL_RUN_ID", 1)},
      {"debug", config.is_object() && config.value("debug", false)},
      {"inter_node_network_interface", nullptr},
  };
  // One container per allocation on an agent: rank 0 of one, on this host.
  // A Kubernetes pod of a multi-pod allocation knows its rank and the pod
  // count (DET_POD_RANK, DET_NUM_PODS), not yet the other pods' addresses.
  const int64_t pods =
      std::clamp<int64_t>(get_int(env, "DET_NUM_PODS", 1), 1, 1024);
  const int64_t rank =
      std::clamp<int64_t>(get_int(env, "DET_POD_RANK", 0), 0, pods - 1);
  json rendezvous{
      {"container_addrs",
       pods == 1 ? json::array({"127.0.0.1"}) : json::array()},
      {"container_rank", rank},
      {"container_slot_counts",
       json(std::vector<size_t>(static_cast<size_t>(pods), slots.size()))}};
  json resources{{"gpu_uuids", json::array()}};
  return {{"cluster.json", cluster.dump()},
          {"trial.json", trial.dump()},
          {"rendezvous.json", rendezvous.dump()},
          {"resources.json", resources.dump()}};
}

std::string shared_fs_host_path(const env_map& env) {
  auto config = get_json(env, "DET_EXPERIMENT_CONFIG", json::object());
  if (!config.is_object())
    return "";
  auto cs = config.value("checkpoint_storage", json::object());
  if (!cs.is_object() || cs.value("type", std::string{}) != "shared_fs")
    return "";
  auto host = cs.find("host_path");
  return host != cs.end() && host->is_string() ? host->get<std::string>() : "";
}

const char* harness_shim_source() {
  return R"PY(# Written by det-agent for one trial (agent/harness_files.hpp).
# When the determined harness is imported, point its info files at
# $DET_INFO_DIR (instead of /run/determined/info) and its shared_fs
# container path at $DET_SHARED_FS_PATH (instead of /determined_shared_fs).
import os
import sys

_INFO_DIR = os.environ.get("DET_INFO_DIR")
_SHARED_FS = os.environ.get("DET_SHARED_FS_PATH")
_FILES = {
    "ClusterInfo": ("DEFAULT_CLUSTER_INFO_PATH", "cluster.json"),
    "TrialInfo": ("DEFAULT_TRIAL_INFO_PATH", "trial.json"),
    "RendezvousInfo": ("DEFAULT_RENDEZVOUS_INFO_PATH", "rendezvous.json"),
    "ResourcesInfo": ("DEFAULT_RESOURCES_INFO_PATH", "resources.json"),
}


def _patch(name, module):
    if name == "determined._info" and _INFO_DIR:
        for cls_name, (const, file_name) in _FILES.items():
            old = getattr(module, const)
            new = os.path.join(_INFO_DIR, file_name)
            setattr(module, const, new)
            cls = getattr(module, cls_name)
            for meth in ("_from_file", "_to_file"):
                fn = getattr(getattr(cls, meth, None), "__func__",
                             getattr(cls, meth, None))
                if fn is not None and fn.__defaults__:
                    fn.__defaults__ = tuple(new if d == old else d
                                            for d in fn.__defaults__)
    elif name == "determined.common.constants" and _SHARED_FS:
        module.SHARED_FS_CONTAINER_PATH = _SHARED_FS


class _HarnessFinder:
    targets = ("determined._info", "determined.common.constants")

    def find_spec(self, name, path=None, target=None):
        if name not in self.targets:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        original = spec.loader.exec_module

        def exec_module(module):
            original(module)
            _patch(name, module)

        spec.loader.exec_module = exec_module
        return spec


if _INFO_DIR or _SHARED_FS:
    sys.meta_path.insert(0, _HarnessFinder())
)PY";
}

const char* launcher_source() {
  return R"PY(# Written by det-agent for one trial (agent/harness_files.hpp): the
# trial runs through the harness's launch layer when the determined package
# can be imported and the experiment config names the entrypoint, else the
# entrypoint runs as a shell command.
import importlib.util
import json
import os
import runpy
import sys


def _shell():
    entrypoint = os.environ.get("DET_ENTRYPOINT", "")
    os.execv("/bin/sh", ["/bin/sh", "-c", entrypoint])


try:
    _config = json.loads(os.environ.get("DET_EXPERIMENT_CONFIG") or "{}")
except ValueError:
    _config = None
if not isinstance(_config, dict) or not _config.get("entrypoint"):
    _shell()
# Found, not imported: runpy imports it once, as its __main__.
try:
    _found = importlib.util.find_spec("determined.exec.launch") is not None
except (ImportError, ValueError):
    _found = False
if not _found:
    _shell()
sys.argv = [sys.argv[0]]
runpy.run_module("determined.exec.launch", run_name="__main__", alter_sys=True)
)PY";
}

std::string trial_command(const std::string& entrypoint, env_map& env) {
  env["DET_ENTRYPOINT"] = entrypoint;
  return "command -v python3 >/dev/null 2>&1 && exec python3 "
         "\"$DET_RUN_DIR/launch.py\"; exec /bin/sh -c \"$DET_ENTRYPOINT\"";
}

caf::error write_harness_files(const std::string& run_dir, env_map& env,
                               const std::string& inherited_pythonpath) {
  namespace fs = std::filesystem;
  fs::path root{run_dir};
  std::error_code ec;
  fs::create_directories(root / "info", ec);
  fs::create_directories(root / "python", ec);
  if (ec)
    return make_error(errc::remote_error,
                      "cannot create " + run_dir + ": " + ec.message());
  env["DET_RUN_DIR"] = run_dir;
  env["DET_INFO_DIR"] = (root / "info").string();
  if (auto host = shared_fs_host_path(env); !host.empty()) {
    env["DET_SHARED_FS_PATH"] = host;
    fs::create_directories(host, ec); // as the bind mount would exist
  }
  auto shim_dir = (root / "python").string();
  env["PYTHONPATH"] = inherited_pythonpath.empty()
                          ? shim_dir
                          : shim_dir + ":" + inherited_pythonpath;
  for (const auto& [name, text] : info_files(env))
    if (auto err = write_file(root / "info" / name, text))
      return err;
  if (auto err = write_file(root / "python" / "sitecustomize.py",
                            harness_shim_source()))
    return err;
  return write_file(root / "launch.py", launcher_source());
}

} // namespace det::agent
