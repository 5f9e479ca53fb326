"""det-inspect against a real master (API mode) and, after the master stops,
against its event log (--db); GET /metrics parsed with prometheus_client."""
import json
import os
import select
import subprocess
import time
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from conftest import BIN, experiment_yaml, wait_for

INSPECT = os.path.join(BIN, "det-inspect")
# The cluster's admin session (the master requires a bearer token on every
# route but /info, /api/v1/master and login); det-inspect reads DET_TOKEN.
SESSION = {}


def inspect(*args, ok=True, token=True):
    env = dict(os.environ)
    env.pop("DET_TOKEN", None)
    if token and SESSION.get("token"):
        env["DET_TOKEN"] = SESSION["token"]
    out = subprocess.run([INSPECT, *args], capture_output=True, text=True, timeout=60,
                         env=env)
    if ok:
        assert out.returncode == 0, out.stdout + out.stderr
    return out


def ij(*args):
    return json.loads(inspect(*args, "--json").stdout)


def table(text):
    """Header words and rows (cells split on runs of 2+ spaces)."""
    import re
    lines = [l for l in text.splitlines() if l.strip()]
    return [re.split(r"\s{2,}", l.strip()) for l in lines]


def metrics(c):
    text = c.get_text("/metrics")
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return text, out


@pytest.fixture(scope="module")
def finished(pg_server, tmp_path_factory):
    """A cluster that ran one experiment (two trials) to completion."""
    from conftest import Cluster
    c = Cluster(pg_server, str(tmp_path_factory.mktemp("inspect")), "e2e_inspect",
                idle="10m", max_instances=1)
    SESSION["token"] = c.token
    status, body = c.submit(experiment_yaml(max_length=20, trials=2, checkpoint_every=10))
    assert status == 200, body
    exp_id = int(body["experiment"]["id"])
    wait_for("the experiment to complete",
             lambda: c.experiment(exp_id)["state"] == "STATE_COMPLETED", timeout=120)
    yield c, exp_id
    c.stop()


def test_views_as_tables_and_json_match_the_cluster(finished):
    c, exp_id = finished
    m = ["--master", c.url]
    exps = ij(*m, "experiments")["experiments"]
    assert [(e["id"], e["state"], e["trials"], e["searcher"]) for e in exps] == \
        [(exp_id, "COMPLETED", 2, "grid")]
    rows = table(inspect(*m, "experiments").stdout)
    assert rows[0][:3] == ["ID", "NAME", "STATE"]
    assert rows[1][:3] == [str(exp_id), "e2e", "COMPLETED"]

    api_trials = {t["id"]: t for t in c.trials(exp_id)}
    trials = ij(*m, "trials", "--experiment", str(exp_id))["trials"]
    assert sorted(t["id"] for t in trials) == sorted(api_trials)
    for t in trials:
        assert t["state"] == "completed" and t["steps_completed"] == 20
        assert t["latest_checkpoint"] == api_trials[t["id"]]["bestCheckpoint"]["uuid"]
    assert ij(*m, "trials", "--experiment", "999")["trials"] == []
    rows = table(inspect(*m, "trials").stdout)
    assert rows[0][:3] == ["ID", "EXPERIMENT", "STATE"] and len(rows) == 3

    ckpts = ij(*m, "checkpoints")["checkpoints"]
    assert sorted(k["uuid"] for k in ckpts) == \
        sorted(t["latest_checkpoint"] for t in trials)
    assert all(k["steps_completed"] == 20 for k in ckpts)

    pools = ij(*m, "pools")["pools"]
    agents = ij(*m, "agents")["agents"]
    inst = ij(*m, "instances")
    assert [p["name"] for p in pools] == ["default"]
    assert pools[0]["provider"] == "local" and pools[0]["max_instances"] == 1
    assert pools[0]["agents"] == len(agents)
    assert pools[0]["slots_used"] == 0 and pools[0]["slots_free"] == len(agents)
    assert len(agents) == 1 and agents[0]["status"] == "connected"
    assert agents[0]["idle_since"] is not None  # nothing runs on it now
    # Local "instances" are det-agent processes, named by the provider.
    assert [i["id"] for i in inst["instances"]] == ["local-default-1"]
    assert inst["instances"][0]["state"] == "running"
    assert inst["instances"][0]["launched_at"] is not None
    assert inst["launch_errors"] == []
    rows = table(inspect(*m, "instances").stdout)
    assert rows[0][:3] == ["INSTANCE", "POOL", "STATE"]
    assert rows[1][:3] == ["local-default-1", "default", "running"]
    rows = table(inspect(*m, "agents").stdout)
    assert rows[1][:3] == [agents[0]["id"], "default", "connected"]


def test_events_filters_ranges_and_follow(finished):
    c, exp_id = finished
    m = ["--master", c.url]
    sub = ij(*m, "events", "--type", "experiment_submitted")
    assert [e["payload"]["experiment_id"] for e in sub["events"]] == [exp_id]
    pos = sub["events"][0]["position"]
    rng = ij(*m, "events", "--from", str(pos), "--to", str(pos + 2))["events"]
    assert [e["position"] for e in rng] == [pos, pos + 1, pos + 2]
    trial1 = ij(*m, "events", "--stream", "trial/1", "--limit", "1000")["events"]
    assert trial1 and all(e["stream"] == "trial/1" for e in trial1)
    assert trial1[0]["type"] == "trial_created"
    tail = ij(*m, "events")
    assert len(tail["events"]) == 20
    assert tail["events"][-1]["position"] == tail["last_position"]
    rows = table(inspect(*m, "events", "--type", "experiment_submitted").stdout)
    assert rows[0] == ["POSITION", "RECORDED", "STREAM", "TYPE", "PAYLOAD"]
    assert rows[1][0] == str(pos) and rows[1][2] == "experiment/%d" % exp_id

    follow = subprocess.Popen([INSPECT, *m, "events", "--follow", "--json",
                               "--type", "experiment_submitted", "--interval", "100"],
                              stdout=subprocess.PIPE, text=True,
                              env=dict(os.environ, DET_TOKEN=c.token))
    try:
        first = json.loads(follow.stdout.readline())
        assert first["payload"]["experiment_id"] == exp_id
        status, body = c.submit(experiment_yaml(max_length=5, trials=1))
        assert status == 200, body
        new_id = int(body["experiment"]["id"])
        deadline = time.monotonic() + 20
        seen = None
        while seen is None and time.monotonic() < deadline:
            ready, _, _ = select.select([follow.stdout], [], [], 1.0)
            if ready:
                e = json.loads(follow.stdout.readline())
                if e["payload"]["experiment_id"] == new_id:
                    seen = e
        assert seen is not None, "--follow did not show the new experiment in 20 s"
        assert seen["position"] > pos
    finally:
        follow.kill()
        follow.wait(timeout=10)
    wait_for("the second experiment to complete",
             lambda: c.experiment(new_id)["state"] == "STATE_COMPLETED", timeout=120)


def test_state_at_an_earlier_position_and_bad_positions(finished):
    c, exp_id = finished
    m = ["--master", c.url]
    pos = ij(*m, "events", "--type", "experiment_submitted")["events"][0]["position"]
    then = ij(*m, "state", "--at", str(pos), "experiments")["experiments"]
    assert [(e["id"], e["state"], e["trials"]) for e in then] == [(exp_id, "ACTIVE", 0)]
    snap = ij(*m, "state", "--at", str(pos - 1))
    assert snap["position"] == pos - 1
    assert snap["experiments"] == []
    summary = table(inspect(*m, "state", "--at", str(pos)).stdout)
    assert summary[0] == ["position:", str(pos)]
    assert ["experiments", "1", "ACTIVE=1"] in summary
    bad = inspect(*m, "state", "--at", "abc", ok=False)
    assert bad.returncode == 2 and "--at" in bad.stderr and "'abc'" in bad.stderr
    last = ij(*m, "events", "--limit", "1")["last_position"]
    past = inspect(*m, "state", "--at", str(last + 1000), ok=False)
    assert past.returncode == 1
    assert "past the end of the log" in past.stderr and str(last + 1000) in past.stderr
    rng = inspect(*m, "events", "--from", "10", "--to", "5", ok=False)
    assert rng.returncode == 1 and "to: 5 is before from: 10" in rng.stderr
    unknown = inspect(*m, "bogus", ok=False)
    assert unknown.returncode == 2 and "unknown command 'bogus'" in unknown.stderr
    assert "usage: det-inspect" in inspect("--help").stdout


def test_tokens_and_login_failures(finished):
    c, _ = finished
    out = inspect("--master", c.url, "--token", c.token, "pools", token=False)
    assert "default" in out.stdout
    forged = inspect("--master", c.url, "--token", "t0k3n", "pools", ok=False, token=False)
    assert forged.returncode == 1 and "401" in forged.stderr
    assert "t0k3n" not in forged.stderr
    anonymous = inspect("--master", c.url, "pools", ok=False, token=False)
    assert anonymous.returncode == 1 and "401" in anonymous.stderr
    # admin's password is blank here: a login with it works.
    good = inspect("--master", c.url, "--user", "admin", "--password", "", "pools",
                   token=False)
    assert "default" in good.stdout
    bad = inspect("--master", c.url, "--user", "admin", "--password", "wrong-pw", "pools",
                  ok=False, token=False)
    assert bad.returncode == 1 and "logging in as admin failed" in bad.stderr
    assert "wrong-pw" not in bad.stderr
    down = inspect("--master", "http://127.0.0.1:9", "pools", ok=False)
    assert down.returncode == 1 and "cannot reach the master" in down.stderr


def test_metrics_endpoint_matches_the_cluster(finished):
    c, exp_id = finished
    # The checkpoint collector may still append after the experiment completes,
    # so the log position the metrics show lies between two reads around them.
    before = ij("--master", c.url, "events", "--limit", "1")["last_position"]
    text, s = metrics(c)
    after = ij("--master", c.url, "events", "--limit", "1")["last_position"]
    assert "# TYPE det_trials gauge" in text
    assert "# TYPE det_event_log_append_seconds histogram" in text
    assert "# TYPE det_provisioner_api_calls_total counter" in text
    trials = ij("--master", c.url, "trials")["trials"]
    exps = ij("--master", c.url, "experiments")["experiments"]
    agents = ij("--master", c.url, "agents")["agents"]
    for st in ("completed", "running", "pending"):
        assert s[("det_trials", (("state", st),))] == \
            sum(1 for t in trials if t["state"] == st)
    assert s[("det_experiments", (("state", "COMPLETED"),))] == \
        sum(1 for e in exps if e["state"] == "COMPLETED")
    assert s[("det_agents", (("pool", "default"), ("status", "connected")))] == len(agents)
    assert s[("det_slots_used", (("pool", "default"),))] == 0
    assert s[("det_slots_free", (("pool", "default"),))] == len(agents)
    assert s[("det_instances", (("pool", "default"), ("state", "running")))] == len(agents)
    assert s[("det_resource_pools", ())] == 1
    count = s[("det_event_log_append_seconds_count", ())]
    assert count > 0
    assert s[("det_event_log_append_seconds_bucket", (("le", "+Inf"),))] == count
    assert before <= s[("det_event_log_position", ())] <= after


def test_db_mode_after_the_master_stops_shows_the_same(finished):
    c, exp_id = finished
    m = ["--master", c.url]
    before = {k: ij(*m, k) for k in ("experiments", "trials", "checkpoints", "pools")}
    last = ij(*m, "events", "--limit", "1")["last_position"]
    pos = ij(*m, "events", "--type", "experiment_submitted")["events"][0]["position"]
    then_api = ij(*m, "state", "--at", str(pos))
    c.stop()
    d = ["--db", c.db]
    for k in ("experiments", "trials", "checkpoints"):
        assert ij(*d, k) == before[k], k
    # The agent may have been marked disconnected as the master stopped.
    keep = ("name", "provider", "max_instances", "instances", "slots")
    assert [{f: p[f] for f in keep} for p in ij(*d, "pools")["pools"]] == \
        [{f: p[f] for f in keep} for p in before["pools"]["pools"]]
    assert ij(*d, "events", "--limit", "1")["last_position"] >= last
    assert ij(*d, "state", "--at", str(pos)) == then_api
    rows = table(inspect(*d, "experiments").stdout)
    assert rows[1][2] == "COMPLETED"
    agents = ij(*d, "agents")["agents"]
    assert all(a["pool"] == "default" for a in agents)
    past = inspect(*d, "state", "--at", "99999999", ok=False)
    assert past.returncode == 1 and "past the end of the log" in past.stderr
    assert ij(*d, "events", "--type", "experiment_submitted")["events"][0]["position"] == pos
