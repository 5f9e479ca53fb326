"""Experiment commands of the real det CLI beyond create/list/describe:
`det experiment set gc-policy` (the preview, then the collector deleting
what the new counts no longer keep, the policy kept across a restart, a
bad count refused naming its field) and `det experiment delete` (the
experiment's checkpoint folders are deleted too, also when the master
restarts before the collector ran), `det experiment delete-tb-files`,
`det experiment|trial set log-retention`, warm start
(searcher.source_trial_id / source_checkpoint_uuid), launch_error, and
task_container_defaults.environment_variables by slot type."""
import json
import os
import shutil
import urllib.error
import urllib.request

import pytest

from conftest import wait_for
from test_checkpoint_gc import checkpoints, config, det, run_to_completion, settled

pytest.importorskip("determined", reason="pip install determined==0.38.1")
pytestmark = pytest.mark.skipif(shutil.which("det") is None,
                                reason="the det CLI is not installed")

GC_FAST = {"DET_CHECKPOINT_GC_INTERVAL_MS": "300"}


def storage(cluster, path, trial_best=1, trial_latest=2):
    return ("checkpoint_storage:\n  type: shared_fs\n  host_path: %s\n"
            "  storage_path: %s\n  save_trial_best: %d\n  save_trial_latest: %d\n"
            % (cluster.ckpt_dir, path, trial_best, trial_latest))


def home_of(tmp_path):
    home = str(tmp_path / "home")
    os.makedirs(home, exist_ok=True)
    return home


def det_input(cluster, home, text, *args):
    """det with `text` on its standard input (answers to its prompts)."""
    import subprocess
    env = dict(os.environ, DET_MASTER=cluster.url, DET_USER="admin", DET_PASS="",
               HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"))
    p = subprocess.run([shutil.which("det")] + list(args), env=env, input=text,
                       capture_output=True, text=True, timeout=120, cwd=home)
    return p.returncode, p.stdout + p.stderr


def test_set_gc_policy_previews_then_deletes_what_the_new_policy_drops(
        cluster_factory, tmp_path):
    cluster = cluster_factory(env=GC_FAST)
    # Checkpoints (each after a validation) at 4, 8, 12, 16, 20; the policy
    # keeps the best (20) and the two latest (16, 20).
    exp_id = run_to_completion(
        cluster, config("gc-policy", storage(cluster, "pol"), max_batches=20))
    cs = settled(cluster, exp_id, 3)
    kept = {cs[u][1]: u for u, (s, _) in cs.items() if s == "STATE_COMPLETED"}
    assert sorted(kept) == [16, 20], cs
    base = os.path.join(cluster.ckpt_dir, "pol")
    home = home_of(tmp_path)

    # Asked first: the preview names the checkpoint the new policy drops.
    rc, out = det_input(cluster, home, "y\n", "experiment", "set", "gc-policy",
                        str(exp_id), "--save-experiment-best", "0",
                        "--save-trial-best", "0", "--save-trial-latest", "1")
    assert rc == 0, out
    assert "This policy will delete 1 checkpoints with validations and 0 " \
        "checkpoints without validations" in out, out
    assert kept[16] in out and kept[20] not in out, out
    assert "Set GC policy of experiment %d" % exp_id in out, out
    settled(cluster, exp_id, 4)
    assert not os.path.exists(os.path.join(base, kept[16]))
    assert os.path.isdir(os.path.join(base, kept[20]))
    rc, out = det(cluster, home, "experiment", "config", str(exp_id))
    assert rc == 0 and "save_trial_latest: 1" in out and "save_trial_best: 0" in out, out

    # Declined: nothing changes.
    rc, out = det_input(cluster, home, "n\n", "experiment", "set", "gc-policy",
                        str(exp_id), "--save-experiment-best", "0",
                        "--save-trial-best", "0", "--save-trial-latest", "0")
    assert rc == 0 and "Aborting" in out, out
    assert checkpoints(cluster, exp_id)[kept[20]][0] == "STATE_COMPLETED"

    # A negative count is refused naming the field.
    rc, out = det(cluster, home, "experiment", "set", "gc-policy", str(exp_id),
                  "--save-experiment-best", "0", "--save-trial-best", "-1",
                  "--save-trial-latest", "0", "--yes")
    assert rc != 0 and "checkpointStorage.saveTrialBest" in out, out

    # The policy is an event: a restarted master keeps it.
    cluster.restart()
    rc, out = det(cluster, home, "experiment", "config", str(exp_id))
    assert rc == 0 and "save_trial_latest: 1" in out, out
    assert checkpoints(cluster, exp_id)[kept[20]][0] == "STATE_COMPLETED"


def test_experiment_delete_removes_its_checkpoint_folders(cluster_factory, tmp_path):
    # The first master never runs its collector: the deletion it records is
    # carried out by the next one.
    cluster = cluster_factory(env={"DET_CHECKPOINT_GC_INTERVAL_MS": "600000"})
    exp_id = run_to_completion(
        cluster, config("deleted", storage(cluster, "del", 5, 5), max_batches=12))
    cs = checkpoints(cluster, exp_id)
    assert len(cs) == 3, cs
    base = os.path.join(cluster.ckpt_dir, "del")
    for uuid in cs:
        assert os.path.isdir(os.path.join(base, uuid)), uuid
    # Its TensorBoard files, where the harness syncs them.
    uuid = cluster.get("/info")["cluster_id"]
    tb = os.path.join(base, uuid, "tensorboard", "experiment", str(exp_id))
    os.makedirs(os.path.join(tb, "trial", "1"), exist_ok=True)
    home = home_of(tmp_path)
    rc, out = det(cluster, home, "experiment", "delete", str(exp_id), "--yes")
    assert rc == 0 and "Deletion of experiment %d is in progress" % exp_id in out, out
    # As upstream: DELETING until its files are gone, and no command then.
    assert cluster.experiment(exp_id)["state"] == "STATE_DELETING"
    rc, out = det(cluster, home, "experiment", "delete", str(exp_id), "--yes")
    assert rc != 0 and "being deleted" in out, out
    rc, out = det(cluster, home, "experiment", "archive", str(exp_id))
    assert rc != 0 and "being deleted" in out, out
    assert all(os.path.isdir(os.path.join(base, u)) for u in cs), "collector ran early"

    # The next master finishes the deletion it finds in the log.
    cluster.kill_master()
    cluster.env.update(GC_FAST)
    cluster.start()
    assert cluster.experiment(exp_id)["state"] == "STATE_DELETING"

    def gone():
        try:
            cluster.experiment(exp_id)
            return False
        except urllib.error.HTTPError as e:
            return e.code == 404
    wait_for("the deleted experiment to leave", gone, timeout=30)
    # It leaves only once its files are gone.
    assert not any(os.path.exists(os.path.join(base, u)) for u in cs)
    assert not os.path.exists(tb)
    log = cluster.master_log()
    assert "checkpoint gc: experiment %d deleted" % exp_id in log, log[-3000:]
    assert "checkpoint gc: experiment %d is deleted" % exp_id in log, log[-3000:]


@pytest.mark.parametrize("launch_error", [True, False])
def test_launch_error_refuses_or_queues_an_experiment_that_cannot_fit(
        cluster_factory, tmp_path, launch_error):
    from conftest import EXAMPLE, experiment_yaml
    # Two instances of one slot at most: four slots never fit.
    cluster = cluster_factory(
        extra_config="" if launch_error else "launch_error: false\n")
    cfg = tmp_path / "big.yaml"
    cfg.write_text(experiment_yaml(max_length=20, slots=4))
    home = home_of(tmp_path)
    rc, out = det(cluster, home, "experiment", "create", str(cfg), EXAMPLE)
    if launch_error:
        assert rc != 0 and "resources.slots_per_trial" in out, out
        assert cluster.get("/api/v1/experiments")["experiments"] == []
        return
    assert rc == 0 and "Created experiment 1" in out, out
    assert "requires more slots than currently available" in out, out
    assert cluster.experiment(1)["state"] in ("STATE_QUEUED", "STATE_ACTIVE")
    assert [t["state"] for t in cluster.trials(1)] in ([], ["STATE_QUEUED"])


def test_task_container_default_variables_reach_the_trial_by_slot_type(
        cluster_factory, tmp_path):
    from conftest import EXAMPLE, experiment_yaml
    cluster = cluster_factory(extra_config=(
        "task_container_defaults:\n"
        "  environment_variables:\n"
        "    cpu: [TCD_VAR=for-cpu, SHARED=default]\n"
        "    cuda: [TCD_VAR=for-cuda]\n"))
    text = experiment_yaml(max_length=10).replace(
        "entrypoint: python3 train.py",
        "entrypoint: [sh, -c, 'echo \"vars: $TCD_VAR $SHARED\" && exec python3 train.py']\n"
        "environment:\n  environment_variables: [SHARED=own]")
    cfg = tmp_path / "env.yaml"
    cfg.write_text(text)
    home = home_of(tmp_path)
    rc, out = det(cluster, home, "experiment", "create", str(cfg), EXAMPLE)
    assert rc == 0 and "Created experiment 1" in out, out
    wait_for("the experiment to end", lambda: cluster.experiment(1)["state"] in (
        "STATE_COMPLETED", "STATE_ERROR"), timeout=120)
    tid = cluster.trials(1)[0]["id"]
    rc, out = det(cluster, home, "trial", "logs", str(tid))
    # The local agents' slots are cpu: the cpu list, the experiment's own last.
    assert rc == 0 and "vars: for-cpu own" in out, out
    # (The launch layer's runner line prints the whole config, both lists.)
    assert "vars: for-cuda" not in out, out


def test_warm_start_from_a_trial_and_refusals_naming_the_field(cluster_factory, tmp_path):
    from conftest import EXAMPLE, experiment_yaml
    cluster = cluster_factory()
    home = home_of(tmp_path)
    first = tmp_path / "first.yaml"
    first.write_text(experiment_yaml(max_length=10, checkpoint_every=5))
    rc, out = det(cluster, home, "experiment", "create", str(first), EXAMPLE)
    assert rc == 0 and "Created experiment 1" in out, out
    wait_for("experiment 1 to complete",
             lambda: cluster.experiment(1)["state"] == "STATE_COMPLETED", timeout=120)
    source = cluster.trials(1)[0]["id"]
    latest = cluster.get("/api/v1/trials/%d/checkpoints" % source)["checkpoints"]
    assert latest, "the source trial has checkpoints"

    def create(extra):
        cfg = tmp_path / "warm.yaml"
        cfg.write_text(experiment_yaml(max_length=20, checkpoint_every=5)
                       .replace("searcher:\n", "searcher:\n  %s\n" % extra))
        return det(cluster, home, "experiment", "create", str(cfg), EXAMPLE)

    rc, out = create("source_trial_id: 999")
    assert rc != 0 and "searcher.source_trial_id" in out and "999" in out, out
    rc, out = create("source_checkpoint_uuid: no-such-checkpoint")
    assert rc != 0 and "searcher.source_checkpoint_uuid" in out, out
    rc, out = create("source_trial_id: %d" % source)
    assert rc == 0 and "Created experiment" in out, out
    exp_id = int(out.split("Created experiment ")[1].split()[0])
    wait_for("the warm-started experiment to end", lambda: cluster.experiment(exp_id)[
        "state"] in ("STATE_COMPLETED", "STATE_ERROR"), timeout=120)
    tid = cluster.trials(exp_id)[0]["id"]
    rc, out = det(cluster, home, "trial", "logs", str(tid))
    # The sample trial restores its step from the checkpoint it starts from.
    assert rc == 0 and "resuming at step 10" in out, out
    # The trial names that checkpoint, as upstream's warmStartCheckpointUuid.
    source_latest = cluster.get("/api/v1/trials/%d" % source)["trial"]["bestCheckpoint"]
    assert cluster.trials(exp_id)[0]["warmStartCheckpointUuid"] == source_latest["uuid"]
    # Named by its uuid instead of its trial.
    older = source_latest["uuid"]
    rc, out = create("source_checkpoint_uuid: %s" % older)
    assert rc == 0 and "Created experiment" in out, out
    by_uuid = int(out.split("Created experiment ")[1].split()[0])
    wait_for("the experiment started from a checkpoint uuid to have its trial",
             lambda: cluster.trials(by_uuid), timeout=60)
    assert cluster.trials(by_uuid)[0]["warmStartCheckpointUuid"] == older


def test_delete_tb_files_removes_the_experiments_tensorboard_folder(cluster_factory, tmp_path):
    from conftest import EXAMPLE, experiment_yaml
    cluster = cluster_factory(extra_config="cluster_id: e2e-tb\n")
    cfg = tmp_path / "paused.yaml"
    cfg.write_text(experiment_yaml(max_length=10))
    home = home_of(tmp_path)
    ids = []
    for _ in range(2):
        rc, out = det(cluster, home, "experiment", "create", "--paused", str(cfg), EXAMPLE)
        assert rc == 0, out
        ids.append(int(out.split("Created experiment ")[1].split()[0]))
    # Where the harness syncs them: <storage>/<cluster uuid, as /info
    # answers it>/tensorboard/experiment/<id>.
    uuid = cluster.get("/info")["cluster_id"]
    base = os.path.join(cluster.ckpt_dir, "ckpt", uuid, "tensorboard", "experiment")
    for i in ids:
        os.makedirs(os.path.join(base, str(i), "trial", "1"))
        with open(os.path.join(base, str(i), "trial", "1", "events.out"), "w") as f:
            f.write("x")
    rc, out = det(cluster, home, "experiment", "delete-tb-files", str(ids[0]))
    assert rc == 0, out
    assert not os.path.exists(os.path.join(base, str(ids[0])))
    assert os.path.isfile(os.path.join(base, str(ids[1]), "trial", "1", "events.out"))
    # Nothing left to delete is no error; an unknown experiment is 404.
    rc, out = det(cluster, home, "experiment", "delete-tb-files", str(ids[0]))
    assert rc == 0, out
    rc, out = det(cluster, home, "experiment", "delete-tb-files", "999")
    assert rc != 0 and "experiment 999 not found" in out, out


def test_log_retention_drops_an_ended_trials_logs_and_forever_keeps_them(
        cluster_factory, tmp_path):
    from conftest import EXAMPLE, experiment_yaml
    cluster = cluster_factory(env=GC_FAST)
    cfg = tmp_path / "logs.yaml"
    cfg.write_text(experiment_yaml(max_length=10))
    home = home_of(tmp_path)
    for _ in range(2):
        rc, out = det(cluster, home, "experiment", "create", str(cfg), EXAMPLE)
        assert rc == 0, out
    wait_for("both experiments to end", lambda: all(
        cluster.experiment(i)["state"] == "STATE_COMPLETED" for i in (1, 2)), timeout=150)
    t1, t2 = cluster.trials(1)[0]["id"], cluster.trials(2)[0]["id"]
    for t in (t1, t2):
        rc, out = det(cluster, home, "trial", "logs", str(t))
        assert rc == 0 and "done at step" in out, out
    rc, out = det(cluster, home, "trial", "set", "log-retention", str(t2), "--forever")
    assert rc == 0, out
    rc, out = det(cluster, home, "experiment", "set", "log-retention", "1", "--days", "0")
    assert rc == 0, out
    # What each command set is what the trials show.
    assert cluster.get("/api/v1/trials/%d" % t1)["trial"]["logRetentionDays"] == 0
    assert cluster.get("/api/v1/trials/%d" % t2)["trial"]["logRetentionDays"] == -1
    # Zero days after the end: the next pass of the collector drops them.
    wait_for("trial %d's logs to go" % t1, lambda: "done at step" not in det(
        cluster, home, "trial", "logs", str(t1))[1], timeout=30)
    rc, out = det(cluster, home, "trial", "logs", str(t2))
    assert rc == 0 and "done at step" in out, out
    # Checked at the boundary (the CLI checks the range too).
    status, body = 0, None
    req = urllib.request.Request(cluster.url + "/api/v1/trials/%d/retain_logs" % t2,
                                 data=json.dumps({"numDays": -5}).encode(), method="PUT",
                                 headers={"Authorization": "Bearer " + cluster.token})
    try:
        urllib.request.urlopen(req, timeout=10)
    except urllib.error.HTTPError as e:
        status, body = e.code, e.read().decode()
    assert status == 400 and "numDays" in body, (status, body)


def test_a_94_mib_model_definition_runs_to_completion(cluster_factory, tmp_path):
    """As upstream's large model definition test: 94 MiB of incompressible
    bytes beside the code are accepted, stored, fetched by the agent and
    unpacked, and the trial completes with the file in its folder."""
    from conftest import EXAMPLE, experiment_yaml
    cluster = cluster_factory()
    home = home_of(tmp_path)
    model = tmp_path / "model"
    shutil.copytree(EXAMPLE, model)
    junk = os.urandom(94 * 1024 * 1024)
    (model / "junk.bin").write_bytes(junk)
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(experiment_yaml(max_length=10, checkpoint_every=5).replace(
        "entrypoint: python3 train.py",
        "entrypoint: test $(stat -c %%s junk.bin) = %d && python3 train.py" % len(junk)))
    # The sanitized build CI runs takes minutes over 131 MB of JSON (about
    # 20 s unsanitized): bounded, but not by the usual two minutes.
    rc, out = det(cluster, home, "experiment", "create", str(cfg), str(model), timeout=600)
    assert rc == 0 and "Created experiment" in out, out
    exp_id = int(out.split("Created experiment ")[1].split()[0])
    wait_for("the experiment to end", lambda: cluster.experiment(exp_id)["state"] in (
        "STATE_COMPLETED", "STATE_ERROR"), timeout=600)
    assert cluster.experiment(exp_id)["state"] == "STATE_COMPLETED", \
        cluster.get_text("/api/v1/trials/%d/logs" % cluster.trials(exp_id)[0]["id"])[-3000:]
