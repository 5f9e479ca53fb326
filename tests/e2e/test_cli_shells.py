"""Shells with the real `det` CLI 0.38.1 (issue 30): `det shell start -d`
runs sshd as a process under a det-agent with the shell's own key, and
`det shell open ID -- CMD` runs CMD over ssh through the tunnel
(`python -m determined.cli.tunnel`: raw TCP over a WebSocket to the
master's proxy); each session has the task's environment; sftp works
through the same tunnel; another user can neither open it nor read its
private key; after a master SIGKILL it still opens; `det shell kill` ends
it and the proxy forgets it; `det shell start -- CMD` waits and runs CMD."""
import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import urllib.request

import pytest

from conftest import cli_cluster, wait_for
from test_cli import det, ok
from test_cli import login as rest_login

DET = shutil.which("det")
SSHD = shutil.which("sshd") or ("/usr/sbin/sshd" if os.path.exists("/usr/sbin/sshd") else None)
try:
    import websocket  # websocket-client
except ImportError:
    websocket = None

pytestmark = pytest.mark.skipif(
    DET is None or SSHD is None or shutil.which("ssh") is None or websocket is None,
    reason="needs det, sshd, ssh and websocket-client")


@pytest.fixture(scope="module")
def c(pg_server, tmp_path_factory):
    cl = cli_cluster(pg_server, tmp_path_factory, "shells")
    if os.geteuid() != 0:
        # An unprivileged det-agent's sshd logs in only its own user.
        me = pwd.getpwuid(os.getuid())
        ok(cl, "user", "link-with-agent-user", "admin", "--agent-uid", str(me.pw_uid),
           "--agent-gid", str(me.pw_gid), "--agent-user", me.pw_name,
           "--agent-group", me.pw_name)
    yield cl
    cl.stop()  # also ends a shell a failed test left running




def login(c, user, password):
    status, token = rest_login(c, user, password)
    assert status == 200 and token, (user, status)
    return token


def get_as(c, token, path):
    req = urllib.request.Request(c.url + path)
    req.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.read().decode()


def ready(c, sid):
    return c.get("/api/v1/tasks/" + sid)["task"]["allocations"][0]["isReady"]


def session_pids(sid):
    """The processes of this host running `sleep 617` in shell `sid`'s
    sessions (the agent runs here)."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                cmd = f.read()
            with open("/proc/%s/environ" % d, "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if cmd == b"sleep\x00617\x00" and ("DET_TASK_ID=" + sid).encode() in env:
            out.append(int(d))
    return out


def tunnel_status(c, sid):
    """The status of a bare WebSocket upgrade to the shell's proxy path, as
    the tunnel sends it (no credentials): 101 when it reaches sshd."""
    ws_url = c.url.replace("http", "ws", 1) + "/proxy/%s/" % sid
    try:
        ws = websocket.create_connection(ws_url, timeout=30)
    except websocket.WebSocketBadStatusException as e:
        return e.status_code
    try:
        ws.send_binary(b"SSH-2.0-probe\r\n")
        banner = ws.recv()
        assert banner.startswith(b"SSH-2.0-"), banner
        return 101
    finally:
        ws.close()


def test_shell_open_runs_commands_with_the_task_environment(c):
    out = ok(c, "shell", "start", "-d")
    sid = re.search(r"^([0-9a-f-]{36})$", out, re.M).group(1)
    wait_for("the shell to be ready", lambda: ready(c, sid), timeout=120)
    out = ok(c, "shell", "open", sid, "--", "echo", "hello-$((6*7))")
    assert "hello-42" in out, out
    out = ok(c, "shell", "open", sid, "--", "echo", "task=$DET_TASK_ID",
             "type=$DET_TASK_TYPE")
    assert "task=%s" % sid in out and "type=SHELL" in out, out
    # As upstream's test_open_shell: `det` in the session is its owner,
    # by DET_USER_TOKEN, with no login (a HOME of its own: no cached one).
    out = ok(c, "shell", "open", sid, "--", "HOME=$(mktemp -d)", "det", "user", "whoami")
    assert "You are logged in as user 'admin'" in out, out
    # The shell group's views of it.
    assert sid in ok(c, "shell", "list")
    assert "resources" in ok(c, "shell", "config", sid)
    assert "Server listening" in ok(c, "shell", "logs", sid)
    out = ok(c, "shell", "show-ssh-command", sid)
    assert "determined.cli.tunnel" in out and sid in out, out
    shell = c.get("/api/v1/shells/" + sid)["shell"]
    assert shell["privateKey"].startswith("-----BEGIN OPENSSH PRIVATE KEY-----")
    assert shell["addresses"] and shell["addresses"][0]["host_port"] > 0
    # The master's proxy carries raw TCP to sshd for the tunnel.
    assert tunnel_status(c, sid) == 101
    # sftp through the same tunnel (the agent runs on this host, so the
    # file lands here).
    key = os.path.join(c.home, "shell-key")
    with open(os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(shell["privateKey"])
    src, dst = os.path.join(c.home, "up.txt"), os.path.join(c.home, "landed.txt")
    with open(src, "w") as f:
        f.write("sent by sftp\n")
    p = subprocess.run(
        ["sftp", "-b", "-", "-o", "StrictHostKeyChecking=no",
         "-o", "UserKnownHostsFile=/dev/null", "-o", "IdentitiesOnly=yes", "-i", key,
         "-o", "ProxyCommand=%s -m determined.cli.tunnel %s %%h" % (sys.executable, c.url),
         "%s@%s" % (shell["agentUserGroup"]["user"], sid)],
        input="put %s %s\n" % (src, dst), capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    with open(dst) as f:
        assert f.read() == "sent by sftp\n"

    # Another user: no private key by id or in a list, and `det shell
    # open` cannot log in.
    ok(c, "user", "create", "eve", "--password", "Eve12345678")
    eve = login(c, "eve", "Eve12345678")
    seen = json.loads(get_as(c, eve, "/api/v1/shells/" + sid))["shell"]
    assert seen["privateKey"] == "" and seen["publicKey"] == shell["publicKey"]
    assert "PRIVATE KEY" not in get_as(c, eve, "/api/v1/shells")
    rc, out = det(c, "shell", "open", sid, "--", "echo", "hello-$((6*7))",
                  user="eve", password="Eve12345678")
    assert "hello-42" not in out, out
    assert "Permission denied" in out, out

    # A master SIGKILLed and restarted: the shell still opens (its key is
    # derived, not stored).
    c.kill_master()
    c.restart()
    assert ready(c, sid)
    out = ok(c, "shell", "open", sid, "--", "echo", "after-$((1+1))")
    assert "after-2" in out, out

    rc, out = det(c, "shell", "kill", sid, user="eve", password="Eve12345678")
    assert rc != 0, out
    # Killed while a session is open: the session's processes end too
    # (sshd runs each outside the agent's process group), and so does the
    # client's `det shell open`.
    e = dict(os.environ, DET_MASTER=c.url, HOME=c.home, DET_USER="admin", DET_PASS="",
             XDG_CONFIG_HOME=os.path.join(c.home, ".config"))
    e.pop("DET_USER_TOKEN", None)
    session = subprocess.Popen([DET, "shell", "open", sid, "--", "sleep", "617"], env=e,
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        wait_for("the session's sleep", lambda: session_pids(sid), timeout=60)
        ok(c, "shell", "kill", sid)
        wait_for("the shell to end", lambda: c.get("/api/v1/shells/" + sid)
                 ["shell"]["state"] == "STATE_TERMINATED", timeout=60)
        session.wait(timeout=60)
        assert session_pids(sid) == []
    finally:
        session.kill()
        session.wait()
    assert tunnel_status(c, sid) == 401
    # The private key is in no log of the master or the agents.
    secret = shell["privateKey"].splitlines()[2]
    assert secret not in c.master_log()
    for agent in c.agent_pids():
        assert secret not in c.agent_log(agent)

    # `det shell start` without -d waits and runs the command at once (the
    # agent's one slot is free again).
    out = ok(c, "shell", "start", "--", "echo", "started-$((2*3))", timeout=120)
    assert "started-6" in out, out
    other = re.search(r"det shell open ([0-9a-f-]{36})", out).group(1)
    ok(c, "shell", "kill", other)
