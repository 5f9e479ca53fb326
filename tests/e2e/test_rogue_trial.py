"""Finding 3 written as the attack: a non-admin's trial looks for the agent
token, the master's cloud keys and the database password in its environment,
and uses its own session token to change the admin's password, create a
user, read the event log and list users. It finds nothing and every call is
refused; and once its allocation has ended its token opens nothing at all."""
import os
import sys

from conftest import ROOT, Cluster, experiment_yaml, wait_for
from test_cli import http, login
from test_cluster import trial_logs

sys.path.insert(0, os.path.join(ROOT, "scripts"))
import submit  # noqa: E402  scripts/submit.py: model_files()

ROGUE = os.path.join(ROOT, "tests", "e2e", "data", "rogue_trial")


def test_a_trial_finds_no_secret_and_its_token_reaches_no_admin_route(pg_server, tmp_path):
    secret_env = {"AWS_ACCESS_KEY_ID": "AKIA-master-secret", "AWS_SECRET_ACCESS_KEY":
                  "master-secret-key", "PGPASSWORD": "master-secret-db", "DET_SESSION_SECRET":
                  "master-secret-session-" + "x" * 32}
    c = Cluster(pg_server, str(tmp_path), "e2e_rogue_trial", max_instances=1,
                agent_token="agent-token-master-secret", env=secret_env)
    try:
        status, token = login(c, "determined")
        assert status == 200
        status, body = http(c, "POST", "/api/v1/experiments", {
            "config": experiment_yaml(max_length=10, max_restarts=0),
            "modelDefinition": submit.model_files(ROGUE), "activate": True}, token=token)
        assert status == 200, body
        exp_id = body["experiment"]["id"]
        trial_id = [None]

        def done():
            trials = c.trials(exp_id)
            if not trials:
                return False
            trial_id[0] = trials[0]["id"]
            return "ATTACK done" in trial_logs(c, trial_id[0])
        wait_for("the rogue trial to finish its attack", done, timeout=120)
        text = trial_logs(c, trial_id[0])
        lines = [l[l.index("ATTACK"):] for l in text.splitlines() if "ATTACK" in l]
        assert lines, text
        found = dict(l.split(" ", 2)[1:] for l in lines if len(l.split(" ", 2)) == 3)
        for name in ("DET_AGENT_TOKEN", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                     "PGPASSWORD", "DET_SESSION_SECRET"):
            assert "env %s absent" % name in "\n".join(lines), lines
        assert found["leaked"] == "[]", lines
        assert found["change-admin-password"] == "403", lines
        assert found["create-user"] == "403", lines
        assert found["read-event-log"] == "403", lines
        assert found["list-users"] == "403", lines
        # The admin's password is still the empty one.
        assert login(c, "admin")[0] == 200
    finally:
        c.stop()
