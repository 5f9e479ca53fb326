"""The job queue with the real `det` CLI 0.38.1: `det job list`, `det job
update`, `det job update-batch`, `det experiment set priority / weight /
max-slots` and `det experiment cancel` and `det experiment delete`. The scheduler honours what they change: a job moved ahead runs
first, a max-slots limit holds trials back until it is raised; the changes
are events and survive a master restart."""
import json
import os

from conftest import experiment_yaml, wait_for
from test_cli import det, http, ok


def json_of(out):
    start = min(i for i in (out.find("["), out.find("{")) if i >= 0)
    return json.JSONDecoder().raw_decode(out[start:])[0]


def jobs(c):
    """det job list --json: the jobs of GET /api/v1/job-queues-v2, each
    the "full" job the CLI takes out of the answer."""
    return json_of(ok(c, "job", "list", "--json"))["jobs"]


def running(c, exp_id):
    return [t for t in c.trials(exp_id) if t["state"] == "STATE_RUNNING"]


def test_priority_changes_reorder_the_queue_and_the_scheduler_follows(cluster_factory,
                                                                    tmp_path):
    c = cluster_factory(max_instances=1, idle="10m")
    c.home = str(tmp_path / "home")
    os.makedirs(c.home)
    long_run = experiment_yaml(max_length=100000, batch_delay=0.05)
    ids = []
    for _ in range(3):
        status, body = c.submit(long_run)
        assert status == 200, body
        ids.append(int(body["experiment"]["id"]))
    first, second, third = ids
    wait_for("the first experiment to run", lambda: running(c, first), timeout=90)
    queue = jobs(c)
    assert [j["jobId"] for j in queue] == ["exp-%d" % i for i in ids], queue
    assert [j["priority"] for j in queue] == [42, 42, 42]

    out = ok(c, "job", "update", "exp-%d" % third, "--priority", "10")
    # The experiment's config says what the queue does.
    assert c.get("/api/v1/experiments/%d" % third)["config"]["resources"]["priority"] == 10
    queue = jobs(c)
    assert [j["jobId"] for j in queue][:2] == ["exp-%d" % third, "exp-%d" % first], queue
    ok(c, "experiment", "set", "priority", str(second), "35")
    assert c.get("/api/v1/experiments/%d" % second)["config"]["resources"]["priority"] == 35
    ok(c, "job", "update-batch", "exp-%d.priority=30" % second, "exp-%d.priority=50" % first)
    by_id = {j["jobId"]: j["priority"] for j in jobs(c)}
    assert by_id == {"exp-%d" % first: 50, "exp-%d" % second: 30, "exp-%d" % third: 10}
    # Bad updates are refused naming what is wrong; nothing changes.
    rc, out = det(c, "job", "update", "exp-999", "--priority", "5")
    assert rc != 0 and "999" in out, out
    rc, out = det(c, "experiment", "set", "priority", str(first), "500")
    assert rc != 0 and "priority" in out, out
    status, body = http(c, "POST", "/api/v1/job-queues",
                        {"updates": [{"jobId": "exp-%d" % first, "aheadOf": "exp-1"}]},
                        token=c.token)
    assert status == 400 and "aheadOf" in body["error"]["error"], body

    # The change is in the log: a restarted master has the same queue, and
    # when the running experiment ends, the one moved ahead runs next.
    c.restart()
    assert {j["jobId"]: j["priority"] for j in jobs(c)} == by_id
    ok(c, "experiment", "kill", str(first))
    wait_for("the experiment moved ahead to run", lambda: running(c, third), timeout=90)
    assert not running(c, second)
    # det experiment cancel: the queued one ends at once, the running one
    # checkpoints and stops (a cancel, not a kill); both end CANCELED.
    ok(c, "experiment", "cancel", str(second))
    ok(c, "experiment", "cancel", str(third))
    for exp_id in (second, third):
        wait_for("experiment %d to end" % exp_id,
                 lambda: c.experiment(exp_id)["state"] == "STATE_CANCELED", timeout=90)
    assert jobs(c) == []
    # det experiment delete: only an ended one; it leaves every list.
    ok(c, "experiment", "delete", str(second), "--yes")
    # DELETING until the collector has deleted its files, then gone.
    wait_for("experiment %d to leave" % second, lambda: http(
        c, "GET", "/api/v1/experiments/%d" % second, token=c.token)[0] == 404, timeout=30)
    listed = ok(c, "experiment", "list", "--all")
    ids = [l.split("|")[0].strip() for l in listed.splitlines()[2:]]
    assert str(second) not in ids and str(third) in ids, listed
    status, body = c.submit(long_run)
    assert int(body["experiment"]["id"]) == third + 1  # ids are never reused
    rc, out = det(c, "experiment", "delete", str(third + 1), "--yes")
    assert rc != 0 and "only an ended experiment" in out, out
    ok(c, "experiment", "kill", str(third + 1))


def test_max_slots_holds_trials_back_until_raised(cluster_factory, tmp_path):
    c = cluster_factory(max_instances=2, idle="10m")
    c.home = str(tmp_path / "home")
    os.makedirs(c.home)
    cfg = experiment_yaml(max_length=100000, batch_delay=0.05, trials=2).replace(
        "resources:\n", "resources:\n  max_slots: 1\n")
    status, body = c.submit(cfg)
    assert status == 200, body
    exp_id = int(body["experiment"]["id"])
    wait_for("one trial to run", lambda: running(c, exp_id), timeout=90)
    [job] = jobs(c)
    assert job["allocatedSlots"] == 1, job
    # The second trial waits although the pool may launch a second agent.
    assert len(c.agent_pids()) == 1
    assert len(running(c, exp_id)) == 1

    out = ok(c, "experiment", "set", "max-slots", str(exp_id), "2")
    assert "max_slots" in out, out
    wait_for("both trials to run", lambda: len(running(c, exp_id)) == 2, timeout=90)
    ok(c, "experiment", "set", "weight", str(exp_id), "2.5")
    assert jobs(c)[0]["weight"] == 2.5
    ok(c, "experiment", "kill", str(exp_id))

    # A command is a job too: listed with its type, its priority set with
    # det job update.
    cid = ok(c, "command", "run", "-d", "sleep", "300").strip().splitlines()[-1].strip()
    wait_for("the command in the queue", lambda: any(j["jobId"] == cid for j in jobs(c)),
             timeout=30)
    [cmd] = [j for j in jobs(c) if j["jobId"] == cid]
    assert cmd["type"] == "TYPE_COMMAND" and cmd["isPreemptible"] is False, cmd
    ok(c, "job", "update", cid, "--priority", "7")
    assert [j["priority"] for j in jobs(c) if j["jobId"] == cid] == [7]
    ok(c, "command", "kill", cid)
    wait_for("the killed command to leave the queue",
             lambda: all(j["jobId"] != cid for j in jobs(c)), timeout=60)
