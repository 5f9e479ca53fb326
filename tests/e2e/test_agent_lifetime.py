"""How long things live: missed heartbeats (a silent agent), pause and
activate. (A SIGKILLed agent's trial processes: test_cluster.py.) Real det-master, local
provider, det-agent and the sample model; every wait is bounded."""
import os
import re
import signal
import time

from conftest import experiment_yaml, group_alive, wait_for
from test_cluster import ended, replay_ok, trial_logs

HEARTBEAT = "agent_heartbeat_interval: 1s\nagent_missed_heartbeats: 2\n"


def resumed_steps(logs):
    return [int(m) for m in re.findall(r"resuming at step (\d+)", logs)]


def connects(c, agent_id):
    return c.master_log().count("agent %s connected" % agent_id)


def test_a_silent_agent_is_disconnected_after_missed_heartbeats_and_its_stale_trial_killed_when_it_returns(cluster_factory):
    # One instance at most: the trial can only come back on the same agent.
    c = cluster_factory(reconnect_wait="2s", idle="60s", max_instances=1,
                        extra_config=HEARTBEAT)
    status, body = c.submit(experiment_yaml(max_length=300, batch_delay=0.05,
                                            checkpoint_every=10))
    assert status == 200, body
    exp_id = int(body["experiment"]["id"])
    wait_for("a checkpoint at step >= 20",
             lambda: any((t.get("bestCheckpoint") or {}).get("totalBatches", 0) >= 20
                         for t in c.trials(exp_id)), timeout=90)
    (agent_id, pid), = c.agent_pids().items()
    (old_alloc, old_group), = c.trial_groups(agent_id).items()
    assert group_alive(old_group)

    # Stopped: its socket stays open, it says nothing.
    os.kill(pid, signal.SIGSTOP)
    stopped = time.monotonic()
    try:
        wait_for("the master to notice the missed heartbeats",
                 lambda: "agent %s disconnected (missed 2 heartbeats" % agent_id
                 in c.master_log(), timeout=15)
        noticed = time.monotonic() - stopped
        # 2 missed 1 s intervals, checked once a second: within ~3 s, not
        # the 60 s of the socket's idle timer.
        print("missed heartbeats noticed after %.1f s" % noticed)
        assert noticed < 8, noticed
        # agent_reconnect_wait (2 s) later the run is given up: the trial
        # is queued again, without counting a restart.
        wait_for("the trial to be queued again",
                 lambda: c.trials(exp_id)[0]["state"] == "STATE_QUEUED", timeout=30)
        assert c.trials(exp_id)[0]["restarts"] == 0
        assert connects(c, agent_id) == 1
    finally:
        os.kill(pid, signal.SIGCONT)
    wait_for("the agent to reconnect", lambda: connects(c, agent_id) == 2, timeout=30)
    # Its hello listed the stale allocation; the master has it killed and
    # starts a new run: never two at once for long.
    wait_for("the stale trial process group to be gone",
             lambda: not group_alive(old_group), timeout=20)
    # The master ordered the kill, or the stale run ended on its own first:
    # its allocation is over, so its token is refused and the trial exits
    # (then the agent no longer lists it, or no longer knows it).
    assert re.search(r"kill(ing| for unknown) allocation %s\b|allocation %s exited"
                     % (re.escape(old_alloc), re.escape(old_alloc)),
                     c.agent_log(agent_id)), c.agent_log(agent_id)
    wait_for("a new run on the agent", lambda: len(c.trial_groups(agent_id)) == 2,
             timeout=30)

    e = ended(c, exp_id, timeout=120)
    assert e["state"] == "STATE_COMPLETED"
    trial = c.trials(exp_id)[0]
    assert trial["restarts"] == 0
    assert trial["totalBatchesProcessed"] == 300
    steps = resumed_steps(trial_logs(c, trial["id"]))
    assert len(steps) == 1 and steps[0] >= 20, steps
    report = replay_ok(c)
    assert report["counts_by_type"]["agent_disconnected"] >= 1
    assert report["counts_by_type"]["trial_created"] == 1


def test_pause_checkpoints_and_frees_the_slot_and_activate_resumes_from_that_checkpoint(cluster_factory):
    c = cluster_factory(idle="60s", max_instances=1)
    # checkpoint_every is large: the only checkpoint before the pause is
    # the one the pause itself asks for.
    status, body = c.submit(experiment_yaml(max_length=300, batch_delay=0.05,
                                            checkpoint_every=1000))
    assert status == 200, body
    exp_id = int(body["experiment"]["id"])
    wait_for("the trial to train a little",
             lambda: any(t["state"] == "STATE_RUNNING" and t["totalBatchesProcessed"] >= 10
                         for t in c.trials(exp_id)), timeout=90)
    (agent_id, _), = c.agent_pids().items()
    (alloc, group), = c.trial_groups(agent_id).items()
    status, body = c.post("/api/v1/experiments/%d/pause" % exp_id)
    assert status == 200, body
    wait_for("the experiment to be paused with its trial stopped",
             lambda: c.experiment(exp_id)["state"] == "STATE_PAUSED"
             and not group_alive(group)
             and c.trials(exp_id)[0]["state"] not in ("STATE_RUNNING", "STATE_PULLING"),
             timeout=60)
    trial = c.trials(exp_id)[0]
    paused_at = trial["bestCheckpoint"]["totalBatches"]
    assert 10 <= paused_at < 300
    assert "allocation %s exited with 0" % alloc in c.agent_log(agent_id)
    logs = trial_logs(c, trial["id"])
    assert "preempted at step %d" % paused_at in logs, logs[-2000:]
    # No slot is held: with one one-slot agent at most, another experiment
    # runs to completion while this one stays paused.
    status, body = c.submit(experiment_yaml(max_length=10, batch_delay=0.01))
    assert status == 200, body
    other = int(body["experiment"]["id"])
    assert ended(c, other, timeout=90)["state"] == "STATE_COMPLETED"
    assert c.experiment(exp_id)["state"] == "STATE_PAUSED"
    assert c.trials(exp_id)[0]["totalBatchesProcessed"] <= paused_at

    status, body = c.post("/api/v1/experiments/%d/activate" % exp_id)
    assert status == 200, body
    e = ended(c, exp_id, timeout=120)
    assert e["state"] == "STATE_COMPLETED"
    trial = c.trials(exp_id)[0]
    assert trial["restarts"] == 0
    assert trial["totalBatchesProcessed"] == 300
    assert resumed_steps(trial_logs(c, trial["id"])) == [paused_at]
