"""The process kubelet on the real API server: pods bound to its nodes run as
local processes, their status, exit code and logs come back through the API
server, deletion kills them, and a Job's pods run."""
import os
import uuid

import pytest

from harness.k8s_bed import wait_until

NS = "default"
PODS = "/api/v1/namespaces/%s/pods" % NS


def pod(name, script, node="det-proc-cpu-0", restart="Never", volumes=(), mounts=(), env=()):
    """A pod running `sh -c script`. Kubernetes expands $(VAR) in commands
    and reads $$ as an escaped $, so the shell's $$ is written $$$$."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": {"test": "process-kubelet"}},
            "spec": {"nodeSelector": {"kubernetes.io/hostname": node},
                     "restartPolicy": restart, "terminationGracePeriodSeconds": 5,
                     "volumes": list(volumes),
                     "containers": [{"name": "main", "image": "debian:bookworm",
                                     "command": ["sh", "-c", script], "env": list(env),
                                     "volumeMounts": list(mounts)}]}}


def unique(prefix):
    return "%s-%s" % (prefix, uuid.uuid4().hex[:6])


def terminal(bed, name):
    def check():
        p = bed.kube.get("%s/%s" % (PODS, name))
        return p if p["status"].get("phase") in ("Succeeded", "Failed") else None
    return wait_until("pod %s to end" % name, check, timeout=60)


def test_a_shell_pod_runs_to_succeeded_and_its_logs_come_through_the_api_server(bed):
    name = unique("hello")
    bed.kube.post(PODS, pod(name, 'echo "hello from $POD_NAME on $NODE"',
                            env=[{"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                                 {"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}]))
    p = terminal(bed, name)
    assert p["status"]["phase"] == "Succeeded"
    cs = p["status"]["containerStatuses"][0]
    assert cs["state"]["terminated"]["exitCode"] == 0
    assert cs["state"]["terminated"]["reason"] == "Completed"
    assert {c["type"] for c in p["status"]["conditions"]} >= {"PodScheduled", "Initialized", "Ready"}
    log = bed.kube.request("GET", "%s/%s/log" % (PODS, name)).text
    assert log == "hello from %s on det-proc-cpu-0\n" % name
    assert bed.kubectl("logs", name).strip() == log.strip()


def test_a_failing_pod_ends_failed_with_its_exit_code(bed):
    name = unique("fail")
    bed.kube.post(PODS, pod(name, "echo about to fail; exit 3"))
    p = terminal(bed, name)
    assert p["status"]["phase"] == "Failed"
    t = p["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (t["exitCode"], t["reason"]) == (3, "Error")


def test_env_and_volumes_come_from_configmaps_and_secrets_at_their_mount_paths(bed):
    name = unique("cfg")
    bed.kube.post("/api/v1/namespaces/default/configmaps",
                  {"metadata": {"name": name}, "data": {"greeting": "hi", "file.txt": "from a file"}})
    bed.kube.post("/api/v1/namespaces/default/secrets",
                  {"metadata": {"name": name}, "stringData": {"password": "s3cret"}})
    script = 'echo "$GREETING $PASSWORD $(cat /etc/cfg/file.txt) $(cat /etc/sec/password)"'
    bed.kube.post(PODS, pod(
        name, script,
        env=[{"name": "GREETING", "valueFrom": {"configMapKeyRef": {"name": name, "key": "greeting"}}},
             {"name": "PASSWORD", "valueFrom": {"secretKeyRef": {"name": name, "key": "password"}}}],
        volumes=[{"name": "cfg", "configMap": {"name": name}}, {"name": "sec", "secret": {"secretName": name}}],
        mounts=[{"name": "cfg", "mountPath": "/etc/cfg"}, {"name": "sec", "mountPath": "/etc/sec"}]))
    p = terminal(bed, name)
    log = bed.kube.request("GET", "%s/%s/log" % (PODS, name)).text
    assert p["status"]["phase"] == "Succeeded", log
    assert log == "hi s3cret from a file s3cret\n"


def test_mount_paths_in_arguments_are_rewritten_to_the_pods_volume_folders(bed):
    name = unique("mnt")
    bed.kube.post("/api/v1/namespaces/default/configmaps",
                  {"metadata": {"name": name}, "data": {"file.txt": "from a file"}})
    spec = pod(name, "", volumes=[{"name": "cfg", "configMap": {"name": name}}],
               mounts=[{"name": "cfg", "mountPath": "/etc/cfg"}])
    spec["spec"]["containers"][0]["command"] = ["cat", "/etc/cfg/file.txt"]
    bed.kube.post(PODS, spec)
    p = terminal(bed, name)
    assert p["status"]["phase"] == "Succeeded"
    assert bed.kube.request("GET", "%s/%s/log" % (PODS, name)).text == "from a file"


def test_follow_streams_logs_until_the_container_ends(bed, tmp_path):
    name = unique("follow")
    trigger = tmp_path / "go"
    bed.kube.post(PODS, pod(name, "echo first; while [ ! -e $T/go ]; do sleep 0.05; done; echo second",
                            env=[{"name": "T", "value": "/trigger"}],
                            volumes=[{"name": "t", "hostPath": {"path": str(tmp_path)}}],
                            mounts=[{"name": "t", "mountPath": "/trigger"}]))
    wait_until("pod running", lambda: bed.kube.get("%s/%s" % (PODS, name))["status"].get("phase") == "Running")
    r = bed.kube.request("GET", "%s/%s/log" % (PODS, name), params={"follow": "true"},
                         stream=True, timeout=(10, 60))
    lines = r.iter_lines()
    assert next(lines) == b"first"
    trigger.write_text("")
    assert next(lines) == b"second"
    assert list(lines) == []  # the stream ends with the container
    assert terminal(bed, name)["status"]["phase"] == "Succeeded"


def test_a_deleted_pods_process_gets_sigterm_then_is_gone(bed, tmp_path):
    name = unique("kill")
    script = "trap 'echo term > $O/term; exit 0' TERM; echo $$$$ > $O/pid; while :; do sleep 0.05; done"
    bed.kube.post(PODS, pod(name, script, env=[{"name": "O", "value": "/out"}],
                            volumes=[{"name": "o", "hostPath": {"path": str(tmp_path)}}],
                            mounts=[{"name": "o", "mountPath": "/out"}]))
    pid_file = tmp_path / "pid"
    wait_until("the pod's process", lambda: pid_file.exists() and pid_file.read_text().strip())
    pid = int(pid_file.read_text())
    os.kill(pid, 0)  # running
    bed.kube.delete("%s/%s" % (PODS, name), {"gracePeriodSeconds": 5})
    wait_until("the pod object to be removed", lambda: bed.kube.try_get("%s/%s" % (PODS, name)) is None)
    assert (tmp_path / "term").read_text() == "term\n"
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_process_ignoring_sigterm_is_killed_after_the_grace_period(bed, tmp_path):
    name = unique("stubborn")
    script = "trap '' TERM; echo $$$$ > $O/pid; while :; do sleep 0.05; done"
    bed.kube.post(PODS, pod(name, script, env=[{"name": "O", "value": "/out"}],
                            volumes=[{"name": "o", "hostPath": {"path": str(tmp_path)}}],
                            mounts=[{"name": "o", "mountPath": "/out"}]))
    pid_file = tmp_path / "pid"
    wait_until("the pod's process", lambda: pid_file.exists() and pid_file.read_text().strip())
    pid = int(pid_file.read_text())
    bed.kube.delete("%s/%s" % (PODS, name), {"gracePeriodSeconds": 1})
    wait_until("the pod object to be removed", lambda: bed.kube.try_get("%s/%s" % (PODS, name)) is None,
               timeout=30)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_jobs_pods_run_on_the_process_kubelet_and_the_job_completes(bed):
    name = unique("job")
    template = pod(name, 'echo "index $JOB_COMPLETION_INDEX"')
    del template["metadata"]["name"]
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
           "spec": {"parallelism": 2, "completions": 2, "completionMode": "Indexed",
                    "backoffLimit": 0, "template": template}}
    job["spec"]["template"]["spec"]["nodeSelector"] = {"det-bed": "process"}
    bed.kube.post("/apis/batch/v1/namespaces/default/jobs", job)

    def complete():
        j = bed.kube.get("/apis/batch/v1/namespaces/default/jobs/" + name)
        conds = {c["type"]: c["status"] for c in j["status"].get("conditions") or []}
        assert conds.get("Failed") != "True", j["status"]
        return conds.get("Complete") == "True" and j
    j = wait_until("job %s to complete" % name, complete, timeout=90)
    assert j["status"]["succeeded"] == 2
    pods = bed.kube.get(PODS, {"labelSelector": "job-name=" + name})["items"]
    logs = sorted(bed.kube.request("GET", "%s/%s/log" % (PODS, p["metadata"]["name"])).text for p in pods)
    assert logs == ["index 0\n", "index 1\n"]


def test_init_containers_run_first_and_on_failure_restarts_the_container(bed, tmp_path):
    name = unique("restart")
    spec = pod(name, "n=$(cat $O/count); echo $((n+1)) > $O/count; [ $n -ge 1 ]", restart="OnFailure",
               env=[{"name": "O", "value": "/out"}],
               volumes=[{"name": "o", "hostPath": {"path": str(tmp_path)}}],
               mounts=[{"name": "o", "mountPath": "/out"}])
    init = dict(spec["spec"]["containers"][0], name="init", command=["sh", "-c", "echo 0 > $O/count"])
    spec["spec"]["initContainers"] = [init]
    bed.kube.post(PODS, spec)
    p = terminal(bed, name)
    assert p["status"]["phase"] == "Succeeded"
    cs = p["status"]["containerStatuses"][0]
    assert cs["restartCount"] == 1
    assert cs["lastState"]["terminated"]["exitCode"] == 1
    assert p["status"]["initContainerStatuses"][0]["state"]["terminated"]["exitCode"] == 0
    assert (tmp_path / "count").read_text() == "2\n"


def test_the_log_endpoint_refuses_clients_without_the_bed_cas_certificate(bed):
    import requests
    port = int(bed.env["K8S_BED_KUBELET_PORT"])
    url = "https://127.0.0.1:%d/containerLogs/default/x/main" % port
    with pytest.raises(requests.exceptions.RequestException):
        requests.get(url, verify=bed.env["K8S_BED_CA"], timeout=10)
    # With the admin's certificate (same CA) the endpoint answers.
    pki = os.path.join(bed.dir, "pki")
    r = requests.get(url, verify=bed.env["K8S_BED_CA"], timeout=10,
                     cert=(os.path.join(pki, "admin.crt"), os.path.join(pki, "admin.key")))
    assert r.status_code == 404
