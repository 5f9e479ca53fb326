#include "api/ntsc_entrypoints.hpp"

namespace det::api {

namespace {

// No single quote inside: the script goes into '...' for /bin/sh.
const char* const notebook_script = R"PY(
import json, os, re, socket, ssl, subprocess, sys, threading, time, urllib.request
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
call = det_call
def ready():
    det_ready(port)
seen_activity = [None]
host = "127.0.0.1" if bind in ("", "0.0.0.0", "::") else bind
def idle():
    got = {}
    for what in ("kernels", "terminals", "sessions"):
        r = urllib.request.Request("http://%s:%d/proxy/%s/api/%s" % (host, port, tid, what),
                                   headers={"Authorization": "token " + tok})
        got[what] = json.loads(urllib.request.urlopen(r, timeout=30).read() or b"[]")
    mode = os.environ.get("NOTEBOOK_IDLE_TYPE", "kernels_or_terminals")
    if mode == "kernel_connections":
        return all(k.get("connections", 0) == 0 for k in got["kernels"])
    if mode == "activity":
        last = max([x.get("last_activity", "") for x in got["kernels"] + got["terminals"]] or [None])
        moved = last != seen_activity[0]
        seen_activity[0] = last
        return not moved and all(k.get("execution_state") != "busy" for k in got["kernels"])
    return not got["kernels"] and not got["terminals"] and not got["sessions"]
def report_idle():
    every = float(os.environ.get("DET_IDLE_REPORT_SECONDS", "30"))
    # Jupyter says it is running a moment before it takes connections:
    # the first look waits for its port (at most 30 s), so that a busy
    # machine does not turn into a report that failed.
    until = time.time() + 30
    while time.time() < until:
        try:
            socket.create_connection((host, port), timeout=2).close()
            break
        except OSError:
            time.sleep(0.2)
    first = True
    while True:
        try:
            call("/api/v1/notebooks/%s/report_idle" % tid, {"idle": idle()}, "PUT",
                 os.environ.get("DET_USER_TOKEN", ""))
            if first:
                print("det: reporting to the master whether Jupyter is idle, every %g s"
                      % every, flush=True)
                first = False
        except Exception as e:
            print("det: cannot report the notebook busy or idle: %s" % e, flush=True)
        time.sleep(every)
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
        threading.Thread(target=report_idle, daemon=True).start()
sys.exit(p.wait())
)PY";

// No single quote inside: the script goes into '...' for /bin/sh.
const char* const shell_script = R"PY(
import json, os, re, shutil, signal, socket, ssl, subprocess, sys, time, urllib.request
home = os.path.join(os.getcwd(), ".ssh-shell")
os.makedirs(home, mode=0o700, exist_ok=True)
sshd = os.environ.get("DET_SSHD") or shutil.which("sshd") or "/usr/sbin/sshd"
bind = os.environ.get("DET_PROXY_BIND", "127.0.0.1")
pub = os.environ.get("DET_SHELL_PUBLIC_KEY", "").strip()
if not pub.startswith("ssh-") or "\n" in pub:
    sys.exit("det: the shell has no public key")
host_key = os.path.join(home, "host_ed25519")
if not os.path.exists(host_key):
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", host_key],
                   check=True, stdin=subprocess.DEVNULL)
skip = {"_", "HOME", "TERM", "LANG", "PWD", "OLDPWD", "SHLVL", "LS_COLORS"}
opts = []
for k, v in sorted(os.environ.items()):
    if k in skip or k.startswith("LC_") or k.startswith("SSH_"):
        continue
    # sshd reads only \" as an escape: a value ending in a backslash
    # would swallow the closing quote.
    if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", k) or "\n" in v or "\r" in v \
            or v.endswith("\\"):
        continue
    v = v.replace("\"", "\\\"")
    opts.append("environment=\"%s=%s\"" % (k, v))
keys = os.path.join(home, "authorized_keys")
with open(keys, "w") as f:
    f.write(",".join(opts) + (" " if opts else "") + pub + "\n")
os.chmod(keys, 0o600)
if os.geteuid() == 0:
    os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
def config(port):
    cfg = os.path.join(home, "sshd_config")
    with open(cfg, "w") as f:
        f.write("\n".join([
            "Port %d" % port, "ListenAddress " + bind, "HostKey " + host_key,
            "AuthorizedKeysFile " + keys, "PidFile " + os.path.join(home, "sshd.pid"),
            "PermitUserEnvironment yes", "PubkeyAuthentication yes",
            "PasswordAuthentication no", "KbdInteractiveAuthentication no",
            "PermitRootLogin prohibit-password", "UsePAM no", "StrictModes no",
            "AllowTcpForwarding yes", "X11Forwarding no", "PrintMotd no",
            "Subsystem sftp internal-sftp", ""]))
    return cfg
def free_port():
    s = socket.socket()
    s.bind((bind, 0))
    port = s.getsockname()[1]
    s.close()
    return port
ready = det_ready
proc = None
# sshd puts each connection in a session of its own, out of the process
# group the agent kills; as a subreaper this launcher inherits them when
# sshd dies first, so they stay its descendants and are killed with it.
try:
    import ctypes
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
except Exception:
    pass
def descendants(root):
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [root]
    while todo:
        for k in kids.get(todo.pop(), []):
            out.append(k)
            todo.append(k)
    return out
def kill_all():
    for _ in range(5):
        pids = descendants(os.getpid())
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    # Reaps them (adopted ones too), within about a second.
    for _ in range(20):
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            return
        time.sleep(0.05)
def stop(*_):
    kill_all()
    os._exit(143)
signal.signal(signal.SIGTERM, stop)
for attempt in range(3):
    port = free_port()
    proc = subprocess.Popen([sshd, "-D", "-e", "-f", config(port)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, errors="replace")
    said = False
    for line in proc.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
        if not said and "Server listening on" in line:
            said = True
            try:
                ready(port)
                print("det: the shell is ready", flush=True)
            except Exception as e:
                print("det: cannot report the shell ready: %s" % e, flush=True)
    code = proc.wait()
    if said or attempt == 2:
        break
    print("det: sshd exited with %d before listening; trying another port" % code, flush=True)
kill_all()
sys.exit(code)
)PY";

// What every launcher starts with: det_call(path, body, method, token)
// calls the master (trusting its certificate as det-agent does), and
// det_ready(port) reports the allocation's service ready there with the
// allocation's own token. No single quote inside.
const char* const master_calls = R"PY(
import json, os, ssl, urllib.request
def det_call(path, body, method, token):
    url = os.environ["DET_MASTER"].rstrip("/") + path
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method=method)
    req.add_header("Content-Type", "application/json")
    req.add_header("Authorization", "Bearer " + token)
    cert = os.environ.get("DET_MASTER_CERT_FILE", "")
    ctx = None
    if url.startswith("https"):
        ctx = ssl._create_unverified_context() if cert == "noverify" else ssl.create_default_context(cafile=cert or None)
    urllib.request.urlopen(req, timeout=30, context=ctx).read()
def det_ready(port):
    det_call("/api/v1/allocations/%s/ready" % os.environ["DET_ALLOCATION_ID"],
             {"proxyPort": port}, "POST", os.environ.get("DET_SESSION_TOKEN", ""))
)PY";

} // namespace

std::string python_entrypoint(const char* script) {
  return std::string{"exec \"${DET_PYTHON_EXECUTABLE:-python3}\" -c '"}
         + master_calls + script + "'";
}

std::string notebook_entrypoint() {
  return python_entrypoint(notebook_script);
}

std::string shell_entrypoint() {
  return python_entrypoint(shell_script);
}

} // namespace det::api
