"""Notebooks with the real `det` CLI 0.38.1 (issue 30): `det notebook start`
runs JupyterLab as a process under a det-agent and waits until it reports
itself ready; Python then runs in a kernel over a WebSocket through the
master's proxy (`/proxy/<task id>/`); the proxy refuses another user, a
forged session and no credentials; `det notebook kill` ends it and the
proxy forgets it."""
import re
import shutil
import urllib.request

import pytest

from conftest import cli_cluster_fixture, wait_for
from harness import jupyter
from test_cli import det, ok
from test_cli import login as rest_login

DET = shutil.which("det")
try:
    import jupyterlab  # noqa: F401
    import websocket  # websocket-client
    HAVE = True
except ImportError:
    HAVE = False

pytestmark = pytest.mark.skipif(DET is None or not HAVE,
                                reason="needs det, jupyterlab, websocket-client")


c = cli_cluster_fixture("nbs")


def proxied(c, path, token=None, headers=None, method="GET", body=None):
    """(status, body) of a request to the master's proxy, no redirects."""
    return jupyter.proxied(c.url, path, token, headers, method, body)


def login(c, user, password):
    status, token = rest_login(c, user, password)
    assert status == 200 and token, (user, status)
    return token


def run_in_kernel(c, nid, nb_token, code):
    """Runs `code` in a new kernel over the proxied WebSocket; its stdout."""
    return jupyter.run_in_kernel(c.url, c.token, nid, nb_token, code)


def test_notebook_start_runs_python_in_a_kernel_through_the_proxy(c):
    out = ok(c, "notebook", "start", "--no-browser", timeout=300)
    assert "Jupyter Notebook is running at" in out
    m = re.search(r"/proxy/([0-9a-f-]+)/\?token=([0-9a-f]+)", out)
    assert m, out
    nid, nb_token = m.group(1), m.group(2)
    assert c.get("/api/v1/tasks/" + nid)["task"]["allocations"][0]["isReady"]

    assert run_in_kernel(c, nid, nb_token, "print(6 * 7)").strip() == "42"

    # JupyterLab's page, with the session alone (the proxy strips it).
    status, _ = proxied(c, "/proxy/%s/api/status?token=%s" % (nid, nb_token),
                        token=c.token)
    assert status == 200
    # Refusals: no credentials (a browser goes to the login page), a
    # forged session, another user, another task's token.
    assert proxied(c, "/proxy/%s/lab" % nid)[0] == 303
    assert proxied(c, "/proxy/%s/api/status" % nid, token="f" * 64,
                   method="POST", body=b"{}")[0] == 401
    ok(c, "user", "create", "eve", "--password", "Eve12345678")
    eve = login(c, "eve", "Eve12345678")
    # eve's session names her: not the owner, refused even with the token.
    for path in ("/proxy/%s/api/status" % nid,
                 "/proxy/%s/api/status?token=%s" % (nid, nb_token)):
        status, text = proxied(c, path, token=eve)
        assert status == 404 and "service not found" in text
        assert nb_token not in text
    listed = c.get("/api/v1/notebooks")["notebooks"]
    assert any(n["id"] == nid for n in listed)
    # eve sees no token in the listing.
    req = urllib.request.Request(c.url + "/api/v1/notebooks?users=admin")
    req.add_header("Authorization", "Bearer " + eve)
    with urllib.request.urlopen(req, timeout=30) as r:
        assert nb_token not in r.read().decode()
    # eve may not report its allocation ready either.
    alloc = c.get("/api/v1/tasks/" + nid)["task"]["allocations"][0]["allocationId"]
    assert proxied(c, "/api/v1/allocations/%s/ready" % alloc, token=eve,
                   method="POST", body=b"{}")[0] == 403

    # The notebook group's views of it; `open` hands the browser its
    # address (BROWSER: what Python's webbrowser runs).
    assert nid in ok(c, "notebook", "list")
    assert "description: JupyterLab (" in ok(c, "notebook", "config", nid)
    assert "jupyter" in ok(c, "notebook", "logs", nid).lower()
    out = ok(c, "notebook", "open", nid, env={"BROWSER": "echo"})
    assert nid in out, out
    out = ok(c, "notebook", "kill", nid)
    wait_for("the notebook to end", lambda: c.get("/api/v1/notebooks/" + nid)
             ["notebook"]["state"] == "STATE_TERMINATED", timeout=60)
    status, text = proxied(c, "/proxy/%s/api/status?token=%s" % (nid, nb_token),
                           token=c.token)
    assert status == 404 and "service not found" in text


def test_a_notebook_stays_reachable_after_the_master_is_killed(c):
    nid = ok(c, "notebook", "start", "--no-browser", "-d").strip()
    wait_for("the notebook to be ready", lambda: c.get("/api/v1/tasks/" + nid)
             ["task"]["allocations"][0]["isReady"], timeout=240)
    addr = c.get("/api/v1/notebooks/" + nid)["notebook"]["serviceAddress"]
    nb_token = addr.split("token=")[1]
    c.kill_master()
    c.restart()
    assert c.get("/api/v1/tasks/" + nid)["task"]["allocations"][0]["isReady"]
    assert run_in_kernel(c, nid, nb_token, "print('after', 1 + 1)").strip() == "after 2"
    ok(c, "notebook", "kill", nid)


def test_an_idle_notebook_is_killed_after_its_idle_timeout(c, tmp_path):
    # Its launcher asks Jupyter every 2 s and reports with the owner's
    # DET_USER_TOKEN; no kernel is open, so nothing puts the timeout off.
    cfg = tmp_path / "nb.yaml"
    cfg.write_text("idle_timeout: 30s\nenvironment:\n  environment_variables:\n"
                   "    - DET_IDLE_REPORT_SECONDS=2\n")
    out = ok(c, "notebook", "start", "--no-browser", "--config-file", str(cfg),
             timeout=300)
    nid = re.search(r"/proxy/([0-9a-f-]+)/", out).group(1)
    wait_for("the idle notebook to be killed", lambda: c.get(
        "/api/v1/notebooks/" + nid)["notebook"]["state"] == "STATE_TERMINATED",
        timeout=180)
    nb = c.get("/api/v1/notebooks/" + nid)["notebook"]
    assert nb["exitStatus"] == \
        "killed: idle for more than 30s: service is inactive", nb
    logs = ok(c, "task", "logs", nid)
    assert "reporting to the master whether Jupyter is idle, every 2 s" in logs, logs
    assert "cannot report" not in logs, logs

