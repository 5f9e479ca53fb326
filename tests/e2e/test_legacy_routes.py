"""Upstream's routes outside /api/v1 against a real master: the WebUI under
/det/ (`/` redirects there), upstream's legacy GET /tasks and resource
accounting (/resources/allocation/raw, /aggregated, /allocations-csv)
answered in JSON or CSV, never the WebUI's HTML, `det resources` of the
real 0.38.1 CLI printing tables, and every unknown path a JSON 404."""
import csv
import datetime
import http.client
import io
import json
import os
import shutil
import subprocess

import pytest

from conftest import Cluster, experiment_yaml, wait_for

DET = shutil.which("det")


@pytest.fixture(scope="module")
def c(pg_server, tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("legacy"))
    cl = Cluster(pg_server, tmp, "e2e_legacy", idle="10m", max_instances=1)
    cl.home = os.path.join(tmp, "home")
    os.makedirs(cl.home)
    yield cl
    cl.stop()


@pytest.fixture(scope="module")
def finished(c):
    """An experiment whose one trial was seen in GET /tasks while it ran,
    then completed: (experiment id, what /tasks said, the window around
    it)."""
    before = stamp(-5)
    status, body = c.submit(experiment_yaml(max_length=60, batch_delay=0.1))
    assert status == 200, body
    exp = body["experiment"]["id"]

    def running_task():
        for alloc, t in c.get("/tasks").items():
            if "Experiment %d" % exp in t["name"] and t["resources"]:
                return alloc, t
        return None
    seen = wait_for("the trial in GET /tasks", running_task, timeout=120)
    wait_for("the experiment to complete",
             lambda: c.experiment(exp)["state"] == "STATE_COMPLETED", timeout=180)
    return exp, seen, (before, stamp(5))


def stamp(offset_s):
    t = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=offset_s)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def raw(c, path, token=None):
    """(status, lower-cased headers, body text) without following redirects."""
    conn = http.client.HTTPConnection("127.0.0.1", c.port, timeout=30)
    conn.request("GET", path, headers={"Authorization": "Bearer " + token} if token else {})
    r = conn.getresponse()
    body = r.read().decode()
    conn.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, body


def det(c, *args):
    env = dict(os.environ, DET_MASTER=c.url, HOME=c.home, DET_USER="admin", DET_PASS="",
               XDG_CONFIG_HOME=os.path.join(c.home, ".config"))
    env.pop("DET_USER_TOKEN", None)
    p = subprocess.run([DET] + list(args), env=env, capture_output=True, text=True, timeout=90)
    return p.returncode, p.stdout, p.stderr


def test_the_root_redirects_to_the_webui_under_det(c):
    status, headers, _ = raw(c, "/")
    assert status == 301 and headers["location"] == "/det/"
    status, headers, body = raw(c, "/det/experiments")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert '<div id="app">' in body and "/det/assets/" in body


def test_unknown_and_legacy_paths_never_answer_html(c):
    for path in ("/experiments", "/no/such/thing", "/resources/allocation", "/tasks/x",
                 "/api/v1/nothing", "/assets/index.js"):
        status, headers, body = raw(c, path, token=c.token)
        assert status == 404, path
        assert headers["content-type"].startswith("application/json"), (path, body[:80])
        assert path in json.loads(body)["error"]["error"], body


def test_legacy_routes_need_a_login(c):
    for path in ("/tasks", "/resources/allocation/raw?timestamp_after=%s&timestamp_before=%s"
                 % (stamp(-60), stamp(0))):
        status, headers, body = raw(c, path)
        assert status == 401, path
        assert json.loads(body)["error"]["reason"] == "Unauthenticated"


def test_tasks_is_a_map_of_live_allocations_in_upstreams_field_names(c, finished):
    exp, (alloc, task), _ = finished
    assert task["allocation_id"] == alloc
    assert task["name"] == "Trial %d (Experiment %d)" % (int(alloc.split(".")[0]), exp)
    assert task["slots_needed"] == 1 and task["resource_pool"] == "default"
    [res] = task["resources"]
    assert res["allocation_id"] == alloc and len(sum(res["agent_devices"].values(), [])) == 1
    # Ended allocations leave it.
    assert alloc not in c.get("/tasks")


def test_allocations_csv_has_the_experiments_allocation(c, finished):
    exp, (alloc, _), (after, before) = finished
    status, headers, body = raw(c, "/resources/allocation/allocations-csv?timestamp_after=%s"
                                "&timestamp_before=%s" % (after, before), token=c.token)
    assert status == 200 and headers["content-type"].startswith("text/csv"), body[:200]
    rows = list(csv.DictReader(io.StringIO(body)))
    [row] = [r for r in rows if r["experiment_id"] == str(exp)]
    assert row["allocation_id"] == alloc and row["task_type"] == "TRIAL"
    assert row["username"] == "admin" and row["workspace_name"] == "Uncategorized"
    assert row["slots"] == "1" and row["end_time"] and float(row["slot_hours"]) > 0


def test_raw_and_aggregated_answer_csv_and_json(c, finished):
    exp, _, (after, before) = finished
    q = "timestamp_after=%s&timestamp_before=%s" % (after, before)
    status, headers, body = raw(c, "/resources/allocation/raw?" + q, token=c.token)
    assert status == 200 and headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(body)))
    assert [r["experiment_id"] for r in rows] == [str(exp)]
    assert float(rows[0]["seconds"]) > 0
    j = c.get("/api/v1/resources/allocation/raw?" + q)
    assert [e["experimentId"] for e in j["resourceEntries"]] == [exp]

    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    q = "start_date=%s&end_date=%s&period=RESOURCE_ALLOCATION_AGGREGATION_PERIOD_DAILY" % (today, today)
    status, headers, body = raw(c, "/resources/allocation/aggregated?" + q, token=c.token)
    assert status == 200 and headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(body)))
    totals = [r for r in rows if r["aggregation_type"] == "total"]
    assert len(totals) == 1 and totals[0]["date"] == today and float(totals[0]["seconds"]) > 0
    assert any(r["aggregation_type"] == "username" and r["aggregation_key"] == "admin" for r in rows)
    [entry] = c.get("/api/v1/resources/allocation/aggregated?" + q)["resourceEntries"]
    assert entry["periodStart"] == today and entry["byUsername"]["admin"] > 0


def test_bad_parameters_are_400s_naming_them(c):
    for path, name in (
            ("/resources/allocation/raw?timestamp_after=2024-01-01T00:00:00Z", "timestamp_before"),
            ("/resources/allocation/allocations-csv?timestamp_after=now&timestamp_before=then",
             "timestamp_after"),
            ("/api/v1/resources/allocation/raw", "timestamp_after"),
            ("/resources/allocation/aggregated?start_date=2024-01-01&end_date=2024-01-02&period=DAY",
             "period"),
            ("/resources/allocation/aggregated?start_date=2024-13-01&end_date=2024-01-02"
             "&period=RESOURCE_ALLOCATION_AGGREGATION_PERIOD_DAILY", "start_date")):
        status, headers, body = raw(c, path, token=c.token)
        assert status == 400, (path, body)
        assert name in json.loads(body)["error"]["error"], (path, body)


@pytest.mark.skipif(DET is None, reason="the det CLI is not installed")
def test_det_resources_prints_tables_not_html(c, finished):
    exp, _, (after, before) = finished
    rc, out, err = det(c, "resources", "raw", after, before)
    assert rc == 0, err
    assert out.splitlines()[0] == "experiment_id,kind,username,labels,slots,start_time,end_time,seconds"
    assert "<html" not in out.lower() and out.splitlines()[1].startswith("%d," % exp)

    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    rc, out, err = det(c, "resources", "aggregated", today, today)
    assert rc == 0, err
    assert out.splitlines()[0] == "aggregation_type,aggregation_key,date,seconds"
    assert "total,total,%s," % today in out

    rc, out, err = det(c, "resources", "aggregated", "--json", "--monthly", today[:7], today[:7])
    assert rc == 0, err
    [entry] = json.loads(out)["resourceEntries"]
    assert entry["periodStart"] == today[:7] and entry["seconds"] > 0

    rc, out, err = det(c, "resources", "allocations", after, before)
    assert rc == 0, err
    assert out.startswith("allocation_id,task_type,username,workspace_name,experiment_id,")

    rc, out, err = det(c, "task", "list")
    assert rc == 0, err
