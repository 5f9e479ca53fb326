"""det-master with `resource_manager: {type: kubernetes}` on the test bed,
for the end-to-end suites of the kubernetes resource manager: its own
namespace and database, the real `det` CLI and the REST API as admin.
`rm_yaml` is the resource_manager and resource_pools part of master.yaml
(formatted with ns, kubeconfig and port)."""
import json
import os
import shutil
import signal
import subprocess
import urllib.request

import pytest

from harness.master import answers_info, launch_master
from harness.paths import BIN, BUILD, ROOT  # noqa: F401
from harness.pg import fresh_database
from harness.wait import free_port

DET = shutil.which("det")


class RmMaster:
    def __init__(self, bed, pg_url, tmp, name, rm_yaml, wait_until):
        self.bed, self.tmp, self.wait_until = bed, tmp, wait_until
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        self.ns = name.replace("_", "-")
        self.cluster_id = "rm-" + self.ns
        bed.kubectl("create", "namespace", self.ns)
        self.db = fresh_database(pg_url, name)
        self.ckpt = os.path.join(tmp, "checkpoints")
        os.makedirs(self.ckpt, exist_ok=True)
        self.config = os.path.join(tmp, "master.yaml")
        with open(self.config, "w") as f:
            f.write("port: %d\ncluster_id: %s\n" % (self.port, self.cluster_id))
            f.write("checkpoint_storage: {type: shared_fs, host_path: %s, storage_path: ckpt}\n"
                    % self.ckpt)
            f.write(rm_yaml.format(ns=self.ns, kubeconfig=bed.kubeconfig, port=self.port))
        self.log_path = os.path.join(tmp, "master.log")
        self.home = os.path.join(tmp, "home")
        os.makedirs(self.home, exist_ok=True)
        self.proc = None
        self._token = None
        self.start()

    def start(self):
        self.proc = launch_master(self.config, self.db, self.port, self.log_path)
        self.wait_until("det-master to answer /info", self._up, timeout=60)

    def _up(self):
        if self.proc.poll() is not None:
            pytest.fail("det-master exited:\n" + self.log()[-3000:])
        return answers_info(self.url)

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def det(self, *args, check=True):
        env = dict(os.environ, DET_MASTER=self.url, HOME=self.home, DET_USER="admin",
                   DET_PASS="", XDG_CONFIG_HOME=os.path.join(self.home, ".config"))
        p = subprocess.run([DET] + list(args), env=env, capture_output=True, text=True,
                           timeout=120)
        if check:
            assert p.returncode == 0, "det %s failed:\n%s%s" % (" ".join(args), p.stdout, p.stderr)
        return p

    def api(self, path, method="GET", body=None):
        if self._token is None:
            self._token = json.loads(urllib.request.urlopen(urllib.request.Request(
                self.url + "/api/v1/auth/login", method="POST",
                data=json.dumps({"username": "admin", "password": ""}).encode(),
                headers={"Content-Type": "application/json"}), timeout=10).read())["token"]
        req = urllib.request.Request(
            self.url + path, method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers=dict({"Authorization": "Bearer " + self._token},
                         **({} if body is None else {"Content-Type": "application/json"})))
        return json.loads(urllib.request.urlopen(req, timeout=10).read())

    def stop(self):
        # det-master ends within seconds of SIGTERM. One still running 15 s
        # later is a bug: it once waited, after logging "stopped", on the
        # node watch's threads and on each pool's agent actor, which nothing
        # ended, until killed.
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError("det-master was still running 15 s after SIGTERM")
