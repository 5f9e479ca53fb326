"""TensorBoards with the real `det` CLI 0.38.1 (issue 30): `det tensorboard
start EXP` runs TensorBoard as a process under a det-agent; it fetches the
experiment's TensorBoard files from its shared_fs checkpoint storage
(<host_path>/<storage_path>/<cluster uuid>/tensorboard/experiment/<id>, where
the harness syncs them) or its S3 storage (moto), reports itself ready once it holds them, and
TensorBoard's own scalars API answers the trial's metrics through the
master's proxy; `det tensorboard list|config|kill`, and what the launch
refuses."""
import json
import os
import shutil
import time
import urllib.request

import pytest

from conftest import cli_cluster_fixture, wait_for
from test_cli import det, ok

DET = shutil.which("det")
try:
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.summary.writer.event_file_writer import EventFileWriter
    HAVE = True
except ImportError:
    HAVE = False

pytestmark = pytest.mark.skipif(DET is None or not HAVE,
                                reason="needs det and tensorboard")


c = cli_cluster_fixture("tbs")


def experiment(c, host_path):
    text = ("name: tb-source\nentrypoint: python3 train.py\n"
            "searcher:\n  name: single\n  metric: loss\n"
            "checkpoint_storage:\n  type: shared_fs\n  host_path: %s\n"
            "  storage_path: ckpts\n" % host_path)
    status, body = c.post("/api/v1/experiments",
                          {"config": text, "modelDefinition": [], "activate": False})
    assert status == 200, body
    return body["experiment"]["id"]


def write_losses(logdir, losses):
    """tfevents as the harness writes them (one scalar per step)."""
    os.makedirs(logdir, exist_ok=True)
    w = EventFileWriter(logdir)
    for step, loss in enumerate(losses):
        w.add_event(event_pb2.Event(
            wall_time=time.time(), step=step,
            summary=summary_pb2.Summary(
                value=[summary_pb2.Summary.Value(tag="loss", simple_value=loss)])))
    w.close()


def proxied(c, path):
    req = urllib.request.Request(c.url + path,
                                 headers={"Authorization": "Bearer " + c.token})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def wait_ready(c, tid):
    deadline = time.time() + 120
    while not c.get("/api/v1/tasks/" + tid)["task"]["allocations"][0]["isReady"]:
        assert time.time() < deadline, \
            "not ready within 120 s; its logs:\n" + ok(c, "task", "logs", tid)
        time.sleep(0.2)


def trial_losses(c, tid):
    """TensorBoard's own scalars API through the master's proxy: trial 1's
    (step, loss) pairs."""
    prefix = "/proxy/%s" % tid
    runs = wait_for("TensorBoard to load the run", lambda: [
        r for r in proxied(c, prefix + "/data/runs") if r.endswith("trial/1")],
        timeout=60)
    scalars = proxied(c, prefix + "/data/plugin/scalars/scalars?tag=loss&run="
                      + urllib.request.quote(runs[0]))
    return [(s[1], round(s[2], 2)) for s in scalars]


def test_a_tensorboard_shows_the_trials_metrics_through_the_proxy(c, tmp_path):
    exp = experiment(c, str(tmp_path))
    cluster_id = c.get("/api/v1/master")["clusterId"]
    base = tmp_path / "ckpts" / cluster_id / "tensorboard" / "experiment" / str(exp)
    write_losses(str(base / "trial" / "1"), [0.9, 0.5, 0.25])
    tid = ok(c, "tensorboard", "start", str(exp), "-d").strip().splitlines()[0]
    wait_ready(c, tid)
    tb = c.get("/api/v1/tensorboards/" + tid)["tensorboard"]
    assert tb["experimentIds"] == [exp]
    assert tb["serviceAddress"] == "/proxy/%s/" % tid
    assert tb["state"] == "STATE_RUNNING"
    assert trial_losses(c, tid) == [(0, 0.9), (1, 0.5), (2, 0.25)]
    assert tid in ok(c, "tensorboard", "list")
    assert "tensorboard_args" not in ok(c, "tensorboard", "config", tid)
    logs = ok(c, "task", "logs", tid)
    assert "TensorBoard contains metrics" in logs, logs
    assert "TensorBoard contains metrics" in ok(c, "tensorboard", "logs", tid)
    out = ok(c, "tensorboard", "open", tid, env={"BROWSER": "echo"})
    assert tid in out, out
    ok(c, "tensorboard", "kill", tid)
    wait_for("it to end", lambda: c.get("/api/v1/tensorboards/" + tid)
             ["tensorboard"]["state"] == "STATE_TERMINATED", timeout=60)


def test_a_tensorboard_reads_an_experiments_s3_storage(c, moto_s3, tmp_path):
    """The files in S3 (moto), where an S3 experiment's trials sync them:
    TensorBoard fetches them with the determined package's own S3 fetcher,
    the endpoint and keys of the experiment's storage (its owner launches
    it, so the keys reach it)."""
    boto3 = pytest.importorskip("boto3")
    s3 = boto3.client("s3", endpoint_url=moto_s3, region_name="us-east-1",
                      aws_access_key_id="testing", aws_secret_access_key="testing")
    s3.create_bucket(Bucket="tb-s3")
    text = ("name: tb-s3\nentrypoint: python3 train.py\n"
            "searcher:\n  name: single\n  metric: loss\n"
            "checkpoint_storage:\n  type: s3\n  bucket: tb-s3\n  prefix: runs\n"
            "  endpoint_url: %s\n  access_key: testing\n  secret_key: testing\n"
            % moto_s3)
    status, body = c.post("/api/v1/experiments",
                          {"config": text, "modelDefinition": [], "activate": False})
    assert status == 200, body
    exp = body["experiment"]["id"]
    cluster_id = c.get("/api/v1/master")["clusterId"]
    local = tmp_path / "events"
    write_losses(str(local), [0.8, 0.4])
    for name in os.listdir(local):
        s3.upload_file(str(local / name), "tb-s3", "runs/%s/tensorboard/experiment/%d/trial/1/%s"
                       % (cluster_id, exp, name))
    tid = ok(c, "tensorboard", "start", str(exp), "-d").strip().splitlines()[0]
    wait_ready(c, tid)
    assert trial_losses(c, tid) == [(0, 0.8), (1, 0.4)]
    ok(c, "tensorboard", "kill", tid)


def test_a_launch_names_experiments_that_exist_and_args_it_may_set(c):
    rc, out = det(c, "tensorboard", "start", "987654", "-d")
    assert rc != 0 and "experiment 987654 not found" in out, out
    status, body = c.post("/api/v1/tensorboards", {"experimentIds": []})
    assert status == 400 and "experimentIds" in json.dumps(body), body
    status, body = c.post("/api/v1/tensorboards", {
        "experimentIds": [1], "config": {"tensorboard_args": ["--host=0.0.0.0"]}})
    assert status == 400 and "'--host' is the master's to set" in json.dumps(body), body
