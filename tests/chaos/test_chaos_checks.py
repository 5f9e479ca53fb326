"""The chaos run's log checks can fail: each rule against a small log that
breaks it and one that keeps it (no cluster needed)."""
from chaos_log import (allocations_and_terminations, instances_not_terminated, restarts,
                       runs_lost_with_agents)
from chaos_procs import AllocationWatch, Snapshot


def log(*events):
    return [{"position": i + 1, "stream_id": "", "type": t, "payload": p}
            for i, (t, p) in enumerate(events)]


AGENT = ("agent_connected", {"agent_id": "a1", "instance_id": "i-1"})
PLACED = ("trial_placed", {"trial_id": 7, "allocation_id": "7.1",
                           "assignments": [{"agent_id": "a1", "slots": [0]}]})
TERMINATE = ("instance_terminate_requested", {"instance_id": "i-1", "reason": "idle"})


def test_terminating_the_instance_of_an_agent_that_runs_a_trial_is_a_violation():
    bad = allocations_and_terminations(log(AGENT, PLACED, TERMINATE))
    assert len(bad) == 1 and "busy agent terminated" in bad[0], bad


def test_terminating_it_once_the_trial_exited_or_the_agent_was_lost_is_not():
    exited = ("trial_exited", {"trial_id": 7, "allocation_id": "7.1", "reason": "completed"})
    lost = ("agent_lost", {"agent_id": "a1", "reason": "reconnect_timeout"})
    assert allocations_and_terminations(log(AGENT, PLACED, exited, TERMINATE)) == []
    assert allocations_and_terminations(log(AGENT, PLACED, lost, TERMINATE)) == []


def test_a_second_allocation_of_a_trial_whose_first_has_not_ended_is_a_violation():
    second = ("trial_placed", {"trial_id": 7, "allocation_id": "7.2",
                               "assignments": [{"agent_id": "a2", "slots": [0]}]})
    bad = allocations_and_terminations(log(AGENT, PLACED, second))
    assert len(bad) == 1 and "two live allocations of trial 7" in bad[0], bad


def test_restarts_count_failed_exits_only():
    r = restarts(log(("trial_created", {"trial_id": 7}),
                     ("trial_exited", {"trial_id": 7, "allocation_id": "7.1", "reason": "agent_lost"}),
                     ("trial_restarted", {"trial_id": 7}),
                     ("trial_exited", {"trial_id": 7, "allocation_id": "7.2", "reason": "failed"}),
                     ("trial_restarted", {"trial_id": 7})))
    assert r[7]["failed"] == 1 and r[7]["restarted"] == 2


def test_an_instance_without_its_termination_is_reported():
    pending = ("instance_pending", {"instance_id": "i-1", "pool": "default"})
    gone = ("instance_terminated", {"instance_id": "i-1", "reason": "idle"})
    assert len(instances_not_terminated(log(pending))) == 1
    assert instances_not_terminated(log(pending, gone)) == []


def test_two_runs_of_a_trial_seen_alive_together_overlap():
    w = AllocationWatch()
    w.sample(Snapshot({}, [(None, 7, "7.1")], []), 0.0)
    w.sample(Snapshot({}, [(None, 7, "7.1"), (None, 7, "7.2")], []), 1.0)
    w.sample(Snapshot({}, [(None, 7, "7.1"), (None, 7, "7.2")], []), 13.0)
    w.sample(Snapshot({}, [(None, 8, "8.1")], []), 14.0)
    assert w.overlaps() == [(7, "7.1", "7.2", 12.0)]


def test_runs_ended_by_a_lost_agent_are_listed_with_their_agents():
    unlisted = ("trial_exited", {"trial_id": 7, "allocation_id": "7.1", "reason": "agent_lost"})
    second = ("trial_placed", {"trial_id": 7, "allocation_id": "7.2",
                               "assignments": [{"agent_id": "a2", "slots": [0]}]})
    lost = ("agent_lost", {"agent_id": "a2", "reason": "reconnect_timeout"})
    runs = runs_lost_with_agents(log(AGENT, PLACED, unlisted, second, lost))
    assert [(t, a, sorted(ags)) for _, t, a, ags in runs] == [
        (7, "7.1", ["a1"]), (7, "7.2", ["a2"])]
