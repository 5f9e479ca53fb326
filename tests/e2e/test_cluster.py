"""The whole system on one machine: det-master, the local provider starting
det-agent processes, and the sample model, against a private PostgreSQL."""
import json
import os
import signal
import subprocess
import time

import pytest

from conftest import BIN, ROOT, experiment_yaml, group_alive, wait_for


def ended(c, exp_id, timeout=120):
    return wait_for("experiment %d to end" % exp_id,
                    lambda: c.experiment(exp_id)["state"] in
                    ("STATE_COMPLETED", "STATE_ERROR", "STATE_CANCELED") and
                    c.experiment(exp_id), timeout=timeout)


def trial_logs(c, trial_id):
    text = c.get_text("/api/v1/trials/%d/logs" % trial_id)
    lines = [json.loads(l) for l in text.splitlines() if l.strip()]
    return "".join(l["result"]["message"] for l in lines if "result" in l)


def replay_ok(c):
    out = subprocess.run([os.path.join(BIN, "det-replay"), "--db", c.db,
                          "--check", "--json"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    return json.loads(out.stdout)


def test_sample_experiment_completes_and_the_pool_scales_up_and_back_to_zero(cluster_factory):
    c = cluster_factory(idle="3s", max_instances=2)
    status, body = c.submit(experiment_yaml(max_length=40, trials=3))
    assert status == 200, body
    exp_id = int(body["experiment"]["id"])
    wait_for("agents to be launched", lambda: len(c.agent_pids()) >= 1, timeout=60)
    e = ended(c, exp_id)
    assert e["state"] == "STATE_COMPLETED"
    trials = c.trials(exp_id)
    assert len(trials) == 3
    for t in trials:
        assert t["state"] == "STATE_COMPLETED"
        assert t["totalBatchesProcessed"] == 40
        assert t["bestCheckpoint"]["totalBatches"] == 40
    # Idle past max_idle_agent_period: every local instance is stopped.
    wait_for("the pool to scale back to zero", lambda: not c.agent_pids(), timeout=60)
    report = wait_for("the terminations in the log",
                      lambda: (lambda r: r if r["counts_by_type"].get("instance_terminated", 0)
                               >= r["counts_by_type"]["instance_launch_requested"] else None)(replay_ok(c)),
                      timeout=30)
    assert report["counts_by_type"]["instance_launch_requested"] >= 1


def test_a_trial_resumes_from_its_checkpoint_after_its_agent_is_killed(cluster_factory):
    c = cluster_factory(reconnect_wait="2s", idle="30s", max_instances=2)
    status, body = c.submit(experiment_yaml(max_length=200, batch_delay=0.05,
                                            checkpoint_every=10))
    assert status == 200, body
    exp_id = int(body["experiment"]["id"])
    t = wait_for("a checkpoint at step >= 30",
                 lambda: next((t for t in c.trials(exp_id)
                               if (t.get("bestCheckpoint") or {}).get("totalBatches", 0) >= 30),
                              None), timeout=90)
    pids = c.agent_pids()
    assert len(pids) == 1
    (agent_id, pid), = pids.items()
    (_, group), = c.trial_groups(agent_id).items()
    assert group_alive(group)
    os.kill(pid, signal.SIGKILL)
    killed = time.monotonic()
    # The trial never outlives its agent: its supervisor notices the agent
    # is gone (200 ms checks) and kills the whole process group.
    wait_for("the orphaned trial process group to die",
             lambda: not group_alive(group), timeout=5)
    print("orphaned trial group gone %.2f s after the agent's SIGKILL"
          % (time.monotonic() - killed))
    e = ended(c, exp_id, timeout=180)
    assert e["state"] == "STATE_COMPLETED"
    trial = c.trials(exp_id)[0]
    assert trial["restarts"] == 0  # a lost agent is not the trial's failure
    logs = trial_logs(c, trial["id"])
    resumed = [l for l in logs.splitlines() if "resuming at step" in l]
    assert resumed, logs[-2000:]
    step = int(resumed[0].split("resuming at step")[1].split(",")[0].strip())
    assert step >= t["bestCheckpoint"]["totalBatches"]
    replay_ok(c)


def test_a_failing_trial_is_restarted_up_to_max_restarts_then_errors(cluster_factory):
    c = cluster_factory(idle="30s")
    status, body = c.submit(experiment_yaml(max_length=50, max_restarts=1,
                                            extra_hparams="  fail_at_step: 3"))
    assert status == 200, body
    exp_id = int(body["experiment"]["id"])
    e = ended(c, exp_id)
    assert e["state"] == "STATE_ERROR"
    trial = c.trials(exp_id)[0]
    assert trial["state"] == "STATE_ERROR"
    # Two runs: the first failure restarted it, the second errored it
    # (upstream counts the restart, not the failure that ends the trial).
    assert trial["restarts"] == 1
    assert "failed 2 times" in trial.get("runnerState", ""), trial
    assert "last exit code 1" in trial.get("runnerState", ""), trial
    assert "failing at step 3 as asked" in trial_logs(c, trial["id"])


def snapshot_positions(c):
    out = subprocess.check_output(["psql", c.db, "-qAtc",
                                   "SELECT position FROM snapshots ORDER BY position"], text=True)
    return [int(p) for p in out.split()]


def test_a_killed_master_replays_and_its_agents_keep_their_trials(cluster_factory):
    # A snapshot every 10 events: the restart below starts from one, taken
    # on the read model's snapshot replica and saved over its own
    # connection while the trial reported.
    c = cluster_factory(reconnect_wait="20s", idle="30s", env={"DET_SNAPSHOT_EVERY": "10"})
    status, body = c.submit(experiment_yaml(max_length=150, batch_delay=0.05))
    assert status == 200, body
    exp_id = int(body["experiment"]["id"])
    wait_for("the trial to run",
             lambda: any(t["state"] == "STATE_RUNNING" and t["totalBatchesProcessed"] >= 10
                         for t in c.trials(exp_id)), timeout=90)
    taken = wait_for("a snapshot in the database", lambda: snapshot_positions(c), timeout=30)
    assert len(taken) <= 3, taken  # older ones pruned
    agents_before = dict(c.agent_pids())
    c.kill_master()
    c.start()
    recovered = [l for l in c.master_log().splitlines() if "recovered state at position" in l]
    assert len(recovered) == 2, recovered
    from_snapshot = int(recovered[-1].split("(snapshot ")[1].split(",")[0])
    assert from_snapshot >= taken[-1] > 0, (recovered[-1], taken)
    verified = subprocess.run([os.path.join(BIN, "det-replay"), "--db", c.db,
                               "--verify-snapshots"], capture_output=True, text=True, timeout=120)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    e = ended(c, exp_id, timeout=180)
    assert e["state"] == "STATE_COMPLETED"
    trial = c.trials(exp_id)[0]
    assert trial["restarts"] == 0
    # Re-attached, not restarted: one run, one launch, the same agent.
    logs = trial_logs(c, trial["id"])
    assert "resuming at step" not in logs, logs[-2000:]
    report = replay_ok(c)
    assert report["counts_by_type"]["trial_placed"] == 1
    assert report["counts_by_type"]["trial_created"] == 1
    assert report["counts_by_type"]["instance_launch_requested"] == 1
    # The agent processes from before the crash are the ones that finished
    # the trial: none was stopped and started again.
    assert agents_before, "no agent was running before the master was killed"
    agents_after = c.agent_pids()
    assert all(agents_after.get(name) == pid for name, pid in agents_before.items()), \
        (agents_before, agents_after)


@pytest.mark.parametrize("bad, names", [
    ("name: x\nentrypoint: python3 train.py\nsearcher: {name: single, metric: l, max_length: 5}\nhyperparamters: {}\n", "hyperparamters"),
    ("name: x\nentrypoint: python3 train.py\nmax_restarts: many\nsearcher: {name: single, metric: l, max_length: 5}\n", "max_restarts"),
    ("name: x\nsearcher: {name: single, metric: l, max_length: 5}\n", "entrypoint"),
])
def test_bad_experiment_configs_are_refused_naming_the_field_and_write_nothing(cluster_factory, bad, names):
    c = cluster_factory()
    before = replay_ok(c)["last_position"]
    status, body = c.submit(bad)
    assert status == 400, body
    assert names in body["error"]["error"], body
    assert replay_ok(c)["last_position"] == before


def test_a_trial_larger_than_the_pool_can_ever_hold_is_refused_at_submission(cluster_factory):
    c = cluster_factory(max_instances=2)
    before = replay_ok(c)["last_position"]
    status, body = c.submit(experiment_yaml(slots=4))
    assert status == 400, body
    msg = body["error"]["error"]
    assert "resources.slots_per_trial" in msg and "never fit" in msg, body
    assert replay_ok(c)["last_position"] == before
