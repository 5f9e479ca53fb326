"""Security tests written as the attacks: a non-admin reading the event log
and the state through the inspect routes, and any user reading another
user's checkpoint-storage keys from an experiment's config."""
import pytest

from conftest import Cluster, experiment_yaml
from test_cli import http, login

S3_SECRET = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"


@pytest.fixture(scope="module")
def c(pg_server, tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("security"))
    cl = Cluster(pg_server, tmp, "e2e_security", idle="10m", max_instances=1)
    yield cl
    cl.stop()


def tokens(c):
    status, admin = login(c, "admin")
    assert status == 200
    status, user = login(c, "determined")
    assert status == 200
    return admin, user


@pytest.mark.parametrize("path", [
    "/api/v1/inspect/events", "/api/v1/inspect/state", "/api/v1/inspect/state?at=3",
    "/api/v1/inspect/agents", "/api/v1/inspect/experiments"])
def test_a_non_admin_may_not_read_the_event_log_or_the_state(c, path):
    admin, user = tokens(c)
    status, body = http(c, "GET", path, token=user)
    assert status == 403, body
    assert "admin" in body["error"]["error"], body
    status, _ = http(c, "GET", path, token=admin)
    assert status == 200


def test_password_and_session_hashes_never_leave_the_master(c):
    admin, _ = tokens(c)
    for path in ("/api/v1/inspect/events?type=user_created",
                 "/api/v1/inspect/events?type=session_started",
                 "/api/v1/inspect/state", "/api/v1/inspect/state?at=5"):
        status, body = http(c, "GET", path, token=admin)
        assert status == 200, body
        text = str(body)
        assert "pbkdf2" not in text, path
        for session in body.get("sessions", []):
            assert session["token_hash"] in ("", "********"), session
    status, body = http(c, "GET", "/api/v1/inspect/events?type=session_started", token=admin)
    assert body["events"], body
    for ev in body["events"]:
        assert ev["payload"]["token_hash"] == "********", ev


def test_checkpoint_storage_keys_are_hidden_from_every_user(c):
    admin, user = tokens(c)
    config = experiment_yaml() + """
checkpoint_storage:
  type: s3
  bucket: team-bucket
  access_key: AKIAEXAMPLEKEY
  secret_key: %s
""" % S3_SECRET
    import sys, os
    from conftest import ROOT, EXAMPLE
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import submit
    status, body = http(c, "POST", "/api/v1/experiments", {
        "config": config, "modelDefinition": submit.model_files(EXAMPLE), "activate": False},
        token=admin)
    assert status == 200, body
    exp_id = body["experiment"]["id"]
    for token in (admin, user):
        for path in ("/api/v1/experiments/%d" % exp_id, "/api/v1/experiments"):
            status, body = http(c, "GET", path, token=token)
            assert status == 200, body
            assert S3_SECRET not in str(body), path
            assert "AKIAEXAMPLEKEY" not in str(body), path
    status, body = http(c, "GET", "/api/v1/experiments/%d" % exp_id, token=user)
    assert body["config"]["checkpoint_storage"]["secret_key"] == "********"
    assert body["config"]["checkpoint_storage"]["bucket"] == "team-bucket"


def ws_upgrade_status(c, token=None):
    """The HTTP status of a WebSocket upgrade to /agents/ws, as a rogue agent
    would send it."""
    import base64, os, socket
    key = base64.b64encode(os.urandom(16)).decode()
    lines = ["GET /agents/ws HTTP/1.1", "Host: 127.0.0.1:%d" % c.port,
             "Upgrade: websocket", "Connection: Upgrade",
             "Sec-WebSocket-Key: " + key, "Sec-WebSocket-Version: 13"]
    if token is not None:
        lines.append("Authorization: Bearer " + token)
    s = socket.create_connection(("127.0.0.1", c.port), timeout=10)
    try:
        s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = s.recv(4096).decode(errors="replace")
    finally:
        s.close()
    return int(head.split(" ", 2)[1])


def cluster_secret(c, name):
    import subprocess
    return subprocess.check_output(
        ["psql", c.db, "-tAc", "SELECT value FROM cluster_secrets WHERE name = '%s'" % name],
        text=True).strip()


def test_without_a_configured_token_no_unauthenticated_agent_may_join(c):
    token = cluster_secret(c, "agent_token")
    assert len(token) >= 32, "the master generated no agent token"
    assert ws_upgrade_status(c) == 401
    assert ws_upgrade_status(c, "guess") == 401
    assert ws_upgrade_status(c, token) == 101
    # The generated token is the cluster's: a restart keeps it.
    c.stop()
    c.start()
    assert cluster_secret(c, "agent_token") == token
    assert ws_upgrade_status(c) == 401
    assert ws_upgrade_status(c, token) == 101


def test_password_guessing_is_throttled_per_name_with_retry_after(cluster_factory):
    g = cluster_factory(max_instances=1)
    statuses = [login(g, "admin", "guess-%d" % i)[0] for i in range(5)]
    assert statuses == [401] * 5, statuses
    # Past the free failures the name must wait, even with the right password.
    import urllib.error, urllib.request, json as _json
    req = urllib.request.Request(g.url + "/api/v1/auth/login", method="POST",
                                 data=_json.dumps({"username": "admin", "password": "",
                                                   "isHashed": True}).encode())
    try:
        urllib.request.urlopen(req, timeout=10)
        raise AssertionError("a throttled name was let in")
    except urllib.error.HTTPError as e:
        assert e.code == 429
        assert int(e.headers["Retry-After"]) >= 1
        assert "too many failed logins" in e.read().decode()
    # Another name from the same address is not locked out.
    assert login(g, "determined")[0] == 200
    # Unknown names are throttled alike (no hint which names exist).
    assert [login(g, "nobody-%d" % (i % 2))[0] for i in range(4)] == [401] * 4
