"""The real `det` CLI 0.38.1 against det-master: authentication, users, and
every command the product supports, with their output checked. One cluster
(PostgreSQL, det-master, local pool of det-agents) is shared by the module;
tests that need an idle cluster come first."""
import hashlib
import hmac
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import urllib.error
import urllib.request

import pytest

from conftest import BIN, EXAMPLE, Cluster, experiment_yaml, free_port, wait_for

DET = shutil.which("det")
SECRET = "cli-test-session-secret"
AGENT_TOKEN = "agent-token-that-must-not-show"
MODEL_LIMIT = 200000

pytestmark = pytest.mark.skipif(DET is None, reason="the det CLI is not installed")


@pytest.fixture(scope="module")
def c(pg_server, tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("cli"))
    cl = Cluster(pg_server, tmp, "e2e_cli", idle="10m", max_instances=2,
                 extra_yaml="agent_token: %s\nmax_model_definition_bytes: %d\n"
                 % (AGENT_TOKEN, MODEL_LIMIT),
                 env={"DET_SESSION_SECRET": SECRET})
    cl.home = os.path.join(tmp, "home")
    os.makedirs(cl.home)
    yield cl
    cl.stop()


def det(c, *args, user="admin", password="", stdin="", env=None, timeout=90):
    """Runs det; returns (exit code, stdout + stderr). user=None leaves
    DET_USER/DET_PASS unset (the CLI then uses its token cache)."""
    e = dict(os.environ, DET_MASTER=c.url, HOME=c.home,
             XDG_CONFIG_HOME=os.path.join(c.home, ".config"))
    for k in ("DET_USER", "DET_PASS", "DET_USER_TOKEN", "DET_MASTER_CERT_FILE"):
        e.pop(k, None)
    if user is not None:
        e.update(DET_USER=user, DET_PASS=password)
    e.update(env or {})
    p = subprocess.run([DET] + list(args), env=e, input=stdin, capture_output=True,
                       text=True, timeout=timeout)
    return p.returncode, p.stdout + p.stderr


def ok(c, *args, **kw):
    rc, out = det(c, *args, **kw)
    assert rc == 0, "det %s failed:\n%s" % (" ".join(args), out)
    return out


def http(c, method, path, body=None, token=None, headers=None, raw=None):
    """(status, parsed JSON body) without raising on HTTP errors."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(c.url + path, data=data, method=method)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            text = r.read().decode()
            return r.status, json.loads(text) if text.strip() else {}
    except urllib.error.HTTPError as e:
        text = e.read().decode()
        return e.code, json.loads(text) if text.strip() else {}


def hashed(password):
    return hashlib.sha512(("GubPEmmotfiK9TMD6Zdw" + password).encode()).hexdigest() \
        if password else ""


def login(c, user, password=""):
    status, body = http(c, "POST", "/api/v1/auth/login",
                        {"username": user, "password": hashed(password), "isHashed": True})
    return status, body.get("token")


def event_count(c, type_=None):
    where = " WHERE type = '%s'" % type_ if type_ else ""
    return int(c.sql("SELECT count(*) FROM events" + where).strip())


def assert_upstream_error(body, code):
    assert set(body) == {"error"}, body
    assert body["error"]["code"] == code, body
    assert isinstance(body["error"]["error"], str) and body["error"]["error"], body


# -- an idle cluster: bad input changes nothing ---------------------------------

def test_bad_requests_get_clear_errors_and_change_nothing(c, tmp_path):
    ok(c, "user", "whoami")  # logs the CLI in (a session_started event) first
    before = event_count(c)
    status, body = http(c, "POST", "/api/v1/experiments", raw=b'{"config": ', token=c.token)
    assert status == 400
    assert_upstream_error(body, 3)
    status, body = http(c, "POST", "/api/v1/experiments", {"config": 5}, token=c.token)
    assert status == 400, body
    status, body = http(c, "GET", "/api/v1/no/such/thing", token=c.token)
    assert status == 404
    assert_upstream_error(body, 5)
    # A body over the limit is refused from its Content-Length alone.
    s = socket.create_connection(("127.0.0.1", c.port), timeout=10)
    s.sendall(b"POST /api/v1/experiments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
              + c.token.encode() + b"\r\nContent-Length: 999999999\r\n\r\n{")
    answer = s.recv(65536).decode(errors="replace")
    s.close()
    assert answer.startswith("HTTP/1.1 413"), answer[:200]
    # A model directory over max_model_definition_bytes, through the CLI.
    model = tmp_path / "big"
    model.mkdir()
    (model / "train.py").write_text("print(1)\n")
    (model / "data.bin").write_bytes(os.urandom(MODEL_LIMIT + 50000))
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(experiment_yaml())
    rc, out = det(c, "experiment", "create", str(cfg), str(model))
    assert rc != 0
    assert "Failed to create experiment" in out and "modelDefinition" in out, out
    # An invalid config: the CLI prints the field path.
    bad = tmp_path / "bad.yaml"
    bad.write_text(experiment_yaml().replace("slots_per_trial: 1", "slots_per_trial: many"))
    rc, out = det(c, "experiment", "create", str(bad), EXAMPLE)
    assert rc != 0
    assert "Failed to create experiment" in out and "resources.slots_per_trial" in out, out
    assert event_count(c) == before
    status, body = http(c, "GET", "/api/v1/experiments", token=c.token)
    assert body["experiments"] == [] and body["pagination"]["total"] == 0


# -- authentication ------------------------------------------------------------------

def test_unauthenticated_and_unknown_tokens_get_401_in_the_upstream_shape(c):
    assert http(c, "GET", "/info")[0] == 200
    assert http(c, "GET", "/api/v1/master")[0] == 200
    for token in (None, "not-a-token"):
        status, body = http(c, "GET", "/api/v1/experiments", token=token)
        assert status == 401
        assert_upstream_error(body, 16)
        assert body["error"]["reason"] == "Unauthenticated"


def test_login_as_admin_then_whoami_and_a_wrong_password_is_refused(c):
    out = ok(c, "user", "login", "admin", user=None, stdin="\n")
    out = ok(c, "user", "whoami", user=None)
    assert "You are logged in as user 'admin'" in out
    rc, out = det(c, "user", "login", "admin", user=None, stdin="wrong\n")
    assert rc != 0
    assert "Invalid username/password combination" in out, out
    status, body = login(c, "admin", "wrong")
    assert status == 401 and body is None


def test_master_info_and_config_with_secrets_redacted(c):
    out = ok(c, "master", "info")
    assert "version: 0.38.1" in out, out
    assert "clusterId:" in out
    out = ok(c, "master", "config")
    assert "********" in out, out
    assert AGENT_TOKEN not in out
    assert "resource_pools" in out


def test_admin_creates_a_user_who_is_refused_admin_endpoints_and_changes_password(c):
    ok(c, "user", "create", "carol", "--password", "Carol12345")
    out = ok(c, "user", "list")
    for name in ("admin", "determined", "carol"):
        assert name in out, out
    as_carol = {"user": "carol", "password": "Carol12345"}
    assert "You are logged in as user 'carol'" in ok(c, "user", "whoami", **as_carol)
    rc, out = det(c, "master", "config", **as_carol)
    assert rc != 0 and "Forbidden" in out, out
    rc, out = det(c, "user", "create", "dave", "--password", "Dave123456", **as_carol)
    assert rc != 0 and "Forbidden" in out, out
    status, _ = login(c, "dave", "Dave123456")
    assert status == 401
    # Carol changes her own password; the old one stops working.
    ok(c, "user", "change-password", stdin="NewPass123\nNewPass123\n", **as_carol)
    assert login(c, "carol", "Carol12345")[0] == 401
    assert login(c, "carol", "NewPass123")[0] == 200
    # The admin changes the default user's password.
    ok(c, "user", "change-password", "determined", stdin="Determ1ned\nDeterm1ned\n")
    assert login(c, "determined", "")[0] == 401
    assert login(c, "determined", "Determ1ned")[0] == 200


# -- experiments, trials, checkpoints, logs -------------------------------------------

def created_id(out):
    assert "Created experiment" in out, out
    return int(out.split("Created experiment")[1].split()[0])


def wait_state(c, exp_id, states, timeout=120):
    return wait_for("experiment %d in %s" % (exp_id, states),
                    lambda: (lambda e: e if e["state"] in states else None)(c.experiment(exp_id)),
                    timeout=timeout)


@pytest.fixture(scope="module")
def completed(c, tmp_path_factory):
    cfg = tmp_path_factory.mktemp("exp") / "exp.yaml"
    cfg.write_text(experiment_yaml(max_length=30, checkpoint_every=10))
    exp_id = created_id(ok(c, "experiment", "create", str(cfg), EXAMPLE))
    e = wait_state(c, exp_id, ("STATE_COMPLETED", "STATE_ERROR", "STATE_CANCELED"))
    assert e["state"] == "STATE_COMPLETED"
    return exp_id, c.trials(exp_id)[0]


def test_a_completed_experiment_through_list_describe_trials_and_checkpoints(c, completed):
    exp_id, trial = completed
    tid = trial["id"]
    # A trial ends after it starts (its end time is its own, not a copy).
    assert trial["endTime"] > trial["startTime"], trial
    out = ok(c, "experiment", "list")
    row = [l for l in out.splitlines() if l.strip().startswith(str(exp_id))]
    assert row and "COMPLETED" in row[0] and "admin" in row[0], out
    out = ok(c, "experiment", "describe", str(exp_id))
    assert "COMPLETED" in out and str(tid) in out, out
    out = ok(c, "experiment", "list-trials", str(exp_id))
    assert any(l.strip().startswith(str(tid)) and "COMPLETED" in l for l in out.splitlines()), out
    uuid = trial["bestCheckpoint"]["uuid"]
    out = ok(c, "experiment", "list-checkpoints", str(exp_id))
    assert uuid in out, out
    # Checkpoints at 10, 20, 30; the default GC policy (save_trial_best 1,
    # save_trial_latest 1) deletes those it does not keep once the trial ends.
    assert out.count("COMPLETED") + out.count("DELETED") >= 3, out
    out = ok(c, "checkpoint", "describe", uuid)
    assert uuid in out and "30" in out, out
    out = ok(c, "trial", "describe", str(tid))
    assert "COMPLETED" in out and str(exp_id) in out, out


def test_experiment_set_label_archive_and_the_list_of_live_ones(c, completed):
    exp_id, _ = completed
    out = ok(c, "experiment", "set", "name", str(exp_id), "renamed-by-cli")
    assert "renamed-by-cli" in out, out
    ok(c, "experiment", "set", "description", str(exp_id), "described by the CLI")
    ok(c, "experiment", "label", "add", str(exp_id), "blue")
    ok(c, "experiment", "label", "add", str(exp_id), "green")
    ok(c, "experiment", "label", "remove", str(exp_id), "blue")
    e = c.experiment(exp_id)
    assert (e["name"], e["description"], e["labels"]) == (
        "renamed-by-cli", "described by the CLI", ["green"]), e
    assert "renamed-by-cli" in ok(c, "experiment", "describe", str(exp_id))

    # A bad value is refused naming the field, and changes nothing.
    status, body = http(c, "PATCH", "/api/v1/experiments/%d" % exp_id,
                        {"name": "two\nlines"}, token=c.token)
    assert status == 400 and "name contains control character" in body["error"]["error"], body
    status, body = http(c, "PATCH", "/api/v1/experiments/%d" % exp_id,
                        {"labels": ["x" * 300]}, token=c.token)
    assert status == 400 and "labels[0]" in body["error"]["error"], body
    assert c.experiment(exp_id)["name"] == "renamed-by-cli"

    # Archived: the plain list leaves it out, --all shows it.
    ok(c, "experiment", "archive", str(exp_id))
    assert c.experiment(exp_id)["archived"] is True
    rows = lambda out: [l for l in out.splitlines() if l.strip().startswith(str(exp_id) + " ")]
    assert not rows(ok(c, "experiment", "list")), ok(c, "experiment", "list")
    assert rows(ok(c, "experiment", "list", "--all"))
    ok(c, "experiment", "unarchive", str(exp_id))
    assert rows(ok(c, "experiment", "list"))
    # (Edits are events: master_core_test replays them.)


def test_trial_describe_lists_every_report_and_checkpoint_by_batches(c, completed):
    _, trial = completed
    tid = str(trial["id"])
    data = json.loads(ok(c, "trial", "describe", "--json", tid))
    kinds = [(next(k for k in ("training", "validation", "checkpoint") if w.get(k)),
              next(w[k] for k in ("training", "validation", "checkpoint") if w.get(k)))
             for w in data["workloads"]]
    got = [(k, w["totalBatches"]) for k, w in kinds]
    # metrics_every 5, a checkpoint and a validation every 10, to 30: the
    # whole history, ordered by batches, reports before the checkpoint.
    expected = []
    for step in range(5, 31, 5):
        expected.append(("training", step))
        if step % 10 == 0:
            expected += [("validation", step), ("checkpoint", step)]
    assert got == expected, got
    losses = [w["metrics"]["avgMetrics"]["loss"] for k, w in kinds if k == "training"]
    assert len(set(losses)) == len(losses), losses
    # Paged as the CLI asks (--limit): the same list.
    paged = json.loads(ok(c, "trial", "describe", "--json", "--limit", "4", tid))
    assert [w for w in paged["workloads"]] == data["workloads"]
    out = ok(c, "trial", "describe", "--metrics", tid)
    assert out.count("loss") >= 6, out


def test_trial_logs_whole_tail_and_follow_of_an_ended_trial(c, completed):
    _, trial = completed
    tid = str(trial["id"])
    full = ok(c, "trial", "logs", tid).splitlines()
    full = [l for l in full if "||" in l]
    assert len(full) >= 3, full
    tail = [l for l in ok(c, "trial", "logs", "--tail", "2", tid).splitlines() if "||" in l]
    assert tail == full[-2:]
    head = [l for l in ok(c, "trial", "logs", "--head", "2", tid).splitlines() if "||" in l]
    assert head == full[:2]
    # -f ends by itself once the trial has ended.
    follow = [l for l in ok(c, "trial", "logs", "-f", tid).splitlines() if "||" in l]
    assert follow == full


def allocation_token(alloc):
    return hmac.new(SECRET.encode(), alloc.encode(), hashlib.sha256).hexdigest()


def test_a_running_experiment_tasks_slots_agents_pools_pause_activate_and_kills(c, completed, tmp_path):
    done_exp, done_trial = completed
    cfg = tmp_path / "long.yaml"
    cfg.write_text(experiment_yaml(max_length=5000, trials=2, batch_delay=0.05))
    exp_id = created_id(ok(c, "experiment", "create", str(cfg), EXAMPLE))
    running = wait_for("both trials running", lambda: (lambda ts: ts if len(ts) == 2 and all(
        t["state"] == "STATE_RUNNING" for t in ts) else None)(c.trials(exp_id)), timeout=120)
    t1, t2 = running[0]["id"], running[1]["id"]
    # An active experiment whose trials run is RUNNING, as upstream shows it.
    assert c.experiment(exp_id)["state"] == "STATE_RUNNING"
    tasks = c.get("/api/v1/tasks")["allocationIdToSummary"]
    alloc = [a for a, s in tasks.items()
             if s["taskId"] == "%d.00000000-0000-4000-8000-%012x" % (exp_id, t1)][0]
    out = ok(c, "task", "list")
    assert alloc in out and "Trial %d" % t1 in out, out
    out = ok(c, "slot", "list")
    assert alloc in out, out
    agents = [a["id"] for a in c.get("/api/v1/agents")["agents"]]
    out = ok(c, "agent", "list")
    assert agents and all(a in out for a in agents), out
    pools = c.get("/api/v1/resource-pools")["resourcePools"]
    assert [p["name"] for p in pools] == ["default"]
    assert pools[0]["provider"] == "local" and pools[0]["maxAgents"] == 2
    assert pools[0]["numAgents"] == 2 and pools[0]["slotsAvailable"] == 2
    assert pools[0]["slotsUsed"] == 2 and pools[0]["instancesTotal"] == 2

    # A trial's token: its own trial yes, another trial's endpoints no.
    tok = {"Grpc-Metadata-x-allocation-token": "Bearer " + allocation_token(alloc)}
    assert http(c, "GET", "/api/v1/trials/%d" % t1, headers=tok)[0] == 200
    assert http(c, "GET", "/api/v1/me", headers=tok)[1]["user"]["username"] == "admin"
    before = c.get("/api/v1/trials/%d" % done_trial["id"])["trial"]
    status, body = http(c, "POST", "/api/v1/trials/%d/metrics" % done_trial["id"], headers=tok,
                        body={"group": "validation", "metrics": {
                            "trialId": done_trial["id"], "trialRunId": 1, "stepsCompleted": 99999,
                            "metrics": {"avgMetrics": {"validation_loss": -1}}}})
    assert status == 403, body
    assert_upstream_error(body, 7)
    assert http(c, "POST", "/api/v1/trials/%d/kill" % t2, headers=tok)[0] == 403
    assert c.get("/api/v1/trials/%d" % done_trial["id"])["trial"] == before
    assert c.trials(exp_id)[1]["state"] == "STATE_RUNNING"

    ok(c, "experiment", "pause", str(exp_id))
    assert "PAUSED" in ok(c, "experiment", "describe", str(exp_id))
    wait_for("trials to stop", lambda: all(t["state"] != "STATE_RUNNING" for t in c.trials(exp_id)),
             timeout=60)
    # The stopped trials of a paused experiment show PAUSED (not QUEUED).
    wait_for("trials PAUSED", lambda: all(t["state"] == "STATE_PAUSED" for t in c.trials(exp_id)),
             timeout=30)
    ok(c, "experiment", "activate", str(exp_id))
    # Active again, shown by its trials as upstream does (QUEUED until one
    # is placed, then PULLING, then RUNNING).
    assert c.experiment(exp_id)["state"] in ("STATE_QUEUED", "STATE_PULLING", "STATE_RUNNING")
    wait_for("trials to run again", lambda: all(t["state"] == "STATE_RUNNING"
                                                 for t in c.trials(exp_id)), timeout=120)
    ok(c, "trial", "kill", str(t1))
    wait_for("trial %d canceled" % t1, lambda: c.get("/api/v1/trials/%d" % t1)["trial"]["state"]
             == "STATE_CANCELED", timeout=60)
    assert c.get("/api/v1/trials/%d" % t2)["trial"]["state"] == "STATE_RUNNING"
    ok(c, "experiment", "kill", str(exp_id))
    e = wait_state(c, exp_id, ("STATE_CANCELED",), timeout=60)
    assert "CANCELED" in ok(c, "experiment", "describe", str(exp_id))


# -- sessions across a restart (last: it restarts the master) ---------------------------

def test_sessions_and_trial_logs_survive_a_master_restart_and_logout_revokes(c, completed):
    tid = str(completed[1]["id"])
    logs_before = ok(c, "trial", "logs", tid)
    assert logs_before.count("||") >= 3, logs_before
    status, _ = http(c, "POST", "/api/v1/users", token=c.token, body={
        "user": {"username": "erin", "admin": False}, "password": hashed("Erin12345"),
        "isHashed": True})
    assert status == 200
    status, token = login(c, "erin", "Erin12345")
    assert status == 200
    ok(c, "user", "whoami", user=None)  # the CLI caches a session
    c.proc.send_signal(signal.SIGTERM)
    c.proc.wait(timeout=30)
    c.start()
    status, body = http(c, "GET", "/api/v1/me", token=token)
    assert status == 200 and body["user"]["username"] == "erin"
    assert ok(c, "trial", "logs", tid) == logs_before
    # The CLI's cached session (its active user's) still works too: no new
    # login. (Agents reconnecting append other events meanwhile.)
    before = event_count(c, "session_started")
    assert "You are logged in as user '" in ok(c, "user", "whoami", user=None)
    assert event_count(c, "session_started") == before
    assert http(c, "POST", "/api/v1/auth/logout", token=token)[0] == 200
    assert http(c, "GET", "/api/v1/me", token=token)[0] == 401
    log = c.master_log()
    assert token not in log and hashed("Erin12345") not in log


# -- TLS ------------------------------------------------------------------------------

def test_the_cli_talks_to_an_https_master_with_its_cert(pg_server, tmp_path):
    cert, key = str(tmp_path / "cert.pem"), str(tmp_path / "key.pem")
    subprocess.check_call(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                           "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
                           "-addext", "subjectAltName=IP:127.0.0.1"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    db = pg_server.rsplit("/", 1)[0] + "/e2e_cli_tls"
    subprocess.check_call(["psql", pg_server, "-qc", "DROP DATABASE IF EXISTS e2e_cli_tls WITH (FORCE)"])
    subprocess.check_call(["psql", pg_server, "-qc", "CREATE DATABASE e2e_cli_tls"])
    port = free_port()
    config = tmp_path / "master.yaml"
    config.write_text("port: %d\nsecurity:\n  tls:\n    cert: %s\n    key: %s\n" % (port, cert, key))
    log = open(tmp_path / "master.log", "w")
    proc = subprocess.Popen([os.path.join(BIN, "det-master"), "--config", str(config), "--db", db,
                             "--listen", "127.0.0.1"], stdout=log, stderr=subprocess.STDOUT)
    try:
        ctx = ssl.create_default_context(cafile=cert)
        url = "https://127.0.0.1:%d" % port

        def up():
            assert proc.poll() is None, open(tmp_path / "master.log").read()
            try:
                urllib.request.urlopen(url + "/info", timeout=5, context=ctx).read()
                return True
            except (urllib.error.URLError, ConnectionError):
                return False
        wait_for("the https master", up, timeout=60)
        home = str(tmp_path / "home")
        env = dict(os.environ, DET_MASTER=url, DET_MASTER_CERT_FILE=cert, HOME=home,
                   XDG_CONFIG_HOME=home, DET_USER="admin", DET_PASS="")
        # requests lets these override the CLI's own cert bundle.
        for k in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
            env.pop(k, None)
        p = subprocess.run([DET, "master", "info"], env=env, capture_output=True, text=True,
                           timeout=60)
        assert p.returncode == 0 and "version: 0.38.1" in p.stdout, p.stdout + p.stderr
        p = subprocess.run([DET, "user", "whoami"], env=env, capture_output=True, text=True,
                           timeout=60)
        assert "You are logged in as user 'admin'" in p.stdout, p.stdout + p.stderr
        # Plain HTTP on the TLS port is not served.
        with pytest.raises((urllib.error.URLError, ConnectionError)):
            urllib.request.urlopen("http://127.0.0.1:%d/info" % port, timeout=5).read()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
