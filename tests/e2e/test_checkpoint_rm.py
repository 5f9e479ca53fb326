"""`det checkpoint rm` with the real det CLI against shared_fs: the files a
glob matches go from the checkpoint's folder and the others stay; the
checkpoint shows STATE_PARTIALLY_DELETED with the files left as its
resources (and in `det checkpoint describe`); a glob that matches every
file makes it STATE_DELETED; a restarted master shows the same; hostile
globs and unknown uuids are refused naming the field or the uuid."""
import json
import os
import shutil

import pytest

from conftest import wait_for
from test_checkpoint_gc import config, det, run_to_completion

pytest.importorskip("determined", reason="pip install determined==0.38.1")
pytestmark = pytest.mark.skipif(shutil.which("det") is None,
                                reason="the det CLI is not installed")


def checkpoint(cluster, uuid):
    return cluster.get("/api/v1/checkpoints/%s" % uuid)["checkpoint"]


def state_becomes(cluster, uuid, state):
    return wait_for("checkpoint %s %s" % (uuid, state), lambda: (
        lambda c: c if c["state"] == state else None)(checkpoint(cluster, uuid)),
        timeout=60)


def test_det_checkpoint_rm_removes_by_glob_and_survives_a_restart(
        cluster_factory, tmp_path):
    cluster = cluster_factory(env={"DET_CHECKPOINT_GC_INTERVAL_MS": "300"})
    storage = ("checkpoint_storage:\n  type: shared_fs\n  host_path: %s\n"
               "  storage_path: rm\n  save_trial_best: 10\n  save_trial_latest: 10\n"
               % cluster.ckpt_dir)
    exp_id = run_to_completion(cluster, config("ck-rm", storage, max_batches=8))
    body = cluster.get("/api/v1/experiments/%d/checkpoints" % exp_id)
    uuids = sorted((c["uuid"] for c in body["checkpoints"]),
                   key=lambda u: checkpoint(cluster, u)["metadata"]["steps_completed"])
    assert len(uuids) == 2, body
    first, second = uuids
    base = os.path.join(cluster.ckpt_dir, "rm")
    for u in uuids:
        assert os.path.exists(os.path.join(base, u, "state.json")), os.listdir(base)
        os.makedirs(os.path.join(base, u, "extra"))
        with open(os.path.join(base, u, "extra", "keep.txt"), "w") as f:
            f.write("kept")

    home = str(tmp_path / "home")
    os.makedirs(home)
    rc, out = det(cluster, home, "checkpoint", "rm", "--glob", "state*", "--yes", first)
    assert rc == 0, out
    assert "Removal of files from checkpoints %s is in progress" % first in out, out
    c = state_becomes(cluster, first, "STATE_PARTIALLY_DELETED")
    assert not os.path.exists(os.path.join(base, first, "state.json"))
    assert os.path.exists(os.path.join(base, first, "extra", "keep.txt"))
    assert "extra/keep.txt" in c["resources"], c
    assert c["resources"]["extra/keep.txt"] == "4", c
    assert not any(p.startswith("state") for p in c["resources"]), c
    # The other checkpoint is untouched.
    assert os.path.exists(os.path.join(base, second, "state.json"))
    assert checkpoint(cluster, second)["state"] == "STATE_COMPLETED"
    # The CLI shows the metadata as the trial wrote it: the files are the
    # checkpoint's resources, not part of it (as upstream's master has it).
    rc, out = det(cluster, home, "checkpoint", "describe", first)
    assert rc == 0, out
    assert '"steps_completed"' in out and "keep.txt" not in out, out

    # No globs: the resources are refreshed from storage (the extra file
    # of the second shows).
    rc, out = det(cluster, home, "checkpoint", "rm", second)
    assert rc == 0, out
    assert "refreshing resources of checkpoints %s" % second in out, out
    wait_for("the second checkpoint's resources to list the extra file",
             lambda: "extra/keep.txt" in checkpoint(cluster, second)["resources"],
             timeout=60)

    # Every file: DELETED, the folder gone; its list of files stays as it
    # was (as upstream's), and it counts nothing toward the sizes.
    before = checkpoint(cluster, first)["resources"]
    rc, out = det(cluster, home, "checkpoint", "rm", "--glob", "**/*", "--yes", first)
    assert rc == 0, out
    c = state_becomes(cluster, first, "STATE_DELETED")
    assert c["resources"] == before, c
    assert not os.path.exists(os.path.join(base, first))

    # Hostile input: refused naming the field or the uuid, nothing removed.
    for glob in ("../x", "/etc/passwd", "a\x01b"):
        rc, out = det(cluster, home, "checkpoint", "rm", "--glob", glob, "--yes", second)
        assert rc != 0 and "checkpointGlobs" in out, (glob, out)
    rc, out = det(cluster, home, "checkpoint", "rm", "--glob", "x", "--yes",
                  "no-such-uuid")
    assert rc != 0 and "no-such-uuid" in out, out
    status, text = cluster.post("/api/v1/checkpoints/rm", {
        "checkpointUuids": [second], "checkpointGlobs": ["x"] * 101})
    assert status == 400 and "checkpointGlobs" in json.dumps(text), (status, text)
    assert os.path.exists(os.path.join(base, second, "state.json"))

    before = {u: (checkpoint(cluster, u)["state"], checkpoint(cluster, u)["resources"])
              for u in uuids}
    cluster.restart()
    after = {u: (checkpoint(cluster, u)["state"], checkpoint(cluster, u)["resources"])
             for u in uuids}
    assert after == before
    assert after[first][0] == "STATE_DELETED"


def test_sdk_checkpoint_metadata_remove_files_and_delete(cluster_factory, tmp_path):
    """The SDK's Checkpoint calls, as a user script makes them: metadata
    added (merged, nested kept) and removed by key, files removed by glob,
    the checkpoint deleted, a download of the metadata's files."""
    from determined.experimental import client

    cluster = cluster_factory(env={"DET_CHECKPOINT_GC_INTERVAL_MS": "300"})
    storage = ("checkpoint_storage:\n  type: shared_fs\n  host_path: %s\n"
               "  storage_path: sdk\n  save_trial_best: 10\n  save_trial_latest: 10\n"
               % cluster.ckpt_dir)
    exp_id = run_to_completion(cluster, config("ck-sdk", storage, max_batches=8))
    uuids = sorted((c["uuid"] for c in cluster.get(
        "/api/v1/experiments/%d/checkpoints" % exp_id)["checkpoints"]),
        key=lambda u: checkpoint(cluster, u)["metadata"]["steps_completed"])
    assert len(uuids) == 2
    first, second = uuids
    base = os.path.join(cluster.ckpt_dir, "sdk")
    d = client.Determined(master=cluster.url, user="admin", password="")

    ck = d.get_checkpoint(first)
    steps = ck.metadata["steps_completed"]
    ck.add_metadata({"note": "best so far", "nested": {"a": 1, "b": [1, 2]}})
    md = checkpoint(cluster, first)["metadata"]
    assert md["note"] == "best so far" and md["nested"] == {"a": 1, "b": [1, 2]}, md
    assert md["steps_completed"] == steps, md
    ck.add_metadata({"note": "changed"})
    assert checkpoint(cluster, first)["metadata"]["nested"] == {"a": 1, "b": [1, 2]}
    ck.remove_metadata(["note", "nested"])
    md = checkpoint(cluster, first)["metadata"]
    assert "note" not in md and "nested" not in md and md["steps_completed"] == steps, md
    ck.reload()
    assert "note" not in ck.metadata

    out = ck.download(str(tmp_path / "dl"))
    assert os.path.exists(os.path.join(out, "state.json")), os.listdir(out)

    ck.remove_files(["state*"])
    c = state_becomes(cluster, first, "STATE_PARTIALLY_DELETED")
    assert list(c["resources"]) == ["metadata.json"], c
    assert os.listdir(os.path.join(base, first)) == ["metadata.json"]
    assert not os.path.exists(os.path.join(base, first, "state.json"))

    d.get_checkpoint(second).delete()
    state_becomes(cluster, second, "STATE_DELETED")
    assert not os.path.exists(os.path.join(base, second))
