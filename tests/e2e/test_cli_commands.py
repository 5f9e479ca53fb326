"""Commands with the real `det` CLI 0.38.1 (issue 30): `det cmd run` runs
its entrypoint as a process under a det-agent and streams its output and
the master's exit line; a context (`-c`, `--include`, `.detignore`) and its
`startup-hook.sh`; generic tasks (`det task create|config|fork|pause|
unpause|kill`); `det cmd list`, `det task list`, `det task logs`,
`det cmd kill` of a command that runs, another user's kill refused, a
command still listed (TERMINATED) after the master restarts, and a port
it declared (environment.proxy_ports) reached through the master's proxy
at /proxy/<id>:<port>/ by its owner alone."""
import json
import re
import shutil
import urllib.error
import urllib.request

import pytest

from conftest import cli_cluster_fixture, wait_for
from harness.wait import free_port
from test_cli import det, http, login, ok

DET = shutil.which("det")

pytestmark = pytest.mark.skipif(DET is None, reason="the det CLI is not installed")


c = cli_cluster_fixture("cmds")


def task_logs(c, path):
    """The results of GET /api/v1/tasks/<path> (one JSON line each)."""
    req = urllib.request.Request(c.url + "/api/v1/tasks/" + path,
                                 headers={"Authorization": "Bearer " + c.token})
    with urllib.request.urlopen(req, timeout=30) as r:
        return [json.loads(line)["result"] for line in r.read().splitlines()
                if line.strip()]


def command(c, cid):
    return c.get("/api/v1/commands/" + cid)["command"]


def test_cmd_run_prints_the_output_and_the_exit_line(c):
    out = ok(c, "cmd", "run", "echo hello-from-a-command; echo second line")
    assert "hello-from-a-command" in out
    assert "second line" in out
    assert "resources exited successfully with a zero exit code" in out
    listed = json.loads(ok(c, "cmd", "list", "--json"))
    assert len(listed) == 1
    cid = listed[0]["id"]
    assert listed[0]["state"] == "TERMINATED"
    assert listed[0]["exitStatus"] == "allocation exited successfully"
    logs = ok(c, "task", "logs", cid)
    assert "hello-from-a-command" in logs
    # The command group's own views of it.
    assert "hello-from-a-command" in ok(c, "cmd", "logs", cid)
    assert json.loads(ok(c, "cmd", "describe", cid, "--json"))["id"] == cid
    assert "echo hello-from-a-command" in ok(c, "cmd", "config", cid)
    # Its log fields, each a filter that keeps some lines (as upstream's
    # test_task_logs checks), and a rank no line has keeps none.
    fields = task_logs(c, cid + "/logs/fields")[0]
    assert fields["sources"] == ["master", "task"], fields
    assert fields["allocationIds"] == [cid + ".1"], fields
    for key, values in fields.items():
        for v in values:
            assert task_logs(c, "%s/logs?%s=%s" % (cid, key, v)), (key, v)
    only_master = task_logs(c, cid + "/logs?sources=master")
    assert only_master and all(x["source"] == "master" for x in only_master)
    assert task_logs(c, cid + "/logs?rankIds=-1")
    assert not task_logs(c, cid + "/logs?rankIds=-2")


def test_det_inside_a_command_is_its_owner_without_a_login(c):
    # DET_MASTER, DET_USER and DET_USER_TOKEN come from the master; a HOME
    # of its own, so no cached login of this machine's can stand in.
    out = ok(c, "cmd", "run", "export HOME=$(mktemp -d); det user whoami; "
             "det agent list >/dev/null && echo agents-listed; "
             "test -z \"$DET_PASS\" && echo no-password")
    assert "You are logged in as user 'admin'" in out, out
    assert "agents-listed" in out and "no-password" in out, out


def test_a_template_gives_a_command_its_environment(c, tmp_path):
    # Written for experiments: its searcher is no key of a command's.
    tpl = tmp_path / "t.yaml"
    tpl.write_text("environment:\n  environment_variables:\n"
                   "    - FROM_TEMPLATE=yes-it-is\n"
                   "searcher:\n  name: single\n  metric: loss\n")
    ok(c, "template", "set", "cmd-env", str(tpl))
    out = ok(c, "cmd", "run", "--template", "cmd-env", "echo value=$FROM_TEMPLATE")
    assert "value=yes-it-is" in out, out
    rc, out = det(c, "cmd", "run", "--template", "no-such", "true")
    assert rc != 0 and "no-such" in out, out


def test_a_failing_command_shows_its_exit_code(c):
    out = ok(c, "cmd", "run", "echo about-to-fail; exit 3")
    assert "about-to-fail" in out
    assert "resources failed with non-zero exit code: 3" in out


def test_a_running_command_is_listed_and_killed(c):
    cid = ok(c, "cmd", "run", "-d", "echo started; sleep 600").strip()
    wait_for("the command to run",
             lambda: command(c, cid)["state"] == "STATE_RUNNING", timeout=60)
    tasks = ok(c, "task", "list", "--json")
    assert cid in tasks
    wait_for("its first line",
             lambda: "started" in ok(c, "task", "logs", cid), timeout=30)
    # Another user may not kill it.
    ok(c, "user", "create", "mallory", "--password", "Mallory12345")
    rc, out = det(c, "cmd", "kill", cid, user="mallory", password="Mallory12345")
    assert rc != 0 and "only its owner or an admin" in out
    assert command(c, cid)["state"] == "STATE_RUNNING"
    out = ok(c, "cmd", "kill", cid)
    assert "Killed command " + cid in out
    wait_for("the command to end",
             lambda: command(c, cid)["state"] == "STATE_TERMINATED", timeout=60)
    assert command(c, cid)["exitStatus"].startswith("killed")
    task = c.get("/api/v1/tasks/" + cid)["task"]
    assert task["endTime"]
    assert task["allocations"][0]["state"] == "STATE_TERMINATED"
    # The process group is gone on the agent.
    wait_for("the agent to free the slot", lambda: all(
        s["container"] is None
        for a in c.get("/api/v1/agents")["agents"] for s in a["slots"].values()),
        timeout=30)


def test_a_context_and_an_include_reach_the_command_and_its_startup_hook(
        c, tmp_path):
    ctx = tmp_path / "ctx"
    (ctx / "sub").mkdir(parents=True)
    (ctx / "hello.py").write_text("print('hello from the context')\n")
    (ctx / "sub" / "data.txt").write_text("nested-data\n")
    (ctx / "hello-link.py").symlink_to(ctx / "hello.py")
    (ctx / "skip.bin").write_bytes(b"\0" * 4096)
    (ctx / ".detignore").write_text("*.bin\n")
    hook = tmp_path / "startup-hook.sh"
    hook.write_text("touch startup-hook-ran\nexport FROM_HOOK=hooked\n")
    out = ok(c, "cmd", "run", "-c", str(ctx), "--include", str(hook),
             "python3 hello-link.py; cat sub/data.txt; "
             "test -e startup-hook-ran && echo hook=$FROM_HOOK; "
             "test -e skip.bin || echo ignored-file-absent")
    assert "hello from the context" in out, out
    assert "nested-data" in out and "hook=hooked" in out, out
    assert "ignored-file-absent" in out, out
    assert "resources exited successfully" in out, out
    rc, out = det(c, "cmd", "run", "-c", str(tmp_path / "missing"), "true")
    assert rc != 0 and "doesn't exist" in out, out
    # A hook that fails ends the command before its entrypoint.
    bad = tmp_path / "bad" / "startup-hook.sh"
    bad.parent.mkdir()
    bad.write_text("echo hook-failing; exit 4\n")
    out = ok(c, "cmd", "run", "--include", str(bad), "echo never-printed")
    assert "hook-failing" in out and "never-printed" not in out, out
    assert "non-zero exit code: 4" in out, out


def generic_state(c, tid):
    return c.get("/api/v1/tasks/" + tid)["task"]["taskState"]


def created_id(out):
    assert "Created task " in out, out
    return out.split("Created task ", 1)[1].split()[0]


def test_generic_tasks_run_fork_pause_unpause_and_are_killed(c, tmp_path):
    import yaml
    ctx = tmp_path / "gctx"
    ctx.mkdir()
    (ctx / "data.txt").write_text("from-the-generic-context\n")
    cfg = tmp_path / "task.yaml"
    cfg.write_text('entrypoint: ["sh", "-c", "cat data.txt"]\n')
    tid = created_id(ok(c, "task", "create", str(cfg), "--context", str(ctx)))
    wait_for("the task to complete", lambda: generic_state(c, tid)
             == "GENERIC_TASK_STATE_COMPLETED", timeout=60)
    wait_for("its output", lambda: "from-the-generic-context"
             in ok(c, "task", "logs", tid), timeout=30)
    assert yaml.safe_load(ok(c, "task", "config", tid)) == \
        {"entrypoint": ["sh", "-c", "cat data.txt"]}
    # A fork takes its parent's config and context.
    fork = created_id(ok(c, "task", "fork", tid))
    wait_for("the fork to complete", lambda: generic_state(c, fork)
             == "GENERIC_TASK_STATE_COMPLETED", timeout=60)
    wait_for("the fork's output", lambda: "from-the-generic-context"
             in ok(c, "task", "logs", fork), timeout=30)
    assert c.get("/api/v1/tasks/" + fork)["task"]["forkedFrom"] == tid
    # Paused, its process ends and its slot is free; unpaused, it runs
    # again as its next allocation; killed, it is CANCELED.
    slow = tmp_path / "slow.yaml"
    slow.write_text('entrypoint: ["sleep", "600"]\n')
    sid = created_id(ok(c, "task", "create", str(slow)))

    def alloc(): return c.get("/api/v1/tasks/" + sid)["task"]["allocations"][0]
    wait_for("it to run", lambda: alloc()["state"] == "STATE_RUNNING", timeout=60)
    assert "Paused task" in ok(c, "task", "pause", sid)
    wait_for("it to pause", lambda: generic_state(c, sid)
             == "GENERIC_TASK_STATE_PAUSED", timeout=60)
    assert alloc()["allocationId"] == sid + ".1"
    assert "Unpaused task" in ok(c, "task", "unpause", sid)
    wait_for("it to run again", lambda: alloc()["state"] == "STATE_RUNNING"
             and alloc()["allocationId"] == sid + ".2", timeout=60)
    assert generic_state(c, sid) == "GENERIC_TASK_STATE_ACTIVE"
    ok(c, "task", "kill", sid)
    wait_for("it to be canceled", lambda: generic_state(c, sid)
             == "GENERIC_TASK_STATE_CANCELED", timeout=60)
    # A failing entrypoint is an ERROR.
    bad = tmp_path / "bad.yaml"
    bad.write_text('entrypoint: ["sh", "-c", "exit 1"]\n')
    bid = created_id(ok(c, "task", "create", str(bad)))
    wait_for("it to fail", lambda: generic_state(c, bid)
             == "GENERIC_TASK_STATE_ERROR", timeout=60)


def test_commands_and_their_logs_survive_a_master_restart(c):
    assert "kept-across-restarts" in ok(c, "cmd", "run", "echo", "kept-across-restarts")
    before = json.loads(ok(c, "cmd", "list", "--json"))
    ended = [x["id"] for x in before if x["state"].endswith("TERMINATED")]
    assert ended, before
    logs_before = {i: ok(c, "task", "logs", i) for i in ended}
    assert any("resources exited successfully" in t for t in logs_before.values())
    c.kill_master()
    c.restart()
    after = json.loads(ok(c, "cmd", "list", "--json"))
    assert sorted((x["id"], x["state"]) for x in after) == \
        sorted((x["id"], x["state"]) for x in before)
    # What they printed, and the master's lines, are still there (kept in
    # PostgreSQL, not only in the killed master's memory).
    for i in ended:
        assert ok(c, "task", "logs", i) == logs_before[i], i


SERVER = """import http.server, sys
class Echo(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = ("path=" + self.path).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Echo).serve_forever()
"""


def test_a_commands_declared_port_is_reached_through_the_proxy(c, tmp_path):
    port = free_port()
    ctx = tmp_path / "ctx"
    ctx.mkdir()
    (ctx / "server.py").write_text(SERVER)
    cfg = tmp_path / "ports.yaml"
    cfg.write_text("environment:\n  proxy_ports:\n    - proxy_port: %d\n" % port)
    out = ok(c, "cmd", "run", "-d", "-c", str(ctx), "--config-file", str(cfg),
             "python3 server.py %d" % port)
    cid = re.search(r"^([0-9a-f-]{36})$", out, re.M).group(1)
    service = "%s:%d" % (cid, port)
    wait_for("the port listed", lambda: any(
        p["serviceId"] == service for s in c.get("/api/v1/tasks")["allocationIdToSummary"]
        .values() if s["taskId"] == cid for p in s["proxyPorts"]), timeout=60)

    def answered():
        req = urllib.request.Request(c.url + "/proxy/%s/hello" % service,
                                     headers={"Authorization": "Bearer " + c.token})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.read().decode()
        except urllib.error.HTTPError:
            return None
    # The path reaches the service unchanged, as upstream's proxy sends it.
    assert wait_for("the service to answer through the proxy", answered, timeout=60) \
        == "path=/proxy/%s/hello" % service
    ok(c, "user", "create", "peggy", "--password", "Peggy12345678")
    status, token = login(c, "peggy", "Peggy12345678")
    assert status == 200
    status, body = http(c, "GET", "/proxy/%s/hello" % service, token=token)
    assert status == 404 and "service not found" in json.dumps(body)
    ok(c, "cmd", "kill", cid)
    wait_for("the command to end",
             lambda: command(c, cid)["state"] == "STATE_TERMINATED", timeout=60)
    status, _ = http(c, "GET", "/proxy/%s/hello" % service, token=c.token)
    assert status == 404
