"""Hostile input at the boundary, written as the attacks: a logged-in
non-admin's experiment with a NUL in its name (which once made PostgreSQL
refuse the event and left every route answering 500), hostile values in
every field a client chooses, a 1 MB user name, an agent id of 12,000
characters, and random JSON thrown at every route. Each value is refused with
a 400 that names the field, or it is stored, read back equal, and survives a
replay. The master never stops serving and the log changes only on 2xx."""
import base64
import json
import os
import random
import re
import socket
import struct

import pytest

from conftest import EXAMPLE, ROOT, Cluster, experiment_yaml
from test_cli import event_count, http, login
from test_cluster import replay_ok

import sys
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import submit  # noqa: E402  scripts/submit.py: model_files()

# (name, value): what a hostile client puts in a text field.
HOSTILE = [
    ("NUL", "bad\u0000name"),
    ("escape sequence", "\u001b[31mred\u001b[0m"),
    ("forged log line", "x\n2026-11-24 [error] forged"),
    ("DEL", "a\u007f"),
    ("one megabyte", "a" * (1 << 20)),
    ("unicode", "\u540d\u524d \U0001F680"),
    ("right-to-left override", "\u202eevil"),
    ("256 bytes", "n" * 256),
]


@pytest.fixture(scope="module")
def c(pg_server, tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("hostile"))
    cl = Cluster(pg_server, tmp, "e2e_hostile", idle="10m", max_instances=1)
    yield cl
    cl.stop()


def user_token(c):
    status, token = login(c, "determined")
    assert status == 200
    return token


def still_serving(c):
    """The master is up and every kind of route answers: the failure this
    file guards against left only /info working."""
    assert c.proc.poll() is None, "det-master exited: " + c.master_log()[-2000:]
    status, token = login(c, "admin")
    assert status == 200, "login failed after hostile input"
    status, body = http(c, "GET", "/api/v1/experiments", token=token)
    assert status == 200, body
    return token


def yaml_quoted(text):
    """A YAML double-quoted scalar for `text` (JSON's escapes are YAML's)."""
    return json.dumps(text, ensure_ascii=False)


def create(c, token, config):
    return http(c, "POST", "/api/v1/experiments", {
        "config": config, "modelDefinition": submit.model_files(EXAMPLE),
        "activate": False}, token=token)


def test_a_nul_in_an_experiment_name_is_a_400_and_the_master_keeps_serving(c):
    token = user_token(c)
    before = event_count(c)
    config = experiment_yaml() + "\nname: " + yaml_quoted("bad\u0000name") + "\n"
    status, body = create(c, token, config)
    assert status == 400, body
    assert "name" in body["error"]["error"] and "NUL" in body["error"]["error"], body
    assert event_count(c) == before
    still_serving(c)


# Where each field sits in an experiment config, as YAML to append.
CONFIG_FIELDS = {
    "name": lambda v: "\nname: %s\n" % yaml_quoted(v),
    "description": lambda v: "\ndescription: %s\n" % yaml_quoted(v),
    "labels[0]": lambda v: "\nlabels: [%s]\n" % yaml_quoted(v),
    "data": lambda v: "\ndata:\n  note: %s\n" % yaml_quoted(v),
    "data key": lambda v: "\ndata:\n  %s: 1\n" % yaml_quoted(v),
}


@pytest.mark.parametrize("field", sorted(CONFIG_FIELDS))
def test_every_hostile_value_in_an_experiment_config_is_refused_naming_it_or_kept(c, field):
    token = user_token(c)
    for what, value in HOSTILE:
        before = event_count(c)
        status, body = create(c, token, experiment_yaml() + CONFIG_FIELDS[field](value))
        assert status in (200, 400), (field, what, status, body)
        if status == 400:
            assert event_count(c) == before, (field, what)
            message = body["error"]["error"]
            # The field is named as the client wrote it (or, for what YAML
            # itself refuses, such as a key over 1,024 characters, where).
            assert field.split(" ")[0].split("[")[0] in message \
                or re.search(r"not valid yaml: .* at line \d+, column \d+", message), \
                (field, what, message[:300])
            assert len(message) < 4096, "the refusal echoes the value"
            continue
        assert what not in ("NUL",), (field, what, "a NUL was stored")
        exp = body["experiment"]
        status, got = http(c, "GET", "/api/v1/experiments/%d" % exp["id"], token=token)
        assert status == 200, got
        config = got["config"]
        kept = {"name": lambda: config["name"], "description": lambda: config["description"],
                "labels[0]": lambda: config["labels"][0], "data": lambda: config["data"]["note"],
                "data key": lambda: next(iter(config["data"]))}[field]()
        assert kept == value, (field, what)
    still_serving(c)


def test_names_are_one_short_line(c):
    token = user_token(c)
    for field in ("name", "labels[0]"):
        for what in ("escape sequence", "forged log line", "DEL", "256 bytes"):
            status, body = create(c, token, experiment_yaml()
                                  + CONFIG_FIELDS[field](dict(HOSTILE)[what]))
            assert status == 400, (field, what, body)
            assert field.split("[")[0] in body["error"]["error"], body


def test_hostile_user_names_are_refused_naming_the_field(c):
    _, admin = login(c, "admin")
    before = event_count(c)
    for what, value in HOSTILE + [("empty", "")]:
        status, body = http(c, "POST", "/api/v1/users",
                            {"user": {"username": value, "active": True}, "password": "pw"},
                            token=admin)
        if what in ("unicode", "right-to-left override"):
            assert status == 200, (what, body)
            assert body["user"]["username"] == value
            continue
        assert status == 400, (what, status, body)
        assert "username" in body["error"]["error"], body
        # A login with the name is refused the same way, and never a 500.
        status, body = http(c, "POST", "/api/v1/auth/login",
                            {"username": value or "x\u0000", "password": ""})
        # (A megabyte is past the 64 KiB an unauthenticated body may take.)
        assert status in ((413,) if len(value) > 65536 else (400, 401)), (what, status)
    assert event_count(c) == before + 2  # the two unicode users
    still_serving(c)


def test_json_that_is_not_utf8_or_spells_a_nul_in_a_key_is_refused(c):
    token = user_token(c)
    for raw in (b'{"username": "\xff\xfe"}', b'{"username": "\\ud800"}',
                b'{"a\\u0000b": 1}', b"[" * 30000 + b"]" * 30000,
                b'{"x": ' + b"[" * 200 + b"]" * 200 + b"}"):
        status, body = http(c, "POST", "/api/v1/auth/login", raw=raw)
        assert status == 400, (raw[:40], status, body)
        status, body = http(c, "POST", "/api/v1/trials/1/progress", raw=raw, token=token)
        assert status == 400, (raw[:40], status, body)
    still_serving(c)


# -- a rogue agent's hello --------------------------------------------------------

def ws_frames(c, token, frames):
    """Connects to /agents/ws as an agent, sends each text frame, and returns
    the text frames the master answered until it closed (or 5 s passed)."""
    key = base64.b64encode(os.urandom(16)).decode()
    s = socket.create_connection(("127.0.0.1", c.port), timeout=5)
    s.sendall(("GET /agents/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n"
               "Authorization: Bearer %s\r\n\r\n" % (key, token)).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    assert b" 101 " in head, head
    for text in frames:
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        header = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else
                                  bytes([0x80 | 126]) + struct.pack(">H", n) if n < 65536 else
                                  bytes([0x80 | 127]) + struct.pack(">Q", n))
        s.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
    got = []
    buf = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
            while len(buf) >= 2:
                op, n, off = buf[0] & 0x0F, buf[1] & 0x7F, 2
                if n == 126:
                    n, off = struct.unpack(">H", buf[2:4])[0], 4
                elif n == 127:
                    n, off = struct.unpack(">Q", buf[2:10])[0], 10
                if len(buf) < off + n:
                    break
                payload, buf = buf[off:off + n], buf[off + n:]
                if op == 1:
                    got.append(json.loads(payload))
                if op == 8:
                    return got
    except socket.timeout:
        pass
    finally:
        s.close()
    return got


def agent_token(c):
    import subprocess
    return subprocess.check_output(
        ["psql", c.db, "-tAc", "SELECT value FROM cluster_secrets WHERE name = 'agent_token'"],
        text=True).strip()


@pytest.mark.parametrize("what,agent_id,slots", [
    ("12,000 characters", "a" * 12000, 1),
    ("NUL", "agent\u0000x", 1),
    ("newline", "agent\nx", 1),
    ("two billion slots", "rogue-slots", 2000000000),
    ("negative slots", "rogue-negative", -1),
])
def test_a_rogue_agents_hello_is_refused_naming_the_field(c, what, agent_id, slots):
    before = event_count(c, "agent_connected")
    hello = {"type": "hello", "agent_id": agent_id, "resource_pool": "default",
             "slots": slots, "slot_type": "cpu"}
    got = ws_frames(c, agent_token(c), [json.dumps(hello)])
    errors = [f for f in got if f.get("type") == "error"]
    assert errors, (what, got)
    field = "slots" if "slots" in what else "agent_id"
    assert "hello." + field in errors[0]["message"], errors
    assert len(errors[0]["message"]) < 4096
    assert event_count(c, "agent_connected") == before
    still_serving(c)


# -- random JSON at every route ---------------------------------------------------

def routes(unimplemented=False):
    """(method, path) of every route, from the table in docs/api.md (which
    master_api_test checks against the router); with unimplemented, only
    those the table says answer 501 (upstream's Enterprise features)."""
    out = []
    with open(os.path.join(ROOT, "docs", "api.md")) as f:
        for line in f:
            m = re.match(r"\| (GET|POST|PATCH|PUT|DELETE) \| `([^`]+)` \| [a-z_]+ \| (.*)", line)
            if m and (not unimplemented or m.group(3).startswith("501:")):
                out.append((m.group(1), m.group(2)))
    assert unimplemented or len(out) >= 40, out
    return out


def random_json(rng, depth=0):
    kind = rng.randrange(12 if depth < 6 else 7)
    strings = ["", "\u0000", "a\u0000b", "\u001b[2J", "\n\r\t", "\u202e", "\ud7ff",
               "x" * rng.choice([1, 300, 70000]), "training", "validation", "1", "-1",
               "9223372036854775808", "admin", "determined", "../../etc/passwd"]
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 1, 2**31, -2**63, 2**63 - 1, 2**64, 10**30])
    if kind == 3:
        return rng.choice([0.5, -1e308, 1e308, 1e-320, 3.14])
    if kind in (4, 5, 6):
        return rng.choice(strings)
    if kind in (7, 8):
        return [random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = ["username", "password", "isHashed", "user", "admin", "config", "activate",
            "modelDefinition", "metrics", "group", "stepsCompleted", "avgMetrics",
            "checkpoint", "allocationId", "uuid", "metadata", "steps_completed",
            "progress", "runId", "logs", "log", "taskId", "task_id", "state",
            "preempt", "limit", "offset"] + strings
    return {rng.choice(keys): random_json(rng, depth + 1) for _ in range(rng.randrange(6))}


def deep(n):
    return "[" * n + "]" * n


def test_random_json_at_every_route_as_a_non_admin_never_gets_a_5xx(c):
    seed = int(os.environ.get("HOSTILE_SEED", random.randrange(1 << 30)))
    print("HOSTILE_SEED=%d" % seed)
    rng = random.Random(seed)
    token = user_token(c)
    # Something of the user's own to aim at. Every experiment is killed
    # first, so that nothing runs (and writes events) while the requests are
    # counted, whatever a random activate hits.
    status, body = create(c, token, experiment_yaml())
    assert status == 200, body
    exp_id = body["experiment"]["id"]
    from conftest import wait_for
    status, listed = http(c, "GET", "/api/v1/experiments?limit=1000", token=token)
    for e in listed["experiments"]:
        assert http(c, "POST", "/api/v1/experiments/%d/kill" % e["id"], token=token)[0] == 200
    terminal = ("STATE_CANCELED", "STATE_COMPLETED", "STATE_ERROR")
    wait_for("every experiment to end", lambda: all(
        e["state"] in terminal for e in
        http(c, "GET", "/api/v1/experiments?limit=1000", token=token)[1]["experiments"]),
        timeout=60)
    ids = [str(exp_id), "1", "0", "-1", "99999999999999999999", "abc", "%00", "..",
           "a%0Ab", "determined", "admin", "x" * 3000]
    sent = by_status = 0
    statuses = {}
    # A route documented as unimplemented answers 501 on purpose; any other
    # 5xx is a fault.
    unimplemented = set(routes(unimplemented=True))
    assert len(unimplemented) == 2, unimplemented
    # The log's length after one request is the length before the next
    # (nothing else writes meanwhile: every experiment has ended), so it
    # is read once per request.
    before = event_count(c)
    tasks_launched = False
    for method, pattern in routes():
        for round_ in range(12):
            path = re.sub(r"\{[A-Za-z_]+\}", lambda _: rng.choice(ids), pattern)
            if round_ % 3 == 0:
                path += "?" + rng.choice(["limit=-1", "offset=abc", "limit=99999999999",
                                          "at=-5", "%00=%00", "a=" + "b" * 5000])
            if round_ == 0:
                raw = deep(rng.choice([65, 5000, 100000])).encode()
            elif round_ == 1:
                raw = b"\xff\xfe{\x00"
            else:
                raw = json.dumps(random_json(rng)).encode()
            status, answer = http_any(c, method, path, raw, token)
            tasks_launched = tasks_launched or (
                method == "POST" and pattern in TASK_LAUNCHES and 200 <= status < 300)
            sent += 1
            statuses[status] = statuses.get(status, 0) + 1
            if (method, pattern) in unimplemented:
                assert status in (401, 501), (seed, method, path, status, answer)
            else:
                assert status < 500, (seed, method, path, raw[:200], status, answer)
            if not 200 <= status < 300:
                # Only the checkpoint collector writes in the background
                # (and, once a task was launched, its provisioning and run):
                # it finishes an experiment deletion an earlier request
                # started (DELETING until its files are gone), at any
                # moment, so its events are told apart by type in the same
                # query.
                assert foreground_events(c, before, tasks_launched) == 0, (
                    seed, method, path, raw[:200], status, answer, new_events(c, before))
            if pattern == "/api/v1/auth/logout" and status == 200:
                token = user_token(c)  # a new session is an event
            before = event_count(c)
    assert c.proc.poll() is None
    still_serving(c)
    print("random JSON: %d requests, statuses %s" % (sent, sorted(statuses.items())))
    # What was stored replays.
    replay_ok(c)


# Routes whose success starts work that goes on by itself: a task is
# queued, the pool's provisioner launches an instance for it, its agent
# connects, the task is placed and runs.
TASK_LAUNCHES = {"/api/v1/commands", "/api/v1/notebooks", "/api/v1/shells",
                 "/api/v1/tensorboards", "/api/v1/generic-tasks"}


def foreground_events(c, after, tasks_launched=False):
    """Events after `after` that the checkpoint collector did not write
    (nor, once a task was launched, its provisioning and lifecycle)."""
    extra = (" AND type NOT LIKE 'instance%%' AND type NOT LIKE 'agent%%'"
             " AND type NOT LIKE 'task%%'" if tasks_launched else "")
    return int(c.sql("SELECT count(*) FROM events WHERE position > %d AND type NOT IN "
                     "('checkpoints_deleted', 'experiment_deleted')%s" % (after, extra)).strip())


def new_events(c, after):
    return c.sql("SELECT type, payload FROM events WHERE position > %d" % after)[:2000]


def http_any(c, method, path, raw, token):
    """Like http() but keeps a body that is not JSON as text."""
    import urllib.error
    import urllib.request
    req = urllib.request.Request(c.url + path, data=raw if method != "GET" else None,
                                 method=method)
    req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read()[:500]
    except urllib.error.HTTPError as e:
        return e.code, e.read()[:500]


def test_what_was_kept_replays_after_a_restart(c):
    token = user_token(c)
    status, before = http(c, "GET", "/api/v1/experiments?limit=1000", token=token)
    assert status == 200
    c.stop()
    c.start()
    token = still_serving(c)
    status, after = http(c, "GET", "/api/v1/experiments?limit=1000", token=token)
    assert status == 200
    strip = lambda es: [{k: e[k] for k in ("id", "name", "description", "labels")}
                        for e in es["experiments"]]
    assert strip(after) == strip(before)
    replay_ok(c)


def test_no_client_value_starts_a_line_of_the_master_log(c):
    forged = "2026-11-24 12:00:00.000 [error] det-master: forged"
    for name in ("x\n" + forged, "x\r\n" + forged, "x\u2028" + forged):
        http(c, "POST", "/api/v1/auth/login", {"username": name, "password": ""})
    token = user_token(c)
    http(c, "POST", "/api/v1/trials/1/early_exit", {"reason": "x\n" + forged}, token=token)
    http(c, "GET", "/api/v1/users/x%0A" + forged.replace(" ", "%20") + "/by-username",
         token=token)
    log = c.master_log()
    # Python's splitlines() also breaks at U+2028, U+2029 and U+0085, as
    # some log viewers do: none may be in the log.
    for line in log.splitlines():
        assert not line.startswith(forged), line
        assert len(line) <= 8192, "a log line of %d bytes" % len(line)
    assert "forged" in log, "the attempt was not logged at all"
