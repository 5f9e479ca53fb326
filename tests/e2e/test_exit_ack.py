"""A trial's exit is never lost (issue #13, finding 9): the master is
SIGKILLed after the agent has sent a trial's exit, before the log holds it
(the append of trial_exited is held by a PostgreSQL trigger waiting on an
advisory lock the test holds) or right after it does. The agent keeps the
exit until the master acknowledges it and reports it to the next master:
the trial ends COMPLETED with its full step count, on its first run, never
agent_lost."""
import os
import subprocess

import pytest

from conftest import BIN, experiment_yaml, wait_for

LOCK = 4242
HOLD_EXITS = """
CREATE FUNCTION hold_trial_exits() RETURNS trigger AS $$
BEGIN
  IF NEW.type = 'trial_exited' THEN
    PERFORM pg_advisory_lock(%d);
    PERFORM pg_advisory_unlock(%d);
  END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER hold_trial_exits BEFORE INSERT ON events
  FOR EACH ROW EXECUTE FUNCTION hold_trial_exits();
""" % (LOCK, LOCK)
RELEASE_EXITS = "DROP TRIGGER hold_trial_exits ON events; DROP FUNCTION hold_trial_exits();"


def sql(c, query):
    return subprocess.check_output(["psql", c.db, "-qAtc", query], text=True).strip()


def waiters(c):
    """Backends waiting for the test's lock (the held append)."""
    return sql(c, "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = %d "
                  "AND NOT granted" % LOCK).split()


def exit_reasons(c):
    return sql(c, "SELECT payload->>'reason' FROM events WHERE type = 'trial_exited' "
                  "ORDER BY position").split()


def count(c, event_type):
    return int(sql(c, "SELECT count(*) FROM events WHERE type = '%s'" % event_type))


class held_lock:
    """A psql session holding advisory lock LOCK until closed."""

    def __init__(self, c):
        self.c = c
        self.proc = subprocess.Popen(["psql", c.db, "-qAt"], stdin=subprocess.PIPE,
                                     stdout=subprocess.DEVNULL, text=True)
        self.proc.stdin.write("SELECT pg_advisory_lock(%d);\n" % LOCK)
        self.proc.stdin.flush()
        wait_for("the test's advisory lock", lambda: sql(
            c, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = %d "
               "AND granted" % LOCK) == "1", timeout=30)

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)


@pytest.mark.parametrize("when", ["before_the_log_holds_it", "after_the_log_holds_it"])
def test_a_trial_exit_survives_a_master_killed_around_its_append(cluster_factory, when):
    c = cluster_factory(reconnect_wait="60s", idle="60s", max_instances=1)
    lock = None
    if when == "before_the_log_holds_it":
        sql(c, HOLD_EXITS)
        lock = held_lock(c)
    try:
        status, body = c.submit(experiment_yaml(max_length=50, batch_delay=0.02))
        assert status == 200, body
        exp_id = int(body["experiment"]["id"])
        if lock:
            # The agent sent the exit; the master's append of it waits.
            held = wait_for("the master's append of trial_exited to wait", lambda: waiters(c),
                            timeout=120)
            c.kill_master()
            # The dead master's transaction never commits.
            sql(c, "SELECT pg_terminate_backend(%s)" % held[0])
            wait_for("the held append to end", lambda: not waiters(c), timeout=30)
            sql(c, RELEASE_EXITS)
            lock.close()
            assert exit_reasons(c) == [], "the held exit was written"
        else:
            wait_for("the log to hold the exit", lambda: exit_reasons(c), timeout=120)
            c.kill_master()
        agent_ids = list(c.agent_pids())
        c.start()
        e = wait_for("the experiment to end",
                     lambda: c.experiment(exp_id)["state"] in
                     ("STATE_COMPLETED", "STATE_ERROR", "STATE_CANCELED") and c.experiment(exp_id),
                     timeout=120)
    finally:
        if lock:
            lock.close()
    assert e["state"] == "STATE_COMPLETED", e
    [trial] = c.trials(exp_id)
    assert trial["state"] == "STATE_COMPLETED", trial
    assert trial["totalBatchesProcessed"] == 50, trial
    assert trial["restarts"] == 0, trial
    # Applied once, as it really ended, on the trial's first and only run.
    assert exit_reasons(c) == ["completed"], exit_reasons(c)
    assert count(c, "agent_lost") == 0
    assert count(c, "trial_placed") == 1
    if when == "before_the_log_holds_it":
        # The next master learnt it from the agent's reconnect report.
        assert "reports the exit of 1.1 (code 0) it still holds" in c.master_log()
    # The agent forgot the exit only when the master acknowledged it.
    wait_for("the agent to hear the acknowledgement",
             lambda: any("the master recorded the exit of allocation" in c.agent_log(a)
                         for a in agent_ids), timeout=30)
    out = subprocess.run([os.path.join(BIN, "det-replay"), "--db", c.db, "--check"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
