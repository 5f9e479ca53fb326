"""det-master with a local pool whose provider starts real det-agent
processes, all on 127.0.0.1 (`Cluster`, also the REST client the suites
use), the `cluster_factory` and `moto_s3` fixtures, the sample
experiment's config, and checks of processes in /proc. Every wait is
bounded."""
import json
import os
import signal
import ssl
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from harness.master import admin_login, launch_master
from harness.paths import BIN, EXAMPLE, SCRIPTS
from harness.pg import Psql, fresh_database
from harness.wait import free_port, wait_for


class Cluster:
    def __init__(self, pg_url, tmp, name, reconnect_wait="5s", idle="3s",
                 max_instances=2, extra_config="", tls=None, agent_token="",
                 agent_args=(), extra_yaml="", env=None, work_dir=None, extra_pools="",
                 min_instances=0, scale_up_delay="0s"):
        """scale_up_delay: 0s (not the product's 5 s) so tests that scale from
        zero do not wait for it; tests of the delay pass their own.
        extra_pools: more items of resource_pools (YAML, indented as
        "  - pool_name: x"). tls: (cert, key, ca) PEM paths: the master serves https/wss and
        local agents trust `ca`. extra_config / extra_yaml: more top-level
        master.yaml. env: more environment for det-master. work_dir: the
        local provider's base folder (default <tmp>/agents); the cluster
        keeps its agents in a folder of its own under it."""
        self.tmp = tmp
        self.port = free_port()
        self.tls = tls
        self.ssl = ssl.create_default_context(cafile=tls[2]) if tls else None
        self.url = "%s://127.0.0.1:%d" % ("https" if tls else "http", self.port)
        if tls:
            extra_config += "\nsecurity:\n  tls:\n    cert: %s\n    key: %s\n" % tls[:2]
            agent_args = ["--ca-cert", tls[2]] + list(agent_args)
        if agent_token:
            extra_config += "\nagent_token: %s\n" % agent_token
        self.db = fresh_database(pg_url, name)
        self.work_dir = work_dir or os.path.join(tmp, "agents")
        # The agents' allocation folders: the test's own, not the shared
        # default under /tmp (where every earlier run's "1.1" of cluster
        # "determined" is kept, by other masters).
        agent_args = ["--work-dir", os.path.join(tmp, "agent-work")] + list(agent_args)
        self._cluster_dir = None
        self.ckpt_dir = os.path.join(tmp, "checkpoints")
        os.makedirs(self.ckpt_dir, exist_ok=True)
        self.config = os.path.join(tmp, "master.yaml")
        self.env = dict(os.environ, **(env or {}))
        with open(self.config, "w") as f:
            f.write("""
port: %d
agent_reconnect_wait: %s
checkpoint_storage:
  type: shared_fs
  host_path: %s
  storage_path: ckpt
resource_pools:
  - pool_name: default
    provider:
      type: local
      slots_per_instance: 1
      agent_binary: %s
      work_dir: %s
      min_instances: %d
      max_instances: %d
      max_idle_agent_period: %s
      max_agent_starting_period: 60s
      scale_up_delay: %s
      agent_args: %s
%s
%s
""" % (self.port, reconnect_wait, self.ckpt_dir, os.path.join(BIN, "det-agent"),
       self.work_dir, min_instances, max_instances, idle, scale_up_delay,
       json.dumps(list(agent_args)),
       extra_pools, extra_config) + extra_yaml)
        self.proc = None
        self.log_path = os.path.join(tmp, "master.log")
        self.token = None
        self.start()

    def start(self):
        self.proc = launch_master(self.config, self.db, self.port, self.log_path, env=self.env)
        wait_for("det-master to answer /info", lambda: self._up(), timeout=60)
        if self.token is None:  # sessions survive restarts
            self.token = admin_login(self.url, context=self.ssl)

    def _auth(self, req):
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        return req

    def _up(self):
        if self.proc.poll() is not None:
            pytest.fail("det-master exited: " + self.master_log()[-2000:])
        try:
            self.get("/info")
            return True
        except (urllib.error.URLError, ConnectionError):
            return False

    def master_log(self):
        with open(self.log_path) as f:
            return f.read()

    def get(self, path):
        req = self._auth(urllib.request.Request(self.url + path))
        with urllib.request.urlopen(req, timeout=10, context=self.ssl) as r:
            body = r.read().decode()
        return json.loads(body) if body.lstrip().startswith(("{", "[")) else body

    def get_text(self, path):
        req = self._auth(urllib.request.Request(self.url + path))
        with urllib.request.urlopen(req, timeout=10, context=self.ssl) as r:
            return r.read().decode()

    def post(self, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = self._auth(urllib.request.Request(self.url + path, data=data, method="POST"))
        try:
            with urllib.request.urlopen(req, timeout=10, context=self.ssl) as r:
                return r.status, json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")

    def submit(self, config_text, model_dir=EXAMPLE):
        if SCRIPTS not in sys.path:
            sys.path.insert(0, SCRIPTS)
        import submit  # scripts/submit.py
        return self.post("/api/v1/experiments", {
            "config": config_text, "modelDefinition": submit.model_files(model_dir),
            "activate": True})

    def experiment(self, exp_id):
        return self.get("/api/v1/experiments/%d" % exp_id)["experiment"]

    def trials(self, exp_id):
        return self.get("/api/v1/experiments/%d/trials" % exp_id)["trials"]

    def cluster_dir(self):
        """The local provider's folder of this cluster under work_dir: the
        one whose owner file names the cluster's host owner id (kept in its
        database); None before the master made it."""
        if self._cluster_dir:
            return self._cluster_dir
        try:
            owner = subprocess.check_output(
                ["psql", self.db, "-qAtc",
                 "SELECT value FROM cluster_secrets WHERE name = 'host_owner'"],
                text=True, stderr=subprocess.DEVNULL).strip()
        except subprocess.CalledProcessError:
            return None
        if not owner or not os.path.isdir(self.work_dir):
            return None
        for name in sorted(os.listdir(self.work_dir)):
            path = os.path.join(self.work_dir, name, "owner")
            try:
                if open(path).read().strip() == owner:
                    self._cluster_dir = os.path.join(self.work_dir, name)
                    return self._cluster_dir
            except OSError:
                continue
        return None

    def agent_pids(self):
        pids = {}
        base = self.cluster_dir()
        if not base:
            return pids
        for name in os.listdir(base):
            pid_file = os.path.join(base, name, "pid")
            if os.path.exists(pid_file):
                pid = int(open(pid_file).read().strip() or 0)
                if pid and alive(pid):
                    pids[name] = pid
        return pids

    def agent_log(self, agent_id):
        base = self.cluster_dir()
        path = os.path.join(base, agent_id, "agent.log") if base else ""
        return open(path).read() if path and os.path.exists(path) else ""

    def trial_groups(self, agent_id):
        """allocation id -> process group of the trials `agent_id` started
        (from its log: "allocation A running as process group N")."""
        groups = {}
        for line in self.agent_log(agent_id).splitlines():
            if " running as process group " in line:
                head, pgid = line.rsplit(" running as process group ", 1)
                groups[head.rsplit("allocation ", 1)[1]] = int(pgid)
        return groups

    # Class-level, so subclasses with __init__s of their own have it too.
    _psql = None

    def sql(self, query):
        """`query` on the cluster's database through one psql kept open
        (harness.pg.Psql): its rows as `psql -At` prints them."""
        if self._psql is None:
            self._psql = Psql(self.db)
        return self._psql.query(query)

    def kill_master(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def restart(self):
        """Stops the master (SIGTERM) and starts it again; the agents stay."""
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=30)
        self.start()

    def stop(self):
        if self._psql is not None:
            self._psql.close()
            self._psql = None
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        # What the agents started (trials, notebooks, shells): a task's
        # launcher ends its service and sessions on SIGTERM; the agents
        # themselves are killed outright.
        for agent in self.agent_pids():
            for pgid in self.trial_groups(agent).values():
                try:
                    os.killpg(pgid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for pid in self.agent_pids().values():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def group_alive(pgid):
    """Some process of group `pgid` runs (zombies do not count)."""
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by the master) is not alive.
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.fixture
def cluster_factory(pg_server, tmp_path, request):
    made = []

    def make(**kw):
        # A second cluster of one test gets its own database and folder.
        name = "e2e_" + request.node.name.lower().replace("[", "_").replace("]", "")[:40]
        tmp = str(tmp_path)
        if made:
            name += "_%d" % len(made)
            tmp = os.path.join(tmp, "cluster%d" % len(made))
            os.makedirs(tmp, exist_ok=True)
        c = Cluster(pg_server, tmp, name, **kw)
        made.append(c)
        return c
    yield make
    for c in made:
        c.stop()


def experiment_yaml(max_length=50, trials=1, batch_delay=0.02, max_restarts=2,
                    extra_hparams="", checkpoint_every=10, slots=1):
    return """
name: e2e
entrypoint: python3 train.py
max_restarts: %d
resources:
  slots_per_trial: %d
hyperparameters:
  learning_rate:
    type: double
    minval: 0.05
    maxval: 0.2
    count: %d
  batch_size: 16
  checkpoint_every: %d
  metrics_every: 5
  batch_delay: %s
%s
searcher:
  name: grid
  metric: validation_loss
  max_length:
    batches: %d
""" % (max_restarts, slots, trials, checkpoint_every, batch_delay, extra_hparams, max_length)


@pytest.fixture(scope="session")
def moto_s3(tmp_path_factory):
    """The moto AWS emulator in server mode on loopback (scripts/moto.sh):
    its URL. Tests give it the keys "testing"/"testing"."""
    pytest.importorskip("moto", reason="pip install moto[server]")
    d = str(tmp_path_factory.mktemp("moto"))
    script = os.path.join(SCRIPTS, "moto.sh")
    url = subprocess.check_output([script, "start", d], text=True).strip()
    yield url
    subprocess.call([script, "stop", d])
