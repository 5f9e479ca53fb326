"""The chaos suite (issue 13): the master SIGKILLed CHAOS_KILLS times at
random moments, often right after a command was acknowledged, while a mixed
workload runs on the local provider and agents are SIGKILLed and
SIGSTOPped; then what must hold after any number of crashes is checked
against the REST API, the event log, det-replay --check and /proc.
Reproduce a run with CHAOS_SEED (printed in the header and the summary)."""
import json
import os
import random
import re
import subprocess
import time

import pytest

import conftest
from chaos_log import (allocations_and_terminations, counts, instances_not_terminated,
                       read_events, restarts, runs_lost_with_agents, show,
                       user_state_changes)
from chaos_procs import scan
from chaos_workload import ChaosFailure, ChaosRun
from harness import BIN

HEARTBEAT = "agent_heartbeat_interval: 1s\nagent_missed_heartbeats: 2\n"
# How long a stale run may still be seen beside its trial's next run: it
# learns that its allocation is over at its next call to the master (its
# token is refused), which it retries while the master is down.
STALE_GRACE_S = 10.0
# Left out of the evidence printed on failure.
NOISE = ("trial_metrics_reported", "experiment_searcher_updated")


def check_commands(run, events):
    """Every acknowledged command took effect, in the log and the API."""
    bad = []
    submitted = {e["payload"]["experiment_id"] for e in events
                 if e["type"] == "experiment_submitted"}
    for e in run.experiments.values():
        if e.id not in submitted:
            bad.append("experiment %d: submit acknowledged, no experiment_submitted" % e.id)
        changes = user_state_changes(events, e.id)
        for verb, state, reason in (("pause", "PAUSED", "paused by user"),
                                    ("activate", "ACTIVE", "activated by user")):
            acked = e.acked.count(verb)
            logged = changes.count((state, reason))
            if not acked <= logged <= acked + e.unsure.count(verb):
                bad.append("experiment %d: %d %s acknowledged (%d unanswered), %d in the log: %s"
                           % (e.id, acked, verb, e.unsure.count(verb), logged, changes))
        if e.killed:
            stopped = any(s == "STOPPING_KILLED" for s, _ in changes)
            if not (e.state == "STATE_CANCELED" and stopped) and not (
                    e.state == "STATE_COMPLETED" and not stopped):
                bad.append("experiment %d: kill acknowledged, ended %s: %s"
                           % (e.id, e.state, changes))
    return bad


def check_trials(run, c, events):
    """Every trial ended in the right state with its full step count, and
    only the failures the workload injected count as restarts."""
    bad = []
    per_trial = restarts(events)
    ntrials = 0
    for e in run.experiments.values():
        trials = c.trials(e.id)
        ntrials += len(trials)
        want = "STATE_CANCELED" if e.killed and e.state != "STATE_COMPLETED" else "STATE_COMPLETED"
        if e.state != want:
            bad.append("experiment %d (%s) ended %s, expected %s" % (e.id, e.kind, e.state, want))
        if e.state == "STATE_COMPLETED" and len(trials) != e.trials:
            bad.append("experiment %d (%s) completed with %d trials, expected %d"
                       % (e.id, e.kind, len(trials), e.trials))
        for t in trials:
            ok_states = ("STATE_COMPLETED", "STATE_CANCELED") if e.killed else ("STATE_COMPLETED",)
            if t["state"] not in ok_states:
                bad.append("trial %d of experiment %d (%s) ended %s"
                           % (t["id"], e.id, e.kind, t["state"]))
            if t["state"] == "STATE_COMPLETED" and t["totalBatchesProcessed"] != e.length:
                bad.append("trial %d of experiment %d completed with %d of %d batches"
                           % (t["id"], e.id, t["totalBatchesProcessed"], e.length))
            r = per_trial.get(t["id"], {"failed": 0, "restarted": 0, "exits": []})
            allowed = 1 if e.kind == "failing" else 0
            if t["restarts"] != r["failed"] or r["failed"] > allowed:
                bad.append("trial %d of experiment %d (%s): %d restarts (API), %d failed exits "
                           "in the log, at most %d injected; exits %s"
                           % (t["id"], e.id, e.kind, t["restarts"], r["failed"], allowed,
                              r["exits"]))
    return bad, ntrials


def test_the_master_killed_at_random_moments_loses_no_acknowledged_command_and_no_trial(
        cluster_factory, chaos_seed, chaos_kills):
    started = time.monotonic()
    notes = []

    def note(text):
        notes.append(text)

    def fail(why):
        tail = "\n".join(notes[-60:])
        pytest.fail("CHAOS_SEED=%d CHAOS_KILLS=%d: %s\n-- the run's last steps:\n%s"
                    % (chaos_seed, chaos_kills, why, tail), pytrace=False)

    c = cluster_factory(reconnect_wait="5s", idle="3s", max_instances=3,
                        extra_config=HEARTBEAT)
    run = ChaosRun(c, random.Random(chaos_seed), chaos_kills, note)
    try:
        run.run()
        run.drain(timeout=240)
    except (ChaosFailure, pytest.fail.Exception) as e:
        # The harness fails with pytest.fail (det-master exited, /info
        # timed out): the seed and the run's steps go with it too.
        fail(str(e))
    finally:
        run.resume_all()

    events = read_events(c.db)
    violations = check_commands(run, events)
    trial_bad, ntrials = check_trials(run, c, events)
    violations += trial_bad
    violations += allocations_and_terminations(events)
    # A master crash must not cost a run either: a run may end with its
    # agent lost only when the chaos SIGKILLed or SIGSTOPped that agent
    # (a lost exit report shows up here, as a run of an agent left alone).
    lost = runs_lost_with_agents(events)
    violations += ["trial %d: run %s ended with its agent(s) %s lost, which the run never "
                   "killed or stopped: %s" % (trial, alloc, sorted(agents), show(ev))
                   for ev, trial, alloc, agents in lost if not agents & run.hurt_agents]
    overlaps = run.watch.overlaps()
    violations += ["trial %d: allocations %s and %s both had live processes for %.1f s"
                   % o for o in overlaps if o[3] > STALE_GRACE_S]
    left = scan(c.url)
    violations += ["process left after the pool idled: pid %d %s" % (p.pid, " ".join(p.argv))
                   for p in list(left.agents.values()) + left.others + [t[0] for t in left.trials]]
    violations += ["instance never terminated: " + s for s in instances_not_terminated(events)]
    replay = subprocess.run([os.path.join(BIN, "det-replay"), "--db", c.db, "--check", "--json"],
                            capture_output=True, text=True, timeout=300)
    if replay.returncode != 0:
        violations.append("det-replay --check failed: " + (replay.stdout + replay.stderr)[-3000:])

    per_type = counts(events)
    figures = {"suite": "chaos", "seed": chaos_seed}
    figures.update(run.figures())
    figures.update({
        "trials": ntrials,
        "trial_restarts": per_type.get("trial_restarted", 0),
        "failed_exits": sum(r["failed"] for r in restarts(events).values()),
        "agent_lost": per_type.get("agent_lost", 0),
        "runs_lost_with_agents": len(lost),
        "instances_launched": per_type.get("instance_pending", 0),
        "events": len(events),
        "max_stale_overlap_s": round(max([o[3] for o in overlaps] or [0]), 1),
        "violations": len(violations),
        "wall_s": round(time.monotonic() - started),
    })
    conftest.FIGURES.update(figures)
    print(json.dumps(figures, sort_keys=True))
    if violations:
        dump = os.path.join(c.tmp, "events.jsonl")
        with open(dump, "w") as f:
            for ev in events:
                f.write(json.dumps(ev) + "\n")
        named = {int(t) for t in re.findall(r"trial (\d+)", "\n".join(violations))}
        named_exps = {int(x) for x in re.findall(r"experiment (\d+)", "\n".join(violations))}
        evidence = [show(ev) for ev in events if ev["type"] not in NOISE and (
            ev["payload"].get("trial_id") in named
            or (ev["payload"].get("experiment_id") in named_exps
                and not ev["type"].startswith("trial_")))]
        fail("%d violation(s):\n%s\n-- their events (every event: %s, master log: %s):\n%s"
             % (len(violations), "\n".join(violations[:40]), dump, c.log_path,
                "\n".join(evidence[-80:])))
