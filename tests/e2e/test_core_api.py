"""An unmodified determined 0.38.1 Core API script (examples/core_api) run
as experiments on a real det-master with local det-agents: it completes,
its metrics and checkpoints show in the experiment/trial/checkpoint views,
pausing makes it checkpoint and stop, activating resumes it from that
checkpoint, and 0.38's adaptive_asha stops trials early."""
import json
import os
import re

import pytest

from conftest import ROOT, wait_for

EXAMPLE = os.path.join(ROOT, "examples", "core_api")

pytest.importorskip("determined", reason="pip install determined==0.38.1")


def example_config(cluster, name, **hparams):
    with open(os.path.join(EXAMPLE, name)) as f:
        text = f.read()
    text = text.replace("host_path: /tmp", "host_path: %s" % cluster.ckpt_dir)
    for key, value in hparams.items():
        text, n = re.subn(r"(?m)^(  %s:).*$" % key, r"\g<1> %s" % value, text)
        assert n == 1, key
    return text


def submit(cluster, config):
    status, body = cluster.submit(config, model_dir=EXAMPLE)
    assert status == 200, body
    return body["experiment"]["id"]


def state_of(cluster, exp_id):
    return cluster.experiment(exp_id)["state"]


def trial_log(cluster, trial_id):
    return cluster.get_text("/api/v1/trials/%d/logs" % trial_id)


def assert_every_call_was_served(cluster):
    """The master logs every path it does not serve; the trials' harness
    called none. (The probe shows the log line would be there.)"""
    missing = [l for l in cluster.master_log().splitlines() if "NO ROUTE" in l]
    assert not missing, missing
    status, _ = cluster.post("/api/v1/trials/1/no_such_call", {})
    assert status == 404
    wait_for("the probe's NO ROUTE line",
             lambda: "NO ROUTE for POST /api/v1/trials/1/no_such_call"
             in cluster.master_log(), timeout=10)


def test_core_api_trial_completes_pauses_and_resumes_from_its_checkpoint(
        cluster_factory):
    cluster = cluster_factory(max_instances=1)
    exp_id = submit(cluster, example_config(
        cluster, "experiment.yaml", max_batches=48, batch_delay=0.1))

    # Pause once the trial has checkpointed at least once.
    def checkpointed():
        trials = cluster.trials(exp_id)
        return trials and trials[0].get("bestCheckpoint")
    wait_for("a first checkpoint", checkpointed, timeout=90)
    trial_id = cluster.trials(exp_id)[0]["id"]
    assert cluster.post("/api/v1/experiments/%d/pause" % exp_id)[0] == 200
    wait_for("the paused trial to stop",
             lambda: "preempted at step" in trial_log(cluster, trial_id)
             and cluster.trials(exp_id)[0]["state"] == "STATE_PAUSED",
             timeout=60)
    assert state_of(cluster, exp_id) == "STATE_PAUSED"
    at_pause = cluster.trials(exp_id)[0]["bestCheckpoint"]
    paused_step = at_pause["totalBatches"]
    assert 0 < paused_step < 48
    # core.checkpoint wrote straight into the shared_fs host path.
    ckpt = os.path.join(cluster.ckpt_dir, "determined-checkpoint",
                        at_pause["uuid"], "state.json")
    assert os.path.exists(ckpt), ckpt

    assert cluster.post("/api/v1/experiments/%d/activate" % exp_id)[0] == 200
    wait_for("the experiment to complete",
             lambda: state_of(cluster, exp_id) == "STATE_COMPLETED", timeout=90)
    log = trial_log(cluster, trial_id)
    assert "resumed from checkpoint %s at step %d" % (
        at_pause["uuid"], paused_step) in log, log[-3000:]
    assert "done at step 48" in log
    # Both runs went through the harness's launch layer, as in upstream's
    # containers: its runner line names each allocation, then the
    # entrypoint it starts.
    lines = [json.loads(l)["result"]["log"] for l in log.splitlines() if l.strip()]
    runners = [l for l in lines if "New trial runner in (container %d." % trial_id in l]
    assert len(runners) == 2, log[-3000:]
    launches = [l for l in lines if "Launching: ['sh', '-c', 'python3 model_def.py']" in l]
    assert len(launches) == 2, log[-3000:]
    assert not [l for l in lines if "RuntimeWarning" in l], log[-3000:]

    trial = cluster.get("/api/v1/experiments/%d/trials" % exp_id)["trials"][0]
    assert trial["state"] == "STATE_COMPLETED"
    assert trial["totalBatchesProcessed"] == 48
    assert trial["latestValidation"]["totalBatches"] == 48
    val = trial["latestValidation"]["metrics"]["avgMetrics"]
    assert val["batches"] == 48 and val["validation_loss"] < 0.02
    assert trial["summaryMetrics"]["avg_metrics"]["loss"]["last"] < 0.01
    best = trial["bestCheckpoint"]
    assert best["totalBatches"] == 48 and best["metadata"]["steps_completed"] == 48
    listed = cluster.get("/api/v1/trials/%d/checkpoints" % trial_id)
    # Every checkpoint of the trial, newest first (the one at the pause
    # among them), each naming the trial and its experiment's config.
    uuids = [c["uuid"] for c in listed["checkpoints"]]
    assert uuids[0] == best["uuid"] and at_pause["uuid"] in uuids, uuids
    assert len(set(uuids)) == len(uuids)
    for c in listed["checkpoints"]:
        assert c["training"]["trialId"] == trial_id
        assert c["training"]["experimentConfig"]["searcher"]["name"], c
        # One storage, one id (upstream's storageId; never null).
        assert c["storageId"] == listed["checkpoints"][0]["storageId"] > 0, c
    assert os.path.exists(os.path.join(cluster.ckpt_dir, "determined-checkpoint",
                                       best["uuid"], "state.json"))
    assert cluster.experiment(exp_id)["progress"] == 1.0
    # What core.train.report_progress sent last shows in det trial describe.
    assert cluster.get("/api/v1/trials/%d" % trial_id)["trial"]["progress"] == 1.0
    assert_every_call_was_served(cluster)


def test_core_api_adaptive_asha_stops_trials_early(cluster_factory):
    cluster = cluster_factory(max_instances=2)
    exp_id = submit(cluster, example_config(cluster, "adaptive.yaml"))
    wait_for("the adaptive_asha experiment to complete",
             lambda: state_of(cluster, exp_id) in (
                 "STATE_COMPLETED", "STATE_ERROR", "STATE_CANCELED"),
             timeout=150)
    assert state_of(cluster, exp_id) == "STATE_COMPLETED"
    trials = cluster.trials(exp_id)
    assert len(trials) == 4
    assert all(t["state"] == "STATE_COMPLETED" for t in trials), trials
    lengths = sorted(t["totalBatchesProcessed"] for t in trials)
    assert lengths[0] < 16, lengths  # stopped at a rung by the searcher
    assert lengths[-1] <= 16, lengths
    stopped = [t for t in trials if t["totalBatchesProcessed"] < 16]
    assert any("preempted at step" in trial_log(cluster, t["id"])
               for t in stopped)
    assert_every_call_was_served(cluster)


HPARAMS_SCRIPT = """
import json
import determined as det

info = det.get_cluster_info()
with det.core.init(tensorboard_mode=det.core.TensorboardMode.MANUAL) as core:
    print("HPARAMS " + json.dumps(info.trial.hparams, sort_keys=True))
    core.train.report_metrics(group="group_b", steps_completed=1,
                              metrics={"x": float(len(info.trial.hparams["actions"]))})
"""


def test_nested_and_empty_hyperparameters_reach_the_trial_as_written(
        cluster_factory, tmp_path):
    """Upstream's noop fixture carries `actions: {}`: an empty nested
    hyperparameter reaches `info.trial.hparams` as {} (a KeyError there
    ends the trial in ERROR), nested ones keep their shape, and a metric
    group of the trial's own naming is kept."""
    model = tmp_path / "model"
    model.mkdir()
    (model / "hp.py").write_text(HPARAMS_SCRIPT)
    cluster = cluster_factory(max_instances=1)
    config = """
name: nested-hparams
entrypoint: python3 hp.py
max_restarts: 0
hyperparameters:
  actions: {}
  optimizer:
    name: sgd
    momentum:
      type: const
      val: 0.9
  lr: 0.5
searcher:
  name: single
  metric: x
  max_length: 1
"""
    status, body = cluster.submit(config, model_dir=str(model))
    assert status == 200, body
    exp_id = body["experiment"]["id"]
    wait_for("the experiment to end", lambda: state_of(cluster, exp_id) in (
        "STATE_COMPLETED", "STATE_ERROR"), timeout=120)
    trial_id = cluster.trials(exp_id)[0]["id"]
    log = trial_log(cluster, trial_id)
    assert state_of(cluster, exp_id) == "STATE_COMPLETED", log[-3000:]
    lines = [json.loads(l)["result"]["log"] for l in log.splitlines() if l.strip()]
    line = next(l for l in lines if l.startswith("HPARAMS "))
    hparams = json.loads(line.split("HPARAMS ", 1)[1])
    assert hparams == {"actions": {}, "optimizer": {"name": "sgd", "momentum": 0.9},
                       "lr": 0.5}, hparams
    assert cluster.trials(exp_id)[0]["hparams"]["actions"] == {}
    # The trial reported len(actions) under a group of its own naming.
    summary = cluster.get("/api/v1/trials/%d" % trial_id)["trial"]["summaryMetrics"]
    assert summary["group_b"]["x"]["last"] == 0, summary
