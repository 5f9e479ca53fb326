"""S3 checkpoint storage end to end against moto's S3: an unmodified Core
API script (examples/core_api) checkpoints through the determined harness
into a bucket (the experiment's checkpoint_storage, endpoint and keys reach
the trial as upstream passes them), resumes from an S3 checkpoint after its
agent is SIGKILLed, and the real `det` CLI downloads checkpoints: directly
from S3 with the reader's own credentials (the checkpoint's config shows
none), and through the master without them."""
import hashlib
import os
import re
import shutil
import signal
import subprocess

import pytest

from conftest import ROOT, wait_for

boto3 = pytest.importorskip("boto3")
pytest.importorskip("determined", reason="pip install determined==0.38.1")
DET = shutil.which("det")
EXAMPLE = os.path.join(ROOT, "examples", "core_api")


def s3_client(url):
    return boto3.client("s3", endpoint_url=url, region_name="us-east-1",
                        aws_access_key_id="testing", aws_secret_access_key="testing")


def s3_config(name, bucket, url, prefix, **hparams):
    """examples/core_api/experiment.yaml with its storage in S3."""
    with open(os.path.join(EXAMPLE, "experiment.yaml")) as f:
        text = f.read()
    storage = ("checkpoint_storage:\n  type: s3\n  bucket: %s\n  prefix: %s\n"
               "  endpoint_url: %s\n  access_key: testing\n  secret_key: testing\n"
               "  save_trial_latest: 100\n"  # no GC here: test_checkpoint_gc.py
               % (bucket, prefix, url))
    text, n = re.subn(r"(?ms)^checkpoint_storage:\n(  .*?\n)+", storage, text)
    assert n == 1
    text = text.replace("name: core-api-single", "name: " + name)
    for key, value in hparams.items():
        text, n = re.subn(r"(?m)^(  %s:).*$" % key, r"\g<1> %s" % value, text)
        assert n == 1, key
    return text


def objects(s3, bucket, prefix=""):
    """key -> sha256 of every object under `prefix`."""
    out = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        for o in page.get("Contents", []):
            body = s3.get_object(Bucket=bucket, Key=o["Key"])["Body"].read()
            out[o["Key"]] = hashlib.sha256(body).hexdigest()
    return out


def det(cluster, home, *args, aws_keys=None, ok=True):
    """The real CLI as a user with no AWS credentials of their own, or with
    `aws_keys` (id, secret) in the environment. No request leaves loopback:
    the instance metadata lookup is off."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(DET_MASTER=cluster.url, DET_USER="admin", DET_PASS="",
               HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"),
               AWS_EC2_METADATA_DISABLED="true",
               AWS_CONFIG_FILE=os.path.join(home, "no-aws-config"),
               AWS_SHARED_CREDENTIALS_FILE=os.path.join(home, "no-aws-credentials"))
    if aws_keys:
        env.update(AWS_ACCESS_KEY_ID=aws_keys[0], AWS_SECRET_ACCESS_KEY=aws_keys[1])
    p = subprocess.run([DET] + list(args), env=env, capture_output=True, text=True,
                       timeout=120, cwd=home)
    if ok:
        assert p.returncode == 0, "det %s:\n%s" % (" ".join(args), p.stdout + p.stderr)
    return p.stdout if ok else (p.returncode, p.stdout + p.stderr)


def sha_of_tree(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            path = os.path.join(d, f)
            out[os.path.relpath(path, root)] = hashlib.sha256(open(path, "rb").read()).hexdigest()
    return out


@pytest.mark.skipif(DET is None, reason="the det CLI is not installed")
def test_checkpoints_go_to_s3_resume_after_a_killed_agent_and_download_with_det(
        cluster_factory, moto_s3, tmp_path):
    s3 = s3_client(moto_s3)
    bucket = "det-e2e-ckpt-%d" % os.getpid()
    s3.create_bucket(Bucket=bucket)
    cluster = cluster_factory(reconnect_wait="2s", idle="30s", max_instances=2)
    status, body = cluster.submit(
        s3_config("s3-ckpt", bucket, moto_s3, "exp-ckpts", max_batches=60,
                  batch_delay=0.1, checkpoint_every=4),
        model_dir=EXAMPLE)
    assert status == 200, body
    exp_id = body["experiment"]["id"]

    first = wait_for("a first checkpoint", lambda: next(
        (t["bestCheckpoint"] for t in cluster.trials(exp_id)
         if (t.get("bestCheckpoint") or {}).get("totalBatches", 0) >= 8), None),
        timeout=120)
    # The harness wrote it to the bucket under prefix/uuid/, not to disk.
    assert "exp-ckpts/%s/state.json" % first["uuid"] in objects(s3, bucket, "exp-ckpts/")
    assert not os.path.exists(os.path.join(cluster.ckpt_dir, "ckpt", first["uuid"]))

    (agent_id, pid), = cluster.agent_pids().items()
    os.kill(pid, signal.SIGKILL)
    wait_for("the experiment to complete",
             lambda: cluster.experiment(exp_id)["state"] in (
                 "STATE_COMPLETED", "STATE_ERROR", "STATE_CANCELED"), timeout=240)
    assert cluster.experiment(exp_id)["state"] == "STATE_COMPLETED"
    trial = cluster.trials(exp_id)[0]
    log = cluster.get_text("/api/v1/trials/%d/logs" % trial["id"])
    resumed = re.findall(r"resumed from checkpoint (\S+) at step (\d+)", log)
    assert resumed, log[-3000:]
    uuid, step = resumed[0]
    assert int(step) >= first["totalBatches"]
    assert "exp-ckpts/%s/state.json" % uuid in objects(s3, bucket, "exp-ckpts/")
    assert "done at step 60" in log

    best = cluster.trials(exp_id)[0]["bestCheckpoint"]
    stored = objects(s3, bucket, "exp-ckpts/%s/" % best["uuid"])
    assert stored, "the final checkpoint is in the bucket"
    home = str(tmp_path / "home")
    os.makedirs(home)
    out_dir = os.path.join(home, "one")
    # The checkpoint's config carries no storage keys: a direct download
    # needs the reader's own credentials...
    rc, out = det(cluster, home, "checkpoint", "download", best["uuid"], "-o", out_dir,
                  "--mode", "direct", ok=False)
    assert rc != 0 and "credentials" in out, out
    listed = cluster.get("/api/v1/checkpoints/%s" % best["uuid"])["checkpoint"]
    shown = listed["training"]["experimentConfig"]["checkpoint_storage"]
    assert "secret_key" not in shown and "access_key" not in shown, shown
    assert shown["endpoint_url"] == moto_s3, shown
    det(cluster, home, "checkpoint", "download", best["uuid"], "-o", out_dir,
        "--mode", "direct", aws_keys=("testing", "testing"))
    got = sha_of_tree(out_dir)
    for key, sha in stored.items():
        assert got[key.split("/", 2)[2]] == sha, key
    # ... and without them the default mode falls back to the master, which
    # reads the bucket with the experiment's keys.
    exp_dir = os.path.join(home, "exp")
    out = det(cluster, home, "experiment", "download", str(exp_id), "-o", exp_dir)
    # The CLI downloads a checkpoint with the best searcher metric (several
    # may tie): each checkpoint has the validation of its own step.
    listed = cluster.get("/api/v1/experiments/%d/checkpoints" % exp_id)["checkpoints"]
    metric = {c["uuid"]: c["training"].get("searcherMetric") for c in listed}
    picked = re.search(r"/exp/([0-9a-f-]{36})", out)
    assert picked, out
    picked = picked.group(1)
    assert metric[picked] == min(m for m in metric.values() if m is not None), out
    got = sha_of_tree(os.path.join(exp_dir, picked))
    stored = objects(s3, bucket, "exp-ckpts/%s/" % picked)
    assert stored, picked
    for key, sha in stored.items():
        assert got[key.split("/", 2)[2]] == sha, key
