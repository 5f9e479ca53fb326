"""A trial's whole metric history, as the 0.38.1 SDK and the WebUI read it:
every report the trial made comes back (equal to the event log's), live
ones too, after a master restart as well; learning curves are sampled to
the asked number of points with both ends kept; bad queries are refused
naming the parameter."""
import json
import subprocess
import urllib.error
import urllib.request

import pytest

from conftest import experiment_yaml, wait_for

pytest.importorskip("determined", reason="pip install determined==0.38.1")


def logged_reports(cluster, trial_id):
    """(group, steps, metrics) of every trial_metrics_reported event of the
    trial, in log order, straight from PostgreSQL."""
    out = subprocess.check_output(
        ["psql", cluster.db, "-tAqc",
         "SELECT payload FROM events WHERE stream_id = 'trial/%d' "
         "AND type = 'trial_metrics_reported' ORDER BY position" % trial_id], text=True)
    rows = [json.loads(l) for l in out.splitlines() if l.strip()]
    return [(r["kind"], r["steps_completed"], r["metrics"]) for r in rows]


def sdk(cluster):
    from determined.experimental import client
    return client.Determined(master=cluster.url, user="admin", password="")


def sdk_reports(cluster, trial_id, group):
    return [(m.group, m.steps_completed, m.metrics)
            for m in sdk(cluster).get_trial(trial_id).iter_metrics(group)]


def get_status(cluster, path):
    req = cluster._auth(urllib.request.Request(cluster.url + path))
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def test_the_sdk_reads_every_report_live_and_after_a_restart(cluster_factory):
    cluster = cluster_factory(max_instances=1)
    status, body = cluster.submit(experiment_yaml(max_length=400, batch_delay=0.05))
    assert status == 200, body
    exp_id = body["experiment"]["id"]
    wait_for("trial 1 reporting", lambda: len(logged_reports(cluster, 1)) >= 3, timeout=60)

    # Read while the trial runs (loads from the log), then again later:
    # reports made since are followed without another load.
    first = sdk_reports(cluster, 1, "training")
    assert first, "no training reports"
    wait_for("more reports", lambda: len(logged_reports(cluster, 1)) >= len(first) + 4,
             timeout=60)
    cluster.post("/api/v1/experiments/%d/kill" % exp_id)
    wait_for("the experiment to end",
             lambda: cluster.experiment(exp_id)["state"] in ("STATE_CANCELED", "STATE_COMPLETED"),
             timeout=60)
    logged = logged_reports(cluster, 1)
    for group in ("training", "validation"):
        expected = [r for r in logged if r[0] == group]
        assert expected, group
        assert sdk_reports(cluster, 1, group) == expected, group
    assert len(sdk_reports(cluster, 1, "training")) > len(first)

    # A new master reads the history from the log again.
    cluster.kill_master()
    cluster.start()
    assert sdk_reports(cluster, 1, "training") == [r for r in logged if r[0] == "training"]
    # The legacy streams carry the same reports.
    legacy = [m.steps_completed for m in sdk(cluster).get_trial(1).stream_validation_metrics()]
    assert legacy == [r[1] for r in logged if r[0] == "validation"]


def test_learning_curves_are_sampled_to_the_asked_points(cluster_factory):
    cluster = cluster_factory(max_instances=1)
    status, body = cluster.submit(experiment_yaml(max_length=60, batch_delay=0.005))
    assert status == 200, body
    exp_id = body["experiment"]["id"]
    wait_for("the experiment to complete",
             lambda: cluster.experiment(exp_id)["state"] == "STATE_COMPLETED", timeout=90)
    logged = logged_reports(cluster, 1)
    training = [r for r in logged if r[0] == "training"]
    assert [r[1] for r in training] == list(range(5, 61, 5))

    status, body = get_status(
        cluster, "/api/v1/trials/time-series?trialIds=1&group=training&maxDatapoints=4")
    assert status == 200, body
    (trial,) = body["trials"]
    assert trial["trial"]["id"] == 1
    (series,) = trial["metrics"]
    assert series["type"] == "METRIC_TYPE_TRAINING"
    points = series["data"]
    assert len(points) == 4
    assert points[0]["batches"] == 5 and points[-1]["batches"] == 60
    by_step = {r[1]: r[2] for r in training}
    for p in points:
        assert p["values"] == by_step[p["batches"]]
        assert p["time"].endswith("Z")

    # Both groups when none is named; a metric chosen by name; a step range.
    status, body = get_status(
        cluster, "/api/v1/trials/time-series?trialIds=1&metricNames=validation_loss"
        "&startBatches=20&endBatches=40")
    assert status == 200, body
    groups = {m["group"]: m["data"] for m in body["trials"][0]["metrics"]}
    assert set(groups) == {"training", "validation"}
    assert groups["training"] and all(p["values"] == {} for p in groups["training"])
    assert [p["batches"] for p in groups["validation"]] == [20, 30, 40]
    assert all(set(p["values"]) == {"validation_loss"} for p in groups["validation"])

    for query, field in (("", "trialIds"), ("trialIds=abc", "trialIds"),
                         ("trialIds=1&group=a.b", "group"),
                         ("trialIds=1&maxDatapoints=-1", "maxDatapoints"),
                         ("trialIds=1&metricType=METRIC_TYPE_NOPE", "metricType"),
                         ("trialIds=1&metricIds=nodot", "metricIds")):
        status, body = get_status(cluster, "/api/v1/trials/time-series?" + query)
        assert status == 400, (query, body)
        assert body["error"]["error"].startswith(field), (query, body)
    status, body = get_status(cluster, "/api/v1/trials/metrics/trial_metrics?trialIds=1")
    assert status == 400 and "group" in body["error"]["error"], body
    status, body = get_status(cluster, "/api/v1/trials/time-series?trialIds=1&trialIds=999")
    assert status == 404 and "trial 999" in body["error"]["error"], body
