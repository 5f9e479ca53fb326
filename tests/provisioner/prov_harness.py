"""Fixtures for the aws provisioner tests: moto in server mode and a
fault-injecting proxy in front of it (both on 127.0.0.1), det-master with an
aws pool pointed at the proxy, and an "instance runner" that plays the EC2
instances moto pretends to launch: for every instance carrying the pool's
tags it starts a real det-agent whose agent id is the instance id, and stops
it when the instance is terminated (moto runs no user data). Every wait is
bounded. The master, database and waits are the shared harness's
(tests/harness/); this adds what is aws-specific."""
import os
import signal
import subprocess
import sys
import threading
import time
import uuid

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))

from fault_proxy import FaultProxy  # noqa: E402
from harness.cluster import Cluster, experiment_yaml  # noqa: E402,F401
from harness.master import admin_login, launch_master  # noqa: E402
from harness.paths import BIN, ROOT  # noqa: E402,F401
from harness.pg import fresh_database, pg_server  # noqa: E402,F401
from harness.wait import free_port, wait_for  # noqa: E402

TAG_KEY = "managed_by"


@pytest.fixture(scope="session")
def moto_url():
    port = free_port()
    log = open(os.path.join(os.environ.get("TMPDIR", "/tmp"), "det-prov-moto-%d.log" % port), "wb")
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1",
                             "-p", str(port)], stdout=log, stderr=subprocess.STDOUT)
    url = "http://127.0.0.1:%d" % port
    import urllib.request

    def up():
        if proc.poll() is not None:
            pytest.fail("moto exited")
        try:
            urllib.request.urlopen(url + "/moto-api/", timeout=2).read()
            return True
        except OSError:
            return False
    wait_for("moto to answer", up, timeout=60)
    yield url
    proc.terminate()
    proc.wait(timeout=10)
    log.close()


@pytest.fixture
def ec2(moto_url):
    import boto3
    from botocore.config import Config
    return boto3.client("ec2", endpoint_url=moto_url, region_name="us-east-1",
                        aws_access_key_id="testing", aws_secret_access_key="testing",
                        config=Config(retries={"max_attempts": 1}))


@pytest.fixture
def proxy(moto_url):
    p = FaultProxy(moto_url)
    yield p
    p.stop()


def tagged(ec2, tag_value, pool="default", states=("pending", "running")):
    """Instances with exactly our tags, as boto3 sees them."""
    out = []
    for page in ec2.get_paginator("describe_instances").paginate(Filters=[
            {"Name": "tag:" + TAG_KEY, "Values": [tag_value]},
            {"Name": "tag:det-pool", "Values": [pool]},
            {"Name": "instance-state-name", "Values": list(states)}]):
        for r in page["Reservations"]:
            out.extend(r["Instances"])
    return out


def tags_of(inst):
    return {t["Key"]: t["Value"] for t in inst.get("Tags", [])}


class InstanceRunner:
    """Starts a det-agent for each of the pool's instances; stops it when
    moto says the instance is gone."""

    def __init__(self, ec2, tag_value, master_url, work_dir, pool="default"):
        self.ec2, self.tag_value, self.pool = ec2, tag_value, pool
        self.master_url, self.work_dir = master_url, work_dir
        self.agents = {}
        self.extra_args, self.extra_env = [], {}
        self.stop_flag = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop_flag.wait(0.3):
            try:
                seen = tagged(self.ec2, self.tag_value, self.pool,
                              states=("pending", "running", "shutting-down", "terminated"))
            except Exception:  # moto busy: try again
                continue
            for inst in seen:
                iid, st = inst["InstanceId"], inst["State"]["Name"]
                if st in ("pending", "running") and iid not in self.agents:
                    d = os.path.join(self.work_dir, iid)
                    os.makedirs(d, exist_ok=True)
                    # As on EC2, the agent's token comes from the user data
                    # the master gave the instance.
                    env = dict(os.environ, **self.extra_env)
                    token = self._token_of(iid)
                    if token:
                        env["DET_AGENT_TOKEN"] = token
                    self.agents[iid] = subprocess.Popen(
                        [os.path.join(BIN, "det-agent"), "--master-url", self.master_url,
                         "--resource-pool", self.pool, "--slots", "1", "--agent-id", iid,
                         "--work-dir", d] + list(self.extra_args),
                        stdout=open(os.path.join(d, "agent.log"), "a"),
                        stderr=subprocess.STDOUT, cwd=d, env=env)
                elif st in ("shutting-down", "terminated") and iid in self.agents:
                    p = self.agents[iid]
                    if p.poll() is None:
                        p.send_signal(signal.SIGKILL)  # the machine is gone

    def _token_of(self, iid):
        """DET_AGENT_TOKEN as the instance's user data exports it."""
        import base64
        import shlex
        try:
            data = self.ec2.describe_instance_attribute(
                InstanceId=iid, Attribute="userData")["UserData"].get("Value", "")
        except Exception:  # moto busy: the agent goes without, and is refused
            return None
        for line in base64.b64decode(data).decode(errors="replace").splitlines():
            if line.startswith("export DET_AGENT_TOKEN="):
                return shlex.split(line.split("=", 1)[1])[0]
        return None

    def stop(self):
        self.stop_flag.set()
        self.thread.join(timeout=10)
        for p in self.agents.values():
            if p.poll() is None:
                p.kill()
            p.wait(timeout=10)


class AwsCluster(Cluster):
    """det-master with one aws pool "default" whose EC2 endpoint is the
    fault proxy in front of moto."""

    def __init__(self, pg_url, tmp, name, ec2, endpoint, subnet, sg, tag_value,
                 max_instances=2, min_instances=0, idle="3s", spot=False,
                 alternatives=(), env=None, reconnect_wait="5s", starting="60s",
                 master_url=None, security_group_name=None, log_group=None):
        self.tmp, self.ec2, self.tag_value = tmp, ec2, tag_value
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        self.tls, self.ssl, self.token = None, None, None
        self.db = fresh_database(pg_url, name)
        self.work_dir = os.path.join(tmp, "instances")
        self.ckpt_dir = os.path.join(tmp, "checkpoints")
        os.makedirs(self.ckpt_dir, exist_ok=True)
        self.config = os.path.join(tmp, "master.yaml")
        alt = "".join("\n        - %s" % a for a in alternatives)
        with open(self.config, "w") as f:
            f.write("""
port: %d
cluster_id: %s
agent_reconnect_wait: %s
checkpoint_storage:
  type: shared_fs
  host_path: %s
  storage_path: ckpt
resource_pools:
  - pool_name: default
    provider:
      type: aws
      region: us-east-1
      endpoint_url: %s
      master_url: %s
      image_id: ami-12345678
      instance_type: t2.micro
      instance_slots: 1
      alternative_instance_types: [%s]
      ssh_key_name: det-test-key
      tag_key: %s
      tag_value: %s
      spot: %s
      network_interface:
        public_ip: true
        subnet_id: %s
        security_group_id: %s
      min_instances: %d
      max_instances: %d
      max_idle_agent_period: %s
      max_agent_starting_period: %s
      scale_up_delay: 0s
""" % (self.port, "c" + tag_value[-8:], reconnect_wait, self.ckpt_dir, endpoint,
       master_url or self.url,
       ", ".join(alternatives), TAG_KEY, tag_value, "true" if spot else "false",
       subnet, sg, min_instances, max_instances, idle, starting))
        if security_group_name is not None:
            # The older documents' spelling: the group by its name, which
            # det-master looks up (DescribeSecurityGroups) at start-up.
            with open(self.config) as f:
                text = f.read()
            text = text.replace("        security_group_id: %s\n" % sg, "")
            text = text.replace("      min_instances:", "      security_group: %s\n"
                                "      min_instances:" % security_group_name)
            with open(self.config, "w") as f:
                f.write(text)
        if log_group is not None:
            # The pool's CloudWatch log group (docs/cloudwatch.md).
            with open(self.config) as f:
                text = f.read()
            text = text.replace("      min_instances:", "      log_group: %s\n"
                                "      min_instances:" % log_group)
            with open(self.config, "w") as f:
                f.write(text)
        self.env = dict(os.environ, AWS_ACCESS_KEY_ID="testing",
                        AWS_SECRET_ACCESS_KEY="testing", AWS_EC2_METADATA_DISABLED="true",
                        DET_PROVISIONER_LIST_INTERVAL_MS="300",
                        DET_PROVISIONER_TICK_MS="200",
                        DET_PROVISIONER_ORPHAN_GRACE_MS="2000")
        self.env.update(env or {})
        self.proc = None
        self.log_path = os.path.join(tmp, "master.log")
        self.runner = None
        self.start()

    def start(self, env=None, wait=True):
        self.proc = launch_master(self.config, self.db, self.port, self.log_path,
                                  env=dict(self.env, **(env or {})))
        if wait:
            wait_for("det-master to answer /info", lambda: self._up(), timeout=60)
            self.login()

    def login(self):
        """The admin session every route but /info needs (kept across
        restarts: sessions are events)."""
        if self.token is None:
            self.token = admin_login(self.url)

    def run_instances(self):
        self.runner = InstanceRunner(self.ec2, self.tag_value, self.url, self.work_dir)
        return self.runner

    def pool(self):
        return self.get("/api/v1/resource-pools")["resourcePools"][0]

    def agent_pids(self):
        return {}

    def stop(self):
        super().stop()
        if self.runner:
            self.runner.stop()


@pytest.fixture
def network(ec2):
    vpc = ec2.create_vpc(CidrBlock="10.9.0.0/16")["Vpc"]["VpcId"]
    subnet = ec2.create_subnet(VpcId=vpc, CidrBlock="10.9.1.0/24")["Subnet"]["SubnetId"]
    sg = ec2.create_security_group(GroupName="det-" + uuid.uuid4().hex[:8],
                                   Description="det test", VpcId=vpc)["GroupId"]
    return subnet, sg


@pytest.fixture
def aws_cluster(pg_server, tmp_path, request, ec2, proxy, network):
    made = []

    def make(**kw):
        name = "prov_" + request.node.name.lower().replace("[", "_").replace("]", "")[:40]
        tag_value = kw.pop("tag_value", "det-test-" + uuid.uuid4().hex[:12])
        c = AwsCluster(pg_server, str(tmp_path), name, ec2, proxy.url, network[0],
                       network[1], tag_value, **kw)
        made.append(c)
        return c
    yield make
    for c in made:
        c.stop()
