"""Fail-stop: when an append fails, the master's memory is ahead of its log,
so it must exit non-zero at once (a supervisor restarts it and replay heals)
instead of staying up and answering 500 to everything."""
import json
import subprocess
import urllib.error
import urllib.request

from conftest import wait_for

REFUSE_APPENDS = """
CREATE FUNCTION refuse_appends() RETURNS trigger AS $$
BEGIN RAISE EXCEPTION 'appends refused by the test'; END $$ LANGUAGE plpgsql;
CREATE TRIGGER refuse_appends BEFORE INSERT ON events
  FOR EACH ROW EXECUTE FUNCTION refuse_appends();
"""
ALLOW_APPENDS = "DROP TRIGGER refuse_appends ON events; DROP FUNCTION refuse_appends();"


def login(c, user):
    req = urllib.request.Request(
        c.url + "/api/v1/auth/login",
        data=json.dumps({"username": user, "password": "", "isHashed": False}).encode(),
        method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (urllib.error.URLError, ConnectionError):
        return None


def test_a_failed_append_stops_the_master_and_a_restart_heals(cluster_factory):
    c = cluster_factory()
    assert login(c, "determined") == 200
    subprocess.check_call(["psql", c.db, "-qc", REFUSE_APPENDS])
    # A login appends session_started: the store refuses it.
    status = login(c, "determined")
    assert status != 200, "a login was answered although its append failed"
    code = wait_for("det-master to exit after the failed append",
                    lambda: c.proc.poll() is not None and (c.proc.returncode,), timeout=20)[0]
    assert code != 0, "det-master exited 0 after a failed append"
    log = c.master_log()
    assert "appends refused by the test" in log, log[-2000:]
    # Replay heals: with the store writable again the master starts and
    # serves logins.
    subprocess.check_call(["psql", c.db, "-qc", ALLOW_APPENDS])
    c.start()
    assert login(c, "determined") == 200
