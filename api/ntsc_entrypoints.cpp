#include "api/ntsc_entrypoints.hpp"

namespace det::api {

namespace {

// No single quote inside: the script goes into '...' for /bin/sh.
const char* const notebook_script = R"PY(
import json, os, re, socket, ssl, subprocess, sys, urllib.request
s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()
tid = os.environ["DET_TASK_ID"]
tok = os.environ.get("DET_NOTEBOOK_TOKEN", "")
bind = os.environ.get("DET_PROXY_BIND", "127.0.0.1")
env = dict(os.environ)
env.setdefault("JUPYTER_RUNTIME_DIR", os.path.join(os.getcwd(), ".jupyter-runtime"))
cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser",
       "--ServerApp.port=%d" % port, "--ServerApp.port_retries=0",
       "--ServerApp.ip=" + bind, "--ServerApp.base_url=/proxy/%s/" % tid,
       "--IdentityProvider.token=" + tok, "--ServerApp.allow_origin=*",
       "--ServerApp.allow_remote_access=True", "--ServerApp.trust_xheaders=True",
       "--ServerApp.allow_root=True",
       "--ServerApp.root_dir=" + os.getcwd()]
p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                     text=True, errors="replace", env=env)
def ready():
    url = "%s/api/v1/allocations/%s/ready" % (os.environ["DET_MASTER"].rstrip("/"),
                                              os.environ["DET_ALLOCATION_ID"])
    req = urllib.request.Request(url, data=json.dumps({"proxyPort": port}).encode(),
                                 method="POST")
    req.add_header("Content-Type", "application/json")
    req.add_header("Authorization", "Bearer " + os.environ.get("DET_SESSION_TOKEN", ""))
    cert = os.environ.get("DET_MASTER_CERT_FILE", "")
    ctx = None
    if url.startswith("https"):
        ctx = ssl._create_unverified_context() if cert == "noverify" else ssl.create_default_context(cafile=cert or None)
    urllib.request.urlopen(req, timeout=30, context=ctx).read()
said = False
for line in p.stdout:
    sys.stdout.write(line.replace(tok, "...") if tok else line)
    sys.stdout.flush()
    if not said and re.search(r"Jupyter Server .* is running", line):
        said = True
        try:
            ready()
            print("det: the notebook is ready", flush=True)
        except Exception as e:
            print("det: cannot report the notebook ready: %s" % e, flush=True)
sys.exit(p.wait())
)PY";

} // namespace

std::string notebook_entrypoint() {
  return std::string{"exec \"${DET_PYTHON_EXECUTABLE:-python3}\" -c '"}
         + notebook_script + "'";
}

} // namespace det::api
