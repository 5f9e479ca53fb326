"""The Kubernetes test bed for pytest suites (tests/k8s/bed/bed.sh): a
real etcd, API server, controller-manager and scheduler, kwok's fake nodes
and the process kubelet's nodes, all on free loopback ports in a temporary
folder. Import start_bed() for a suite's own fixture, or use the `bed`
fixture of tests/k8s/conftest.py. Importing this module puts the bed's
folder on sys.path (its kube_rest, pod_env, ... modules).

The first start in a machine's life builds the programs (about 15 minutes on
two cores, cached outside the repository: tests/k8s/bed/build.sh)."""
import os
import shutil
import subprocess
import sys
import tempfile

from harness.paths import K8S_BED_DIR, ROOT  # noqa: F401
from harness.wait import free_port, wait_until  # noqa: F401

BED_DIR = K8S_BED_DIR
BED = os.path.join(BED_DIR, "bed.sh")
if BED_DIR not in sys.path:
    sys.path.insert(0, BED_DIR)
from kube_rest import Kube  # noqa: E402


class Bed:
    """A running bed: `kube` (REST as the admin), `kubectl(...)` and
    `helm(...)` (run with the bed's kubeconfig, output returned), `env`
    (what bed.env exports), `dir`."""

    def __init__(self, d, env):
        self.dir = d
        self.env = env
        self.kubeconfig = env["KUBECONFIG"]
        self.bin = env["K8S_BED_BIN"]
        self.kube = Kube(self.kubeconfig)

    def _run(self, prog, args, check=True, timeout=120, input=None):
        env = dict(os.environ, KUBECONFIG=self.kubeconfig,
                   HELM_CACHE_HOME=os.path.join(self.dir, "helm", "cache"),
                   HELM_CONFIG_HOME=os.path.join(self.dir, "helm", "config"),
                   HELM_DATA_HOME=os.path.join(self.dir, "helm", "data"))
        p = subprocess.run([os.path.join(self.bin, prog)] + list(args), env=env, text=True,
                           capture_output=True, timeout=timeout, input=input)
        if check and p.returncode != 0:
            raise AssertionError("%s %s failed (%d): %s%s" % (prog, " ".join(args), p.returncode,
                                                               p.stdout, p.stderr))
        return p

    def kubectl(self, *args, **kw):
        return self._run("kubectl", args, **kw).stdout

    def helm(self, *args, **kw):
        return self._run("helm", args, **kw).stdout

    def restart_apiserver(self):
        """Compacts etcd and restarts the kube-apiserver (bed.sh
        restart-apiserver): every watch is cut, and one resumed from a
        resourceVersion before the restart is answered 410 Gone."""
        p = subprocess.run([BED, "restart-apiserver", self.dir], text=True,
                           capture_output=True, timeout=120)
        if p.returncode != 0:
            raise AssertionError("bed.sh restart-apiserver failed: %s" % p.stderr)


def bed_env(d):
    env = {}
    with open(os.path.join(d, "bed.env")) as f:
        for line in f:
            k, _, v = line.strip().removeprefix("export ").partition("=")
            env[k] = v
    return env


def start_bed(kubelet_args=(), process_nodes=None, kwok_nodes=True, d=None):
    """Starts a bed on free ports; returns (Bed, stop). kubelet_args: more
    process-kubelet options (--image/--bin maps). With K8S_BED_REUSE=DIR
    (a bed already up, e.g. from `bed.sh up DIR`), uses that one and leaves
    it running."""
    if os.environ.get("K8S_BED_REUSE"):
        reuse = os.environ["K8S_BED_REUSE"]
        return Bed(reuse, bed_env(reuse)), lambda: None
    d = d or tempfile.mkdtemp(prefix="det-k8s-bed-")
    os.chmod(d, 0o755)  # the bundled database's server runs as `postgres`
    env = dict(os.environ,
               K8S_BED_ETCD_PORT=str(free_port()), K8S_BED_ETCD_PEER_PORT=str(free_port()),
               K8S_BED_APISERVER_PORT=str(free_port()), K8S_BED_KWOK_PORT=str(free_port()),
               K8S_BED_KUBELET_PORT=str(free_port()), K8S_BED_KWOK_NODES="1" if kwok_nodes else "0",
               K8S_BED_KUBELET_ARGS=" ".join(kubelet_args))
    if process_nodes is not None:
        env["K8S_BED_PROCESS_NODES"] = process_nodes

    def stop():
        subprocess.call([BED, "down", d], timeout=60)
        if not os.environ.get("DET_K8S_BED_KEEP"):
            shutil.rmtree(d, ignore_errors=True)

    p = subprocess.run([BED, "up", d], env=env, text=True, capture_output=True, timeout=3600)
    if p.returncode != 0:
        logs = ""
        for name in sorted(os.listdir(os.path.join(d, "logs"))) if os.path.isdir(os.path.join(d, "logs")) else []:
            with open(os.path.join(d, "logs", name), errors="replace") as f:
                logs += "\n== %s\n%s" % (name, f.read()[-3000:])
        stop()
        raise RuntimeError("bed.sh up failed: %s%s" % (p.stderr, logs))
    return Bed(d, bed_env(d)), stop
