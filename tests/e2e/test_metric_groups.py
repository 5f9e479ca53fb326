"""Metric groups beyond training and validation, as determined 0.38.1 uses
them: an unmodified Core API trial reports group "group_b" with
core.train.report_metrics(group=...); the SDK's iter_metrics("group_b"),
the learning-curve route (metricIds "group_b.loss"), the trial's
summaryMetrics and `det trial describe --metrics` all show it. A group
name the master cannot keep (empty, with a dot, control characters, too
long) is refused with a 400 naming `group`, and nothing is recorded."""
import json
import os
import shutil
import subprocess
import urllib.parse

import pytest

from conftest import wait_for
from test_metrics_history import get_status, logged_reports, sdk

pytest.importorskip("determined", reason="pip install determined==0.38.1")

DET = shutil.which("det")

TRAIN = '''
from determined import core

with core.init(tensorboard_mode=core.TensorboardMode.MANUAL) as ctx:
    for steps in (5, 10, 15):
        ctx.train.report_training_metrics(steps_completed=steps,
                                          metrics={"loss": 1.0 / steps})
        ctx.train.report_metrics(group="group_b", steps_completed=steps,
                                 metrics={"loss": steps / 10.0, "tag": "b"})
    ctx.train.report_validation_metrics(steps_completed=15,
                                        metrics={"validation_loss": 0.5})
    ctx.train.report_progress(1.0)
'''

CONFIG = """
name: metric-groups
entrypoint: python3 train.py
max_restarts: 0
searcher:
  name: single
  metric: validation_loss
  max_length:
    batches: 15
environment:
  environment_variables:
    - PYTHONUNBUFFERED=1
"""


def det(cluster, *args):
    env = dict(os.environ, DET_MASTER=cluster.url, DET_USER="admin", DET_PASS="",
               HOME=cluster.tmp_home, XDG_CONFIG_HOME=os.path.join(cluster.tmp_home, ".config"))
    env.pop("DET_USER_TOKEN", None)
    p = subprocess.run([DET] + list(args), env=env, capture_output=True, text=True, timeout=90)
    assert p.returncode == 0, "det %s failed:\n%s%s" % (" ".join(args), p.stdout, p.stderr)
    return p.stdout


@pytest.fixture
def finished(cluster_factory, tmp_path):
    """A cluster whose one trial reported training, group_b and validation
    metrics and completed: (cluster, trial id)."""
    cluster = cluster_factory(max_instances=1)
    cluster.tmp_home = str(tmp_path / "home")
    os.makedirs(cluster.tmp_home)
    model = tmp_path / "model"
    model.mkdir()
    (model / "train.py").write_text(TRAIN)
    status, body = cluster.submit(CONFIG, model_dir=str(model))
    assert status == 200, body
    exp_id = body["experiment"]["id"]
    wait_for("the experiment to end",
             lambda: cluster.experiment(exp_id)["state"]
             in ("STATE_COMPLETED", "STATE_ERROR", "STATE_CANCELED"), timeout=120)
    (trial,) = cluster.trials(exp_id)
    assert cluster.experiment(exp_id)["state"] == "STATE_COMPLETED", \
        cluster.get_text("/api/v1/trials/%d/logs" % trial["id"])[-3000:]
    return cluster, trial["id"]


def test_a_trials_own_group_is_kept_and_read_back_everywhere(finished):
    cluster, trial_id = finished
    logged = [r for r in logged_reports(cluster, trial_id) if r[0] == "group_b"]
    assert [r[1] for r in logged] == [5, 10, 15]

    # The SDK's stream of the group: every report, as logged.
    got = [(m.group, m.steps_completed, m.metrics)
           for m in sdk(cluster).get_trial(trial_id).iter_metrics("group_b")]
    assert got == logged
    assert got[0][2] == {"loss": 0.5, "tag": "b"}
    # Training did not swallow it, nor it training.
    training = list(sdk(cluster).get_trial(trial_id).iter_metrics("training"))
    assert [m.metrics["loss"] for m in training] == [0.2, 0.1, 1.0 / 15]

    # A learning curve of the group by metric id, as the WebUI asks it.
    status, body = get_status(
        cluster, "/api/v1/trials/time-series?trialIds=%d&metricIds=group_b.loss" % trial_id)
    assert status == 200, body
    (series,) = body["trials"][0]["metrics"]
    assert series["group"] == "group_b"
    assert series["type"] == "METRIC_TYPE_UNSPECIFIED"
    assert [(p["batches"], p["values"]) for p in series["data"]] == \
        [(5, {"loss": 0.5}), (10, {"loss": 1.0}), (15, {"loss": 1.5})]

    # The trial's summary, under upstream's keys.
    summary = cluster.get("/api/v1/trials/%d" % trial_id)["trial"]["summaryMetrics"]
    loss = summary["group_b"]["loss"]
    assert (loss["count"], loss["min"], loss["max"], loss["last"], loss["type"]) == \
        (3, 0.5, 1.5, 1.5, "number")
    assert abs(loss["mean"] - 1.0) < 1e-9
    assert summary["group_b"]["tag"] == {"type": "string", "last": "b"}
    assert summary["avg_metrics"]["loss"]["count"] == 3
    assert summary["validation_metrics"]["validation_loss"]["last"] == 0.5


def test_det_trial_describe_shows_the_groups_summary(finished):
    cluster, trial_id = finished
    out = json.loads(det(cluster, "trial", "describe", "--json", "--metrics", str(trial_id)))
    assert out["trial"]["summaryMetrics"]["group_b"]["loss"]["count"] == 3
    assert out["trial"]["summaryMetrics"]["avg_metrics"]["loss"]["max"] == 0.2
    # Workloads are training and validation reports (and checkpoints).
    kinds = [k for w in out["workloads"] for k, v in w.items() if v is not None]
    assert kinds.count("training") == 3 and kinds.count("validation") == 1, kinds
    text = det(cluster, "trial", "describe", "--metrics", "--metrics-summary", str(trial_id))
    assert '"group_b"' in text and "Workload Metrics" in text, text


def test_a_group_the_master_cannot_keep_is_refused_naming_the_field(finished):
    cluster, trial_id = finished
    before = logged_reports(cluster, trial_id)
    for group in ("", "group.b", "nul\x00byte", "bell\x07", "g" * 256):
        status, body = cluster.post("/api/v1/trials/%d/metrics" % trial_id, {
            "group": group,
            "metrics": {"trialId": trial_id, "trialRunId": 1, "stepsCompleted": 99,
                        "metrics": {"avgMetrics": {"loss": 1.0}}}})
        assert status == 400, (group, body)
        # Named as the check found it: ours, or the JSON reader's (NUL).
        assert body["error"]["error"].startswith(("group ", "field 'group'")), (group, body)
    for group in ("a.b", "bell\x07", "g" * 256):
        status, body = get_status(
            cluster, "/api/v1/trials/metrics/trial_metrics?trialIds=%d&group=%s"
            % (trial_id, urllib.parse.quote(group)))
        assert status == 400 and body["error"]["error"].startswith("group "), (group, body)
    status, body = get_status(
        cluster, "/api/v1/trials/time-series?trialIds=%d&metricIds=%s"
        % (trial_id, urllib.parse.quote("bell\x07.loss")))
    assert status == 400 and body["error"]["error"].startswith("metricIds"), body
    assert logged_reports(cluster, trial_id) == before
