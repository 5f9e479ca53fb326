"""Checkpoint garbage collection with the real det CLI: when a trial ends,
the checkpoints its experiment's checkpoint_storage policy does not keep
(save_trial_best, save_trial_latest, save_experiment_best) are deleted from
shared_fs (folders) and from S3 (objects, through the master's S3 client
and batched DeleteObjects against moto) and show STATE_DELETED;
`det checkpoint delete` deletes a kept one; a master killed after marking
checkpoints for deletion finishes the deletion after its restart."""
import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT, wait_for

pytest.importorskip("determined", reason="pip install determined==0.38.1")
DET = shutil.which("det")
pytestmark = pytest.mark.skipif(DET is None, reason="the det CLI is not installed")
EXAMPLE = os.path.join(ROOT, "examples", "core_api")


def config(name, storage, **hparams):
    with open(os.path.join(EXAMPLE, "experiment.yaml")) as f:
        text = f.read()
    text, n = re.subn(r"(?ms)^checkpoint_storage:\n(  .*?\n)+", storage, text)
    assert n == 1
    text = text.replace("name: core-api-single", "name: " + name)
    for key, value in hparams.items():
        text, n = re.subn(r"(?m)^(  %s:).*$" % key, r"\g<1> %s" % value, text)
        assert n == 1, key
    return text


def checkpoints(cluster, exp_id):
    """uuid -> (state, totalBatches) of every checkpoint of the experiment."""
    body = cluster.get("/api/v1/experiments/%d/checkpoints" % exp_id)
    return {c["uuid"]: (c["state"], c["metadata"].get("steps_completed"))
            for c in body["checkpoints"]}


def det(cluster, home, *args, timeout=120):
    env = dict(os.environ, DET_MASTER=cluster.url, DET_USER="admin", DET_PASS="",
               HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"))
    p = subprocess.run([DET] + list(args), env=env, capture_output=True, text=True,
                       timeout=timeout, cwd=home)
    return p.returncode, p.stdout + p.stderr


def run_to_completion(cluster, text):
    status, body = cluster.submit(text, model_dir=EXAMPLE)
    assert status == 200, body
    exp_id = body["experiment"]["id"]
    wait_for("the experiment to end", lambda: cluster.experiment(exp_id)["state"] in (
        "STATE_COMPLETED", "STATE_ERROR", "STATE_CANCELED"), timeout=150)
    assert cluster.experiment(exp_id)["state"] == "STATE_COMPLETED"
    return exp_id


def settled(cluster, exp_id, expect_deleted):
    """Waits until exactly `expect_deleted` checkpoints are STATE_DELETED."""
    return wait_for("%d checkpoints deleted" % expect_deleted, lambda: (
        lambda cs: cs if sum(s == "STATE_DELETED" for s, _ in cs.values())
        == expect_deleted else None)(checkpoints(cluster, exp_id)), timeout=60)


def test_shared_fs_gc_keeps_best_and_latest_and_det_checkpoint_delete_removes_more(
        cluster_factory, tmp_path):
    cluster = cluster_factory(env={"DET_CHECKPOINT_GC_INTERVAL_MS": "300"})
    storage = ("checkpoint_storage:\n  type: shared_fs\n  host_path: %s\n"
               "  storage_path: gc\n  save_trial_best: 1\n  save_trial_latest: 2\n"
               % cluster.ckpt_dir)
    # Checkpoints (each after a validation) at 4, 8, 12, 16, 20.
    exp_id = run_to_completion(cluster, config("gc-fs", storage, max_batches=20))
    cs = settled(cluster, exp_id, 3)
    assert len(cs) == 5, cs
    kept = {u for u, (s, _) in cs.items() if s == "STATE_COMPLETED"}
    steps = sorted(cs[u][1] for u in kept)
    # The loss falls steadily: best and latest are 20; second latest is 16.
    assert steps == [16, 20], cs
    base = os.path.join(cluster.ckpt_dir, "gc")
    for uuid, (state, _) in cs.items():
        assert os.path.exists(os.path.join(base, uuid)) == (state == "STATE_COMPLETED"), uuid

    home = str(tmp_path / "home")
    os.makedirs(home)
    # A trial's list keeps what the collector deleted, as STATE_DELETED (the
    # CLI's `trial download --latest` picks from it), newest first.
    trial_id = cluster.trials(exp_id)[0]["id"]
    listed = cluster.get("/api/v1/trials/%d/checkpoints" % trial_id)["checkpoints"]
    assert {c["uuid"]: c["state"] for c in listed} == {u: s for u, (s, _) in cs.items()}
    assert [c["metadata"]["steps_completed"] for c in listed] == [20, 16, 12, 8, 4]
    out_dir = os.path.join(home, "latest")
    rc, out = det(cluster, home, "trial", "download", "--latest", "-o", out_dir, str(trial_id))
    assert rc == 0, out
    latest = next(u for u in kept if cs[u][1] == 20)
    assert sorted(os.listdir(out_dir)) == sorted(os.listdir(os.path.join(base, latest))), out
    older = next(u for u in kept if cs[u][1] == 16)
    rc, out = det(cluster, home, "checkpoint", "delete", older, "--yes")
    assert rc == 0, out
    assert "Deletion of checkpoints %s is in progress" % older in out, out
    settled(cluster, exp_id, 4)
    assert not os.path.exists(os.path.join(base, older))
    assert cluster.get("/api/v1/checkpoints/%s" % older)["checkpoint"]["state"] == "STATE_DELETED"
    rc, out = det(cluster, home, "experiment", "list-checkpoints", str(exp_id))
    assert rc == 0, out
    rows = {u: next((l for l in out.splitlines() if u in l), "") for u in cs}
    assert "DELETED" in rows[older] and "COMPLETED" not in rows[older], out
    assert sum("COMPLETED" in r for r in rows.values()) == 1, out
    # A deleted checkpoint, and one that does not exist, are refused.
    rc, out = det(cluster, home, "checkpoint", "delete", older, "--yes")
    assert rc != 0 and "deleted" in out, out
    rc, out = det(cluster, home, "checkpoint", "delete", "no-such-uuid", "--yes")
    assert rc != 0 and "no-such-uuid" in out, out


def test_s3_gc_deletes_objects_and_a_killed_master_finishes_after_restart(
        cluster_factory, moto_s3, tmp_path):
    import boto3
    s3 = boto3.client("s3", endpoint_url=moto_s3, region_name="us-east-1",
                      aws_access_key_id="testing", aws_secret_access_key="testing")
    bucket = "det-e2e-gc-%d" % os.getpid()
    s3.create_bucket(Bucket=bucket)

    def keys():
        out = set()
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
            out |= {o["Key"] for o in page.get("Contents", [])}
        return out

    # The first master never ticks its GC before it is killed.
    cluster = cluster_factory(env={"DET_CHECKPOINT_GC_INTERVAL_MS": "600000"})
    storage = ("checkpoint_storage:\n  type: s3\n  bucket: %s\n  prefix: /runs/./a\n"
               "  endpoint_url: %s\n  access_key: testing\n  secret_key: testing\n"
               "  save_trial_best: 0\n  save_trial_latest: 1\n" % (bucket, moto_s3))
    exp_id = run_to_completion(cluster, config("gc-s3", storage, max_batches=12))
    cs = checkpoints(cluster, exp_id)
    assert len(cs) == 3, cs
    before = keys()
    for uuid in cs:
        assert "runs/a/%s/state.json" % uuid in before, before

    home = str(tmp_path / "home")
    os.makedirs(home)
    latest = max(cs, key=lambda u: cs[u][1])
    rc, out = det(cluster, home, "checkpoint", "delete", latest, "--yes")
    assert rc == 0, out
    cluster.kill_master()
    assert keys() == before, "nothing was deleted before the kill"

    cluster.env["DET_CHECKPOINT_GC_INTERVAL_MS"] = "300"
    cluster.start()
    # The user's deletion of the latest, recorded before the kill, runs
    # now; the policy (keep the latest only) keeps the latest that is left
    # (step 8) and deletes the oldest.
    cs = settled(cluster, exp_id, 2)
    kept = [u for u, (s, _) in cs.items() if s == "STATE_COMPLETED"]
    assert [cs[u][1] for u in kept] == [8], cs
    wait_for("the deleted checkpoints' objects to go", lambda: {
        k.split("/")[2] for k in keys() if k.startswith("runs/a/")} == set(kept),
        timeout=30)
    log = cluster.master_log()
    assert "checkpoint gc: experiment %d deleted" % exp_id in log, log[-3000:]
    assert not any("testing" in l for l in log.splitlines() if "checkpoint gc" in l)
