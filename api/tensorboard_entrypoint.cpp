#include "api/ntsc_entrypoints.hpp"

namespace det::api {

namespace {

// No single quote inside: the script goes into '...' for /bin/sh. It
// reads $DET_TENSORBOARD (the task's storage, experiments and trials),
// copies their TensorBoard files from
// <storage>/<cluster uuid>/tensorboard/experiment/<id>[/trial/<id>] into a
// folder of the task's with the determined package's fetchers (shared_fs,
// directory, s3, gcs, azure; again every $DET_TB_SYNC_SECONDS), and runs
// TensorBoard on it under /proxy/$DET_TASK_ID. Once TensorBoard answers
// and a first file is there it says so and reports ready; with no file
// after $DET_TB_WAIT_SECONDS it ends with an error.
const char* const tensorboard_script = R"PY(
import json, os, socket, subprocess, sys, tempfile, threading, time, urllib.request
spec = json.loads(os.environ.get("DET_TENSORBOARD") or "{}")
storage = spec.get("storage") or {}
cluster = os.environ.get("DET_CLUSTER_UUID") or os.environ.get("DET_CLUSTER_ID", "")
tid = os.environ["DET_TASK_ID"]
bind = os.environ.get("DET_PROXY_BIND", "127.0.0.1")
kind = storage.get("type")
if kind == "shared_fs":
    sub = storage.get("storage_path") or ""
    root = sub if sub.startswith("/") else os.path.join(storage.get("host_path", ""), sub)
    base = os.path.join(root, cluster)
elif kind == "directory":
    base = os.path.join(storage.get("container_path", ""), cluster)
else:
    prefix = (storage.get("prefix") or "").strip("/")
    base = (prefix + "/" if prefix else "") + cluster
paths = ["%s/tensorboard/experiment/%d" % (base, e) for e in spec.get("experiments", [])]
paths += ["%s/tensorboard/experiment/%d/trial/%d" % (base, e, t)
          for e, t in spec.get("trials", [])]
from determined.tensorboard import fetchers
local = tempfile.mkdtemp(prefix="tensorboard-", dir=os.getcwd())
fetcher = fetchers.build(storage, paths, local)
fetched = [0]
def on_file(*args, **kwargs):
    fetched[0] += 1
def sync():
    every = float(os.environ.get("DET_TB_SYNC_SECONDS", "10"))
    while True:
        try:
            for f in fetcher.list_all_generator():
                fetcher._fetch(f, on_file)
        except Exception as e:
            print("det: cannot fetch TensorBoard files: %s" % e, flush=True)
        time.sleep(every)
s = socket.socket()
s.bind((bind, 0))
port = s.getsockname()[1]
s.close()
cmd = [sys.executable, "-m", "tensorboard.main", "--logdir", local, "--host", bind,
       "--port", str(port), "--path_prefix", "/proxy/" + tid, "--load_fast=false",
       "--reload_interval", "5"] + list(json.loads(os.environ.get("DET_TB_ARGS") or "[]"))
p = subprocess.Popen(cmd)
threading.Thread(target=sync, daemon=True).start()
host = "127.0.0.1" if bind in ("", "0.0.0.0", "::") else bind
def answers():
    try:
        urllib.request.urlopen("http://%s:%d/proxy/%s/" % (host, port, tid), timeout=5).read()
        return True
    except Exception:
        return False
deadline = time.time() + 300
while not answers():
    if p.poll() is not None:
        sys.exit("det: TensorBoard exited with %d before it answered" % p.returncode)
    if time.time() > deadline:
        p.kill()
        sys.exit("det: TensorBoard did not answer within 300 s")
    time.sleep(0.5)
deadline = time.time() + float(os.environ.get("DET_TB_WAIT_SECONDS", "600"))
said = 0
while fetched[0] == 0:
    if p.poll() is not None:
        sys.exit("det: TensorBoard exited with %d" % p.returncode)
    if time.time() > deadline:
        p.kill()
        sys.exit("det: no TensorBoard files appeared under %s" % ", ".join(paths))
    if time.time() - said > 30:
        print("TensorBoard is waiting for metrics (under %s)." % ", ".join(paths),
              flush=True)
        said = time.time()
    time.sleep(0.5)
print("TensorBoard contains metrics", flush=True)
try:
    det_ready(port)
    print("det: the TensorBoard is ready", flush=True)
except Exception as e:
    print("det: cannot report the TensorBoard ready: %s" % e, flush=True)
sys.exit(p.wait())
)PY";

} // namespace

std::string tensorboard_entrypoint() {
  return python_entrypoint(tensorboard_script);
}

} // namespace det::api
