"""Kubernetes nodes as agents, end to end: det-master with the kubernetes
resource manager on the test bed (real API server and scheduler, kwok
nodes), the real `det` CLI. `det agent list` shows the nodes with their
slots and pools; a node added raises the pool's capacity so a pending trial
starts; `det agent disable NODE` labels the node (seen with kubectl), the
pool's capacity drops and a new trial's pods are not placed on it; `det
agent enable NODE` removes the label.

The suite makes its own kwok nodes (tainted so no other suite's pods land
on them, labelled for this suite's pool) and deletes them at the end.
"""
import json
import os
import re

import pytest

from harness import k8s_bed
from harness.paths import EXAMPLE
from harness.pg import start_pg
from harness.rm_master import BIN, DET, RmMaster

LABEL = "det-nodes-e2e"

pytestmark = [
    pytest.mark.skipif(DET is None, reason="the det CLI is not installed"),
    pytest.mark.skipif(not os.path.exists(os.path.join(BIN, "det-master")),
                       reason="det-master is not built (set DET_BUILD_DIR)"),
]

RM_YAML = """
resource_manager:
  type: kubernetes
  default_namespace: {ns}
  max_slots_per_pod: 8
  slot_type: gpu
  kubeconfig_path: {kubeconfig}
  determined_master_host: 127.0.0.1
  determined_master_port: {port}
resource_pools:
  - pool_name: default
    task_container_defaults:
      gpu_pod_spec:
        spec:
          nodeSelector: {{%s: "1"}}
          tolerations: [{{key: %s, operator: Exists, effect: NoSchedule}}]
""" % (LABEL, LABEL)


def wait_until(what, predicate, timeout=90.0):
    return k8s_bed.wait_until(what, predicate, timeout=timeout, interval=0.25)


def kwok_node(name, gpus):
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name,
                     "annotations": {"kwok.x-k8s.io/node": "fake",
                                     "node.alpha.kubernetes.io/ttl": "0"},
                     "labels": {LABEL: "1", "type": "kwok",
                                "kubernetes.io/hostname": name}},
        "spec": {"taints": [{"key": LABEL, "value": "1", "effect": "NoSchedule"}]},
        "status": {"allocatable": {"cpu": str(4 * gpus), "memory": "64Gi", "pods": "110",
                                   "nvidia.com/gpu": str(gpus)},
                   "capacity": {"cpu": str(4 * gpus), "memory": "64Gi", "pods": "110",
                                "nvidia.com/gpu": str(gpus)}}}


def add_node(bed, name, gpus):
    bed.kubectl("apply", "-f", "-", input=json.dumps(kwok_node(name, gpus)))
    wait_until("kwok to make %s Ready" % name, lambda: any(
        c["type"] == "Ready" and c["status"] == "True"
        for c in json.loads(bed.kubectl("get", "node", name, "-o", "json"))
        ["status"].get("conditions", [])))


@pytest.fixture(scope="module")
def pg():
    url, stop = start_pg("det-k8s-nodes-pg-")
    yield url
    stop()


@pytest.fixture(scope="module")
def master(bed, pg, tmp_path_factory):
    names = ["det-nodes-a", "det-nodes-b"]
    for n in names:
        add_node(bed, n, 8)
    m = RmMaster(bed, pg, str(tmp_path_factory.mktemp("k8s-nodes")), "k8s_nodes", RM_YAML,
                 wait_until)
    m.extra_nodes = names
    # The master answers before its first list of the nodes is in (a slow
    # API server must not hold up its start): wait for both nodes' slots.
    wait_until("the pool to count 16 slots", lambda: pool_slots(m) == 16)
    yield m
    m.stop()
    bed.kubectl("delete", "namespace", m.ns, "--wait=false", check=False)
    bed.kubectl("delete", "node", *m.extra_nodes, "--ignore-not-found", check=False)


def pool_slots(m):
    pools = m.api("/api/v1/resource-pools")["resourcePools"]
    return [p for p in pools if p["name"] == "default"][0]["slotsAvailable"]


def experiment(m, tmp, slots):
    path = os.path.join(tmp, "exp-%d.yaml" % slots)
    with open(path, "w") as f:
        f.write("""
name: k8s-nodes-%d
entrypoint: python3 train.py
max_restarts: 0
resources: {slots_per_trial: %d}
hyperparameters: {learning_rate: 0.1, batch_size: 16}
searcher: {name: single, metric: validation_loss, max_length: {batches: 10}}
""" % (slots, slots))
    out = m.det("experiment", "create", path, EXAMPLE).stdout
    return int(re.search(r"Created experiment (\d+)", out).group(1))


def trials_of(m, exp):
    return m.api("/api/v1/experiments/%d/trials" % exp)["trials"]


def pods(m):
    return json.loads(m.bed.kubectl("get", "pods", "-n", m.ns, "-o", "json"))["items"]


def placed(m, exp):
    """The nodes the experiment's pods were bound to."""
    return [p["spec"]["nodeName"] for p in pods(m)
            if p["metadata"].get("labels", {}).get("determined.ai/experiment_id") == str(exp)
            and p["spec"].get("nodeName")]


def node_labels(bed, name):
    return json.loads(bed.kubectl("get", "node", name, "-o", "json"))["metadata"].get("labels", {})


def test_nodes_are_agents_capacity_follows_them_and_disable_labels_a_node(master, tmp_path):
    m, bed, tmp = master, master.bed, str(tmp_path)

    # det agent list: every node, ours with 8 slots in pool default; nodes
    # the pool may not use (no label, or untolerated taint) in no pool.
    agents = {a["id"]: a for a in m.api("/api/v1/agents")["agents"]}
    assert len(agents["det-nodes-a"]["slots"]) == 8
    assert agents["det-nodes-a"]["resourcePools"] == ["default"]
    assert agents["det-nodes-a"]["enabled"] is True
    assert "k8s-default" not in agents
    listed = m.det("agent", "list").stdout
    assert "det-nodes-a" in listed and "det-nodes-b" in listed, listed
    one = m.api("/api/v1/agents/det-nodes-b")["agent"]
    assert one["id"] == "det-nodes-b" and len(one["slots"]) == 8

    # A 24-slot trial (3 pods of 8) waits: no Job while 16 slots exist.
    exp = experiment(m, tmp, 24)
    wait_until("the trial to exist", lambda: trials_of(m, exp))
    assert trials_of(m, exp)[0]["state"] == "STATE_QUEUED"
    assert pods(m) == []

    # A third node, bigger than the others: the pool grows and the trial
    # starts (kwok completes a Job's pods at once, so the trial then ends).
    add_node(bed, "det-nodes-c", 16)
    m.extra_nodes.append("det-nodes-c")
    wait_until("the pool to count 32 slots", lambda: pool_slots(m) == 32)
    wait_until("the trial's 3 pods to be placed", lambda: len(placed(m, exp)) == 3)

    # det agent disable: the label, the pool's capacity down by 16.
    m.det("agent", "disable", "det-nodes-c")
    assert node_labels(bed, "det-nodes-c").get("determined.ai/disabled") == "true"
    wait_until("the pool to count 16 slots again", lambda: pool_slots(m) == 16)
    agents = {a["id"]: a for a in m.api("/api/v1/agents")["agents"]}
    assert agents["det-nodes-c"]["enabled"] is False
    rows = json.loads(m.det("slot", "list", "--json").stdout)
    c_rows = [r for r in rows if r["agent_id"] == "det-nodes-c"]
    assert len(c_rows) == 16 and not any(r["enabled"] for r in c_rows), c_rows

    # A 16-slot trial: its 2 pods go on a and b, not on the disabled node,
    # which the scheduler would otherwise prefer (most free room).
    exp2 = experiment(m, tmp, 16)
    wait_until("the second trial's 2 pods to be placed", lambda: len(placed(m, exp2)) == 2)
    assert sorted(placed(m, exp2)) == ["det-nodes-a", "det-nodes-b"], placed(m, exp2)

    # det agent enable: the label goes, the capacity comes back.
    m.det("agent", "enable", "det-nodes-c")
    assert "determined.ai/disabled" not in node_labels(bed, "det-nodes-c")
    wait_until("the pool to count 32 slots again", lambda: pool_slots(m) == 32)
    assert {a["id"]: a for a in m.api("/api/v1/agents")["agents"]}["det-nodes-c"]["enabled"]


def test_only_known_nodes_can_be_disabled(master):
    m = master
    p = m.det("agent", "disable", "no-such-node", check=False)
    assert p.returncode != 0
    assert "no-such-node" in p.stdout + p.stderr
    p = m.det("slot", "disable", "det-nodes-a", "0", check=False)
    assert p.returncode != 0
    assert "disable the node" in p.stdout + p.stderr
    assert "determined.ai/disabled" not in node_labels(m.bed, "det-nodes-a")
