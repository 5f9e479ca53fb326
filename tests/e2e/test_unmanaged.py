"""Unmanaged experiments with the real SDK (determined 0.38.1's core_v2): a
training script that runs here, outside the cluster, creates its experiment
and trial by external ids, reports metrics, a checkpoint and its log lines
with the user's session, and fails; run again with the same ids it resumes
the same trial from that checkpoint and completes. The master never places
it, the experiment's state follows its trial's, a restart and det-replay
agree, and requests that make no sense are refused naming the field."""
import json
import os
import shutil
import subprocess
import sys
import urllib.request

import pytest

from conftest import wait_for

pytest.importorskip("determined", reason="pip install determined==0.38.1")

SCRIPT = r"""
import json, os, pathlib, sys
from determined import core
from determined.experimental import client, core_v2

det = client.Determined(master=os.environ["MASTER"], user="admin", password="")
core_v2.init(
    config=core_v2.Config(
        name="offsite",
        hparams={"lr": 0.25},
        external_experiment_id="e2e-exp",
        external_trial_id="e2e-trial",
        checkpoint_storage=os.environ["CKPT"],
        searcher={"name": "single", "metric": "loss"},
    ),
    client=det,
    tensorboard_mode=core.TensorboardMode.MANUAL,
)
info = core_v2.info
start = 0
if info.latest_checkpoint:
    with core_v2.checkpoint.restore_path(info.latest_checkpoint) as path:
        start = json.loads((path / "state.json").read_text())["steps"]
print("unmanaged run", info.trial._trial_run_id, "trial", info.trial.trial_id,
      "resumes at", start, flush=True)
stop = start + 5
for step in range(start + 1, stop + 1):
    core_v2.train.report_training_metrics(steps_completed=step,
                                          metrics={"loss": 1.0 / step})
core_v2.train.report_validation_metrics(steps_completed=stop,
                                        metrics={"loss": 1.0 / stop})
with core_v2.checkpoint.store_path({"steps_completed": stop}) as (path, uuid):
    (path / "state.json").write_text(json.dumps({"steps": stop}))
print("checkpoint at", stop, flush=True)
if os.environ.get("FAIL"):
    raise RuntimeError("the script failed on purpose")
core_v2.close()
"""


def run_script(c, tmp, fail):
    env = dict(os.environ, MASTER=c.url, CKPT=os.path.join(tmp, "ckpt"),
               DET_MASTER=c.url, HOME=tmp)
    env.pop("DET_USER_TOKEN", None)
    if fail:
        env["FAIL"] = "1"
    else:
        env.pop("FAIL", None)
    path = os.path.join(tmp, "offsite.py")
    with open(path, "w") as f:
        f.write(SCRIPT)
    return subprocess.run([sys.executable, path], capture_output=True, text=True,
                          env=env, timeout=120)


def call(c, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(c.url + path, data=data, method=method)
    req.add_header("Authorization", "Bearer " + c.token)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def log_lines(c, trial):
    return [json.loads(l)["result"]["message"]
            for l in c.get_text("/api/v1/trials/%d/logs" % trial).splitlines() if l.strip()]


def test_an_unmanaged_script_fails_then_resumes_the_same_trial_and_completes(
        cluster_factory, tmp_path):
    from determined.experimental import client
    from test_cluster import replay_ok

    c = cluster_factory(max_instances=1)
    tmp = str(tmp_path)
    first = run_script(c, tmp, fail=True)
    assert first.returncode == 1, first.stdout + first.stderr
    assert "the script failed on purpose" in first.stderr

    exps = c.get("/api/v1/experiments")["experiments"]
    assert len(exps) == 1, exps
    exp = exps[0]
    assert exp["unmanaged"] is True and exp["externalExperimentId"] == "e2e-exp"
    assert exp["state"] == "STATE_ERROR", exp
    [trial] = c.trials(exp["id"])
    assert trial["state"] == "STATE_ERROR" and trial["externalTrialId"] == "e2e-trial"
    assert trial["hparams"] == {"lr": 0.25}
    # Its lines came through POST /task-logs with the user's session.
    lines = log_lines(c, trial["id"])
    assert any("unmanaged run 1 trial %d resumes at 0" % trial["id"] in l for l in lines), lines
    assert any("checkpoint at 5" in l for l in lines), lines
    # The master placed nothing: no agent was ever launched for it.
    assert c.get("/api/v1/agents")["agents"] == []

    second = run_script(c, tmp, fail=False)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "unmanaged run 2 trial %d resumes at 5" % trial["id"] in second.stdout
    exp = c.experiment(exp["id"])
    assert exp["state"] == "STATE_COMPLETED" and exp["progress"] == 1, exp
    assert exp["numTrials"] == 1
    [trial] = c.trials(exp["id"])
    assert trial["state"] == "STATE_COMPLETED" and trial["totalBatchesProcessed"] == 10

    sdk = client.Determined(master=c.url, user="admin", password="")
    t = sdk.get_trial(trial["id"])
    steps = [m.steps_completed for m in t.iter_metrics("training")]
    assert steps == list(range(1, 11)), steps
    assert [m.steps_completed for m in t.iter_metrics("validation")] == [5, 10]
    ckpts = sdk.get_experiment(exp["id"]).list_checkpoints()
    assert sorted(k.metadata["steps_completed"] for k in ckpts) == [5, 10]

    # The det CLI lists and describes it as any experiment.
    det = shutil.which("det")
    if det:
        env = dict(os.environ, DET_MASTER=c.url, HOME=tmp, DET_USER="admin", DET_PASS="")
        out = subprocess.run([det, "experiment", "list", "--csv"], env=env,
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stdout + out.stderr
        rows = [l.split(",") for l in out.stdout.splitlines()]
        assert [r[:3] for r in rows[1:]] == [[str(exp["id"]), "admin", "offsite"]], rows
        assert "COMPLETED" in rows[1], rows
        out = subprocess.run([det, "experiment", "describe", str(exp["id"]), "--json"],
                             env=env, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stdout + out.stderr
        [described] = json.loads(out.stdout)
        assert described["experiment"]["unmanaged"] is True, described["experiment"]
        out = subprocess.run([det, "trial", "describe", str(trial["id"])], env=env,
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0 and "COMPLETED" in out.stdout, out.stdout + out.stderr

    # Not the master's to drive; a managed trial is not the client's.
    status, body = c.post("/api/v1/experiments/%d/pause" % exp["id"])
    assert status == 400 and "is unmanaged" in body["error"]["error"], body
    status, body = call(c, "PATCH", "/api/v1/trials/%d" % trial["id"],
                        {"trialId": trial["id"], "state": "STATE_LOST"})
    assert status == 400 and "state: 'LOST'" in body["error"]["error"], body
    status, body = call(c, "POST", "/api/v1/trials",
                        {"experimentId": exp["id"], "unmanaged": False})
    assert status == 400 and "only unmanaged trials" in body["error"]["error"], body
    status, body = call(c, "PUT", "/api/v1/trials",
                        {"createTrialRequest": {"experimentId": exp["id"], "unmanaged": True},
                         "externalTrialId": "bad\u0000id"})
    assert status == 400 and "externalTrialId" in body["error"]["error"], body
    status, body = call(c, "PUT", "/api/v1/experiments/by-external-id/x",
                        {"config": "name: x\nsearcher: {name: single, metric: m}"})
    assert status == 400 and "only unmanaged experiments" in body["error"]["error"], body
    status, body = call(c, "POST", "/api/v1/trials/%d/start" % trial["id"],
                        {"trialId": trial["id"], "resume": False})
    assert status == 400 and "already been started" in body["error"]["error"], body

    # A restarted master shows the same, and the log replays cleanly.
    c.stop()
    c.start()
    again = c.experiment(exp["id"])
    assert (again["state"], again["unmanaged"], again["externalExperimentId"]) == \
        ("STATE_COMPLETED", True, "e2e-exp")
    assert c.trials(exp["id"])[0]["state"] == "STATE_COMPLETED"
    replay_ok(c)
