"""The kubernetes resource manager end to end: det-master with
`resource_manager: {type: kubernetes}` against the test bed's real API
server, an experiment submitted with the real `det` CLI, its trials run as
Jobs whose pods the bed's process kubelet runs as local processes
(`det-agent --run-allocation`, the same trial runner as det-agent's), to
completion with metrics, checkpoints and logs; then the master SIGKILLed
mid-trial and restarted (the Job re-attached, no second Job, a labelled
leftover deleted, an unlabelled Job untouched). Commands, shells and
notebooks run the same way: a Job per task whose pod runs the task's
start frame, its service reported ready from the pod and proxied to by
the master, across a master SIGKILL.

The bed and the master come from the shared harness (tests/harness/:
k8s_bed, rm_master).
"""
import json
import os
import re
import signal
import subprocess
import time
import urllib.request

import pytest

from harness import jupyter, k8s_bed
from harness.paths import BIN, EXAMPLE
from harness.pg import start_pg
from harness.rm_master import DET, RmMaster

pytestmark = [
    pytest.mark.skipif(DET is None, reason="the det CLI is not installed"),
    pytest.mark.skipif(not os.path.exists(os.path.join(BIN, "det-master")),
                       reason="det-master is not built (set DET_BUILD_DIR)"),
]


def wait_until(what, predicate, timeout=120.0):
    return k8s_bed.wait_until(what, predicate, timeout=timeout, interval=0.25)


@pytest.fixture(scope="module")
def bed():
    b, stop = k8s_bed.start_bed(
        kubelet_args=["--bin", "det-agent=" + os.path.join(BIN, "det-agent")],
        kwok_nodes=False)
    yield b
    stop()


@pytest.fixture(scope="module")
def pg():
    url, stop = start_pg("det-k8s-pg-")
    yield url
    stop()


RM_YAML = """
resource_manager:
  type: kubernetes
  default_namespace: {ns}
  max_slots_per_pod: 2
  slot_type: cpu
  slot_resource_requests: {{cpu: 4}}
  kubeconfig_path: {kubeconfig}
  determined_master_host: 127.0.0.1
  determined_master_port: {port}
resource_pools:
  - pool_name: default
    scheduler: {{type: priority, preemption: true}}
    task_container_defaults:
      cpu_pod_spec:
        spec:
          nodeSelector: {{det-bed: process}}
"""


class Master(RmMaster):
    """det-master whose resource manager is kubernetes, on the bed
    (harness.rm_master), with one cpu pool on the process kubelet's nodes."""

    def __init__(self, bed, pg_url, tmp, name):
        super().__init__(bed, pg_url, tmp, name, RM_YAML, wait_until)

    def det(self, *args):
        return super().det(*args).stdout

    def login(self):
        return json.loads(urllib.request.urlopen(urllib.request.Request(
            self.url + "/api/v1/auth/login", method="POST",
            data=json.dumps({"username": "admin", "password": ""}).encode(),
            headers={"Content-Type": "application/json"}), timeout=10).read())["token"]

    def api(self, path):
        req = urllib.request.Request(self.url + path,
                                     headers={"Authorization": "Bearer " + self.login()})
        return json.loads(urllib.request.urlopen(req, timeout=10).read())

    def jobs(self):
        out = self.bed.kubectl("get", "jobs", "-n", self.ns, "-o", "json")
        return json.loads(out)["items"]

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)


def experiment_yaml(tmp, max_length=40, batch_delay=0.02, slots=1, name="k8s-e2e",
                    priority=42):
    path = os.path.join(tmp, name + ".yaml")
    with open(path, "w") as f:
        f.write("""
name: %s
entrypoint: python3 train.py
max_restarts: 2
resources:
  slots_per_trial: %d
  priority: %d
hyperparameters:
  learning_rate: 0.1
  batch_size: 16
  checkpoint_every: 10
  metrics_every: 5
  batch_delay: %s
searcher:
  name: single
  metric: validation_loss
  max_length:
    batches: %d
""" % (name, slots, priority, batch_delay, max_length))
    return path


def create(m, cfg):
    out = m.det("experiment", "create", cfg, EXAMPLE)
    return int(out.strip().split()[-1]) if out.strip().split()[-1].isdigit() else \
        int([w for w in out.split() if w.isdigit()][0])


def state_of(m, exp_id):
    return m.api("/api/v1/experiments/%d" % exp_id)["experiment"]["state"]


@pytest.fixture
def master(bed, pg, tmp_path, request):
    # A database and namespace name: no trailing separator.
    name = "k8s_" + request.node.name.lower()[5:30].replace("-", "_").rstrip("_")
    m = Master(bed, pg, str(tmp_path), name)
    yield m
    m.stop()
    bed.kubectl("delete", "namespace", m.ns, "--wait=false", check=False)


def test_an_experiment_runs_its_trial_as_a_job_to_completion(master, tmp_path):
    t0 = time.monotonic()
    exp = create(master, experiment_yaml(str(tmp_path)))
    job = wait_until("a Job for the trial", lambda: master.jobs())[0]
    labels = job["metadata"]["labels"]
    assert labels["determined.ai/cluster"] == master.cluster_id
    assert labels["determined.ai/experiment_id"] == str(exp)
    assert labels["determined.ai/user"] == "admin"
    pod_running = wait_until("the pod to run", lambda: [
        p for p in json.loads(master.bed.kubectl("get", "pods", "-n", master.ns, "-o", "json"))["items"]
        if p.get("status", {}).get("phase") == "Running"] or None)
    print(json.dumps({"figure": "k8s_submit_to_pod_running_s",
                      "value": round(time.monotonic() - t0, 2)}))
    assert pod_running
    wait_until("the experiment to complete",
               lambda: state_of(master, exp) in ("STATE_COMPLETED", "STATE_ERROR"), timeout=300)
    assert state_of(master, exp) == "STATE_COMPLETED", master.log()[-3000:]
    trials = master.api("/api/v1/experiments/%d/trials" % exp)["trials"]
    assert trials[0]["state"] == "STATE_COMPLETED"
    assert trials[0].get("latestValidation") or trials[0].get("bestValidation")
    ckpts = master.api("/api/v1/experiments/%d/checkpoints" % exp)
    assert ckpts.get("checkpoints"), ckpts
    logs = master.det("trial", "logs", str(trials[0]["id"]))
    # The pod's output, streamed from the API server into the trial's logs.
    assert "starting at step 0" in logs and "done at step 40" in logs, logs[-2000:]
    assert "kubernetes: starting allocation" in master.log()


def test_a_restarted_master_reattaches_its_job_and_deletes_leftovers(master, tmp_path):
    exp = create(master, experiment_yaml(str(tmp_path), max_length=200, batch_delay=0.05))
    job = wait_until("a Job for the trial", lambda: master.jobs())[0]
    wait_until("the pod to run", lambda: [
        p for p in json.loads(master.bed.kubectl("get", "pods", "-n", master.ns, "-o", "json"))["items"]
        if p.get("status", {}).get("phase") == "Running"] or None)
    # A labelled leftover of an allocation this cluster has no record of,
    # and an unlabelled Job that must never be touched.
    leftover = {"apiVersion": "batch/v1", "kind": "Job",
                "metadata": {"name": "leftover", "namespace": master.ns,
                             "labels": {"determined.ai/cluster": master.cluster_id,
                                        "determined.ai/allocation_id": "999.1"}},
                "spec": {"suspend": True, "template": {"spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "c", "image": "x", "command": ["true"]}]}}}}
    foreign = json.loads(json.dumps(leftover))
    foreign["metadata"]["name"] = "foreign"
    foreign["metadata"]["labels"] = {"app": "not-ours"}
    for obj in (leftover, foreign):
        master.bed.kubectl("apply", "-f", "-", input=json.dumps(obj))
    master.kill()
    t0 = time.monotonic()
    master.start()
    print(json.dumps({"figure": "k8s_master_restart_to_serving_s",
                      "value": round(time.monotonic() - t0, 2)}))
    wait_until("the leftover to go",
               lambda: "leftover" not in [j["metadata"]["name"] for j in master.jobs()])
    names = [j["metadata"]["name"] for j in master.jobs()]
    assert "foreign" in names
    assert names.count(job["metadata"]["name"]) == 1
    wait_until("the experiment to complete",
               lambda: state_of(master, exp) in ("STATE_COMPLETED", "STATE_ERROR"), timeout=300)
    assert state_of(master, exp) == "STATE_COMPLETED", master.log()[-3000:]
    ours = [j for j in master.jobs()
            if j["metadata"]["labels"].get("determined.ai/cluster") == master.cluster_id]
    assert len(ours) == 1, "a second Job was created: %s" % [j["metadata"]["name"] for j in ours]


def test_a_pod_killed_from_outside_resumes_the_trial_from_its_checkpoint(master, tmp_path):
    exp = create(master, experiment_yaml(str(tmp_path), max_length=400, batch_delay=0.05))
    trial_id = wait_until("the trial", lambda: master.api(
        "/api/v1/experiments/%d/trials" % exp)["trials"])[0]["id"]
    wait_until("a checkpoint", lambda: "checkpoint" in master.det("trial", "logs", str(trial_id)))

    def running_pods():
        items = json.loads(master.bed.kubectl("get", "pods", "-n", master.ns, "-o", "json"))["items"]
        return [p["metadata"]["name"] for p in items if p.get("status", {}).get("phase") == "Running"]
    first = wait_until("the pod to run", running_pods)[0]
    master.bed.kubectl("delete", "pod", "-n", master.ns, first, "--wait=false")
    wait_until("the experiment to complete",
               lambda: state_of(master, exp) in ("STATE_COMPLETED", "STATE_ERROR"), timeout=300)
    assert state_of(master, exp) == "STATE_COMPLETED", master.log()[-3000:]
    trial = master.api("/api/v1/experiments/%d/trials" % exp)["trials"][0]
    assert trial["restarts"] >= 1, trial
    logs = master.det("trial", "logs", str(trial_id))
    # The second pod resumed from a checkpoint the first one wrote.
    resumed = [line for line in logs.splitlines() if "resuming at step" in line]
    assert resumed and "resuming at step 0," not in resumed[-1], logs[-2000:]


def test_a_trial_that_does_not_fit_shows_the_schedulers_reason(master, tmp_path):
    cfg = experiment_yaml(str(tmp_path))
    with open(cfg, "a") as f:
        f.write("environment:\n  pod_spec:\n    spec:\n      nodeSelector: {no-such-label: x}\n")
    exp = create(master, cfg)
    trial_id = wait_until("the trial", lambda: master.api(
        "/api/v1/experiments/%d/trials" % exp)["trials"])[0]["id"]
    logs = wait_until("the scheduler's reason in the trial's logs", lambda: [
        line for line in master.det("trial", "logs", str(trial_id)).splitlines()
        if "FailedScheduling" in line])
    assert "nodes are available" in logs[0], logs
    master.det("experiment", "kill", str(exp))
    wait_until("the Job to be deleted", lambda: not master.jobs(), timeout=60)


def pods(m, phase=None):
    items = json.loads(m.bed.kubectl("get", "pods", "-n", m.ns, "-o", "json"))["items"]
    return [p for p in items if phase is None or p.get("status", {}).get("phase") == phase]


def describe(items):
    """Each pod's name, phase, node, deletion and containers' states: what
    a failed placement check needs to be read."""
    return "\n".join("%s %s on %s deleted=%s %s" % (
        p["metadata"]["name"], p.get("status", {}).get("phase"), p["spec"].get("nodeName"),
        p["metadata"].get("deletionTimestamp"),
        json.dumps([c.get("state") for c in p.get("status", {}).get("containerStatuses", [])]))
        for p in items)


def trial_of(m, exp):
    return wait_until("the trial of experiment %d" % exp, lambda: m.api(
        "/api/v1/experiments/%d/trials" % exp)["trials"])[0]


def finish(m, exp, timeout=300):
    wait_until("experiment %d to end" % exp,
               lambda: state_of(m, exp) in ("STATE_COMPLETED", "STATE_ERROR", "STATE_CANCELED"),
               timeout=timeout)
    assert state_of(m, exp) == "STATE_COMPLETED", m.log()[-3000:]


def test_a_trial_of_more_slots_than_a_pod_holds_runs_as_several_pods(master, tmp_path):
    # 4 slots, at most 2 per pod: 2 pods of 8 CPUs, one on each process node.
    exp = create(master, experiment_yaml(str(tmp_path), slots=4))
    job = wait_until("a Job for the trial", lambda: master.jobs())[0]
    assert job["spec"]["parallelism"] == 2 and job["spec"]["completions"] == 2
    assert job["spec"]["completionMode"] == "Indexed"
    name = job["metadata"]["name"]

    def live():  # the Job's pods that run and are not on their way out
        return [p for p in pods(master, "Running")
                if p["metadata"].get("labels", {}).get("job-name") == name
                and not p["metadata"].get("deletionTimestamp")]
    running = wait_until("both pods to run", lambda: (lambda r: len(r) == 2 and r)(live()))
    assert len({p["spec"]["nodeName"] for p in running}) == 2, describe(pods(master))
    finish(master, exp)
    trial = trial_of(master, exp)
    lines = master.det("trial", "logs", str(trial["id"])).splitlines()
    text = "\n".join(lines)
    assert "[rank=1] container 1 of 2: following the chief" in text, text[-2000:]
    # The worker stops with the chief: at the end, or told to by the
    # master once the trial is done.
    assert re.search(r"\[rank=1\] container 1: (done|preempted) at step \d+", text), text[-2000:]
    assert any("[rank=0]" in line and "done at step 40" in line for line in lines)
    # Only the chief reports: checkpoints come from rank 0 alone.
    ckpt_lines = [line for line in lines if "] checkpoint " in line]
    assert len(ckpt_lines) == 4 and all("[rank=0]" in line for line in ckpt_lines), ckpt_lines


def test_a_higher_priority_experiment_preempts_and_the_other_resumes(master, tmp_path):
    # The low-priority trial takes all 4 slots (2 pods); a higher-priority
    # one (a lower number) needs 2: the scheduler preempts the first, whose
    # pods checkpoint and exit, runs the second, then resumes the first.
    low = create(master, experiment_yaml(str(tmp_path), name="low", slots=4, priority=50,
                                         max_length=400, batch_delay=0.05))
    low_trial = trial_of(master, low)["id"]
    wait_until("the low-priority pods to run", lambda: len(pods(master, "Running")) == 2)
    wait_until("a first checkpoint",
               lambda: "checkpoint" in master.det("trial", "logs", str(low_trial)))
    high = create(master, experiment_yaml(str(tmp_path), name="high", slots=2, priority=1,
                                          max_length=20))
    logs = wait_until("the low-priority trial to be preempted", lambda: [
        line for line in master.det("trial", "logs", str(low_trial)).splitlines()
        if "[rank=0] preempted at step" in line])
    step = int(logs[0].split("preempted at step")[1].split()[0])
    assert state_of(master, low) != "STATE_COMPLETED"
    finish(master, high)
    finish(master, low)
    text = master.det("trial", "logs", str(low_trial))
    assert "[rank=1] container 1: preempted at step" in text, text[-3000:]
    assert "resuming at step %d," % step in text, text[-3000:]
    high_trial = master.api("/api/v1/experiments/%d/trials" % high)["trials"][0]
    low_end = master.api("/api/v1/experiments/%d/trials" % low)["trials"][0]["endTime"]
    assert high_trial["endTime"] < low_end
    assert high_trial["state"] == "STATE_COMPLETED"


def test_a_watch_that_expires_mid_run_lists_again_and_the_trial_completes(master, tmp_path):
    # Long enough (40 s) to outlast the API server's restart.
    exp = create(master, experiment_yaml(str(tmp_path), max_length=400, batch_delay=0.1))
    job = wait_until("a Job for the trial", lambda: master.jobs())[0]
    wait_until("the pod to run", lambda: pods(master, "Running"))
    # Every watch of the master is cut; resuming from its last
    # resourceVersion, now compacted away, the real server answers 410.
    master.bed.restart_apiserver()
    wait_until("the master to list again after a 410",
               lambda: "relist pods" in master.log(), timeout=180)
    finish(master, exp)
    ours = [j["metadata"]["name"] for j in master.jobs()
            if j["metadata"]["labels"].get("determined.ai/cluster") == master.cluster_id]
    assert ours == [job["metadata"]["name"]]
    trial = trial_of(master, exp)
    assert trial["restarts"] == 0, trial
    logs = master.det("trial", "logs", str(trial["id"]))
    assert "done at step 400" in logs, logs[-2000:]


def det_result(m, *args):
    """`det ARGS` without asserting: (exit code, stdout and stderr)."""
    env = dict(os.environ, DET_MASTER=m.url, HOME=m.home, DET_USER="admin",
               DET_PASS="", XDG_CONFIG_HOME=os.path.join(m.home, ".config"))
    p = subprocess.run([DET] + list(args), env=env, capture_output=True, text=True,
                       timeout=120)
    return p.returncode, p.stdout + p.stderr


def jobs_in(m, ns):
    return [j for j in json.loads(m.bed.kubectl("get", "jobs", "-n", ns, "-o", "json"))["items"]
            if j["metadata"]["labels"].get("determined.ai/cluster") == m.cluster_id]


def test_a_workspace_bound_to_a_namespace_runs_its_trials_there(master, tmp_path):
    """`det workspace bindings set|list|delete` and `det workspace create
    --namespace` with the real CLI: the namespace must exist; a bound
    workspace's trial runs as a Job in its namespace (logs and checkpoints
    as anywhere), also across a restart; unbound, the next one runs in the
    default namespace again."""
    team = master.ns + "-team"
    rc, out = det_result(master, "workspace", "create", "--namespace", team, "team-ws")
    assert rc != 0 and "namespace '%s' does not exist" % team in out, out
    assert "team-ws" not in master.det("workspace", "list")
    master.bed.kubectl("create", "namespace", team)
    try:
        out = master.det("workspace", "create", "--namespace", team, "team-ws")
        assert "Workspace team-ws is bound to namespace %s" % team in out, out
        out = master.det("workspace", "bindings", "list", "team-ws")
        assert re.search(r"\|\s*%s\s*$" % re.escape(team), out, re.M), out
        # A workspace without a binding lists the default namespace.
        master.det("workspace", "create", "plain-ws")
        out = master.det("workspace", "bindings", "list", "plain-ws")
        assert re.search(r"\|\s*%s\s*$" % re.escape(master.ns), out, re.M), out
        rc, out = det_result(master, "workspace", "bindings", "delete", "plain-ws")
        assert rc != 0 and "default namespace" in out, out
        rc, out = det_result(master, "workspace", "bindings", "set", "--namespace",
                             "Not_A_Name", "plain-ws")
        assert rc != 0 and "Not_A_Name" in out, out
        rc, out = det_result(master, "workspace", "bindings", "set",
                             "--auto-create-namespace", "plain-ws")
        assert rc != 0 and "Enterprise" in out, out

        master.det("project", "create", "team-ws", "models")
        project = next(p["id"] for p in master.api("/api/v1/workspaces/%d/projects" % next(
            w["id"] for w in master.api("/api/v1/workspaces")["workspaces"]
            if w["name"] == "team-ws"))["projects"] if p["name"] == "models")
        out = master.det("experiment", "create", "--project_id", str(project),
                         experiment_yaml(str(tmp_path), max_length=120, batch_delay=0.05),
                         EXAMPLE)
        exp = int(re.search(r"experiment (\d+)", out, re.I).group(1))
        job = wait_until("a Job in %s" % team, lambda: jobs_in(master, team))[0]
        assert job["metadata"]["labels"]["determined.ai/experiment_id"] == str(exp)
        assert not jobs_in(master, master.ns)
        trial = trial_of(master, exp)
        wait_until("a checkpoint", lambda: "checkpoint" in master.det(
            "trial", "logs", str(trial["id"])))
        # Restarted mid-trial: the Job in the other namespace is found and
        # re-attached (no second Job), and the trial completes.
        master.kill()
        master.start()
        finish(master, exp)
        assert [j["metadata"]["name"] for j in jobs_in(master, team)] == \
            [job["metadata"]["name"]]
        assert "done at step 120" in master.det("trial", "logs", str(trial["id"]))
        assert trial_of(master, exp)["restarts"] == 0

        out = master.det("workspace", "bindings", "delete", "team-ws")
        assert "Successfully deleted binding" in out, out
        out = master.det("workspace", "bindings", "list", "team-ws")
        assert team not in out and master.ns in out, out
        out = master.det("experiment", "create", "--project_id", str(project),
                         experiment_yaml(str(tmp_path), max_length=10, name="after"),
                         EXAMPLE)
        after = int(re.search(r"experiment (\d+)", out, re.I).group(1))
        wait_until("a Job in the default namespace", lambda: jobs_in(master, master.ns))
        finish(master, after)
        # The bindings are in the event log: a restart keeps them.
        master.det("workspace", "bindings", "set", "--namespace", team, "team-ws")
        master.kill()
        master.start()
        assert team in master.det("workspace", "bindings", "list", "team-ws")
    finally:
        master.bed.kubectl("delete", "namespace", team, "--wait=false", check=False)


def task_jobs(m, task_id):
    return [j for j in m.jobs()
            if j["metadata"]["labels"].get("determined.ai/task_id") == task_id]


def task_ready(m, task_id):
    allocs = m.api("/api/v1/tasks/" + task_id)["task"]["allocations"]
    return bool(allocs) and allocs[0]["isReady"]


def test_commands_shells_and_notebooks_run_as_jobs_and_are_proxied(master):
    # A command: its Job's pod runs it; the pod's log is the task's log.
    out = master.det("cmd", "run", "echo hello-from-a-pod; echo type=$DET_TASK_TYPE")
    assert "hello-from-a-pod" in out and "type=COMMAND" in out, out
    assert "resources exited successfully with a zero exit code" in out, out
    assert re.search(r"kubernetes: starting allocation [0-9a-f-]{36}\.1 \(task ",
                     master.log()), master.log()[-3000:]

    # A shell: sshd in the pod, reached through the master's tunnel.
    sid = master.det("shell", "start", "-d").strip().splitlines()[-1]
    wait_until("the shell to be ready", lambda: task_ready(master, sid))
    [job] = task_jobs(master, sid)
    assert job["metadata"]["labels"]["determined.ai/task_type"] == "SHELL"
    out = master.det("shell", "open", sid, "--", "echo", "hello-$((6*7))")
    assert "hello-42" in out, out
    master.det("shell", "kill", sid)

    # A notebook: JupyterLab in the pod, Python run in a kernel over the
    # proxied WebSocket, still reachable after the master is SIGKILLed.
    nid = master.det("notebook", "start", "--no-browser", "-d").strip().splitlines()[-1]
    wait_until("the notebook to be ready", lambda: task_ready(master, nid), timeout=240)
    [job] = task_jobs(master, nid)
    labels = job["metadata"]["labels"]
    assert labels["determined.ai/task_type"] == "NOTEBOOK"
    assert labels["determined.ai/user"] == "admin"
    assert labels["determined.ai/cluster"] == master.cluster_id
    nb_token = master.api("/api/v1/notebooks/" + nid)["notebook"]["serviceAddress"] \
        .split("token=")[1]
    session = master.login()
    assert jupyter.run_in_kernel(master.url, session, nid, nb_token,
                                 "print(6 * 7)").strip() == "42"
    master.kill()
    master.start()
    assert task_ready(master, nid)
    assert jupyter.run_in_kernel(master.url, master.login(), nid, nb_token,
                                 "print('after', 1 + 1)").strip() == "after 2"
    assert len(task_jobs(master, nid)) == 1, "a second Job was created"
    master.det("notebook", "kill", nid)
    wait_until("the notebook to end", lambda: master.api("/api/v1/notebooks/" + nid)
               ["notebook"]["state"] == "STATE_TERMINATED")
    wait_until("its Job to go", lambda: not task_jobs(master, nid))
    wait_until("the shell's Job to go", lambda: not task_jobs(master, sid))
    status, text = jupyter.proxied(master.url, "/proxy/%s/api/status" % nid,
                                   token=master.login())
    assert status == 404 and "service not found" in text
