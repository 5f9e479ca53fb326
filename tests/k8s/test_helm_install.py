"""`helm install` of the chart on the bed: the master and its bundled
PostgreSQL run as pods under the process kubelet (det-master from this
build, Debian's PostgreSQL for the `postgres` image), the master answers on
its pod's port, and `helm upgrade` with a changed value restarts it with the
new configuration while the database keeps its data.

Until det-master knows `resource_manager: {type: kubernetes}`, the install
goes through master_yaml.py as a helm post-renderer, which swaps that block
for the agent resource manager only while det-master refuses it."""
import json
import os
import sys
import urllib.request

import pytest

from conftest import BIN
from harness.k8s_bed import ROOT, free_port, wait_until

CHART = os.path.join(ROOT, "deploy", "helm", "determined")
HERE = os.path.dirname(os.path.abspath(__file__))


def get_json(url, token=None, timeout=5):
    req = urllib.request.Request(url)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.load(r)


def try_master(url):
    try:
        return get_json(url + "/api/v1/master")
    except OSError:
        return None


def login(url, password):
    body = json.dumps({"username": "admin", "password": password}).encode()
    req = urllib.request.Request(url + "/api/v1/auth/login", data=body,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)["token"]


@pytest.fixture(scope="module")
def release(bed, tmp_path_factory):
    if not os.path.exists(os.path.join(BIN, "det-master")):
        pytest.skip("det-master is not built (set DET_BUILD_DIR)")
    port, db_port = free_port(), free_port()
    ckpt = tmp_path_factory.mktemp("checkpoints")
    post = [sys.executable, os.path.join(HERE, "master_yaml.py")]
    wrapper = tmp_path_factory.mktemp("post") / "post-render.sh"
    wrapper.write_text('#!/bin/sh\nexec %s "$@"\n' % " ".join(post))
    wrapper.chmod(0o755)
    args = ["--namespace", "default", "--set", "maxSlotsPerPod=4", "--set", "db.password=db-pw",
            "--set", "useNodePortForMaster=true", "--set", "db.disablePVC=true",
            "--set", "masterPort=%d" % port, "--set", "db.port=%d" % db_port,
            "--set", "masterListenAddress=127.0.0.1", "--set", "initialUserPassword=admin-pw",
            "--set", "checkpointStorage.hostPath=%s" % ckpt, "--set", "clusterName=first",
            "--set", "nodeSelector.det-bed=process",
            "--set", "masterCpuRequest=100m", "--set", "masterMemRequest=256Mi",
            "--set", "db.cpuRequest=100m", "--set", "db.memRequest=256Mi",
            "--post-renderer", str(wrapper), "--post-renderer-args", os.path.join(BIN, "det-master"),
            "--wait", "--timeout", "180s"]
    out = bed.helm("install", "det", CHART, *args, timeout=240)
    return {"url": "http://127.0.0.1:%d" % port, "args": args, "notes": out}


def test_install_brings_up_the_master_with_its_database_behind_a_node_port(bed, release):
    m = wait_until("the master to answer", lambda: try_master(release["url"]), timeout=60)
    assert m["clusterName"] == "first"
    svc = bed.kube.get("/api/v1/namespaces/default/services/determined-master-service-det")
    assert svc["spec"]["type"] == "NodePort"
    assert 30000 <= svc["spec"]["ports"][0]["nodePort"] <= 32767
    assert bed.kube.get("/api/v1/namespaces/default/persistentvolumeclaims")["items"] == []
    pods = bed.kube.get("/api/v1/namespaces/default/pods", {"labelSelector": "release=det"})["items"]
    assert sorted(p["metadata"]["labels"]["determined-system"] for p in pods) == ["db", "master"]
    assert {p["spec"]["nodeName"] for p in pods} <= {"det-proc-gpu-0", "det-proc-cpu-0"}
    assert all(p["status"]["phase"] == "Running" for p in pods)
    # The master reached the bundled database: it created the users with
    # the chart's initial password.
    token = login(release["url"], "admin-pw")
    me = get_json(release["url"] + "/api/v1/me", token)
    assert me["user"]["username"] == "admin"
    assert "NODE_PORT" in release["notes"]


def test_upgrade_with_a_changed_value_restarts_the_master_with_it(bed, release):
    wait_until("the master to answer", lambda: try_master(release["url"]), timeout=60)
    before = {p["metadata"]["labels"]["determined-system"]: p["metadata"]["uid"] for p in
              bed.kube.get("/api/v1/namespaces/default/pods", {"labelSelector": "release=det"})["items"]}
    args = [a if a != "clusterName=first" else "clusterName=second" for a in release["args"]]
    bed.helm("upgrade", "det", CHART, *args, timeout=240)
    wait_until("the upgraded master", lambda: (try_master(release["url"]) or {}).get("clusterName") == "second",
               timeout=90)
    after = {p["metadata"]["labels"]["determined-system"]: p["metadata"]["uid"] for p in
             bed.kube.get("/api/v1/namespaces/default/pods", {"labelSelector": "release=det"})["items"]}
    assert after["master"] != before["master"]
    assert after["db"] == before["db"]
    # Same database: the users the first master created are still there.
    login(release["url"], "admin-pw")
    assert "REVISION: 2" in bed.helm("status", "det", "-n", "default")
