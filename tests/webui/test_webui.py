"""The WebUI served by det-master: its files over plain HTTP (cache
headers, the app's fallback, no way out of the bundle's folder, the API's
404s unchanged), the read routes it uses (inputs checked, 4xx naming the
field), and the whole app in Debian's Chromium driven by playwright-core
(ui_flow.mjs) against a real master with local agents, with experiments
submitted by the real det CLI."""
import http.client
import json
import os
import re
import shutil
import subprocess
import urllib.error
import urllib.request

import pytest

from conftest import EXAMPLE, ROOT, Cluster, experiment_yaml, wait_for
from harness.paths import BUILD

HERE = os.path.dirname(os.path.abspath(__file__))
DET = shutil.which("det")
NODE = shutil.which("node")
CHROMIUM = os.environ.get("DET_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="module")
def c(pg_server, tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("webui"))
    cl = Cluster(pg_server, tmp, "e2e_webui", idle="3s", max_instances=3)
    if "WebUI:" not in cl.master_log() or "no built bundle" in cl.master_log():
        cl.stop()
        pytest.fail("det-master found no WebUI bundle (make webui builds it): "
                    + cl.master_log()[-1000:])
    yield cl
    cl.stop()


def raw_get(c, path, headers=None):
    """GET `path` exactly as written (no client-side normalisation of ..)."""
    conn = http.client.HTTPConnection("127.0.0.1", c.port, timeout=10)
    conn.request("GET", path, headers=headers or {})
    r = conn.getresponse()
    body = r.read()
    conn.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, body


def api_get(c, path):
    req = urllib.request.Request(c.url + path, headers={"Authorization": "Bearer " + c.token})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_index_and_app_pages_are_served_under_det_without_a_session_and_never_cached(c):
    for path in ("/det/", "/det/experiments", "/det/experiments/12", "/det/trials/3", "/det/cluster",
                 "/det/login?next=/x"):
        status, headers, body = raw_get(c, path)
        assert status == 200, path
        assert headers["content-type"].startswith("text/html"), path
        assert headers["cache-control"] == "no-cache", path
        assert b'<div id="app">' in body, path
        assert "default-src 'self'" in headers["content-security-policy"]


def test_the_root_and_det_without_its_slash_redirect_to_the_app(c):
    for path in ("/", "/det", "/det?x=1"):
        status, headers, _ = raw_get(c, path)
        assert status == 301, path
        assert headers["location"] == "/det/", path


def test_pages_outside_det_are_json_404s_not_the_app(c):
    # What the app served before it moved under /det/, and upstream's
    # legacy paths a client expects JSON from: never index.html.
    for path in ("/experiments", "/experiments/12", "/trials/3", "/cluster", "/login", "/no/such/page",
                 "/assets/index.js", "/resources/allocation/nothing"):
        status, headers, body = raw_get(c, path)
        assert status == 404, path
        assert headers["content-type"].startswith("application/json"), path
        err = json.loads(body)["error"]
        assert err["code"] == 5 and path.split("?")[0] in err["error"], (path, err)


def test_hashed_assets_are_cached_for_a_year(c):
    _, _, index = raw_get(c, "/det/")
    assets = re.findall(rb'"(/[\w/.-]+\.(?:js|css))"', index)
    assert assets, index
    for a in assets:
        assert a.startswith(b"/det/assets/"), a
        status, headers, body = raw_get(c, a.decode())
        assert status == 200, a
        assert headers["cache-control"] == "public, max-age=31536000, immutable", a
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["content-type"].startswith("text/javascript" if a.endswith(b".js") else "text/css")
        assert len(body) > 100


def test_no_path_leaves_the_bundle(c):
    secret = open("/etc/hostname").read() if os.path.exists("/etc/hostname") else None
    for path in ("/../../../../etc/passwd", "/assets/../../../../etc/passwd",
                 "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/assets/..%2f..%2f..%2fetc%2fpasswd",
                 "/..%5c..%5cetc%5cpasswd", "//etc/passwd", "/assets//etc/passwd",
                 "/./index.html/../../etc/hostname", "/etc/hostname"):
        for p in (path, "/det" + path):
            status, headers, body = raw_get(c, p)
            assert b"root:" not in body, p
            if secret:
                assert secret.encode() not in body or b'<div id="app">' in body, p
            assert status in (200, 301, 400, 404), (p, status)
            if status == 200:  # only ever the app's own index.html
                assert b'<div id="app">' in body, p


def test_missing_files_are_404_not_the_app(c):
    for path in ("/det/assets/index-0000.js", "/det/favicon.ico", "/det/robots.txt"):
        status, headers, _ = raw_get(c, path)
        assert status == 404, path


def test_api_paths_keep_their_json_404_and_405(c):
    status, headers, body = raw_get(c, "/api/v1/no-such-route")
    assert status == 404
    assert json.loads(body)["error"]["reason"] == "NotFound"
    status, _, body = raw_get(c, "/api")
    assert status == 404 and json.loads(body)["error"]["code"] == 5
    # Only GET reaches the app: another method on an unknown path is the
    # API's 404 as before.
    conn = http.client.HTTPConnection("127.0.0.1", c.port, timeout=10)
    conn.request("POST", "/experiments", body=b"{}")
    r = conn.getresponse()
    assert r.status == 404 and json.loads(r.read())["error"]["code"] == 5
    conn.close()


def test_read_routes_refuse_bad_input_naming_the_field(c):
    cases = [
        ("/api/v1/trials/metrics/trial_metrics", "trialIds"),
        ("/api/v1/trials/metrics/trial_metrics?trialIds=abc", "trialIds"),
        ("/api/v1/trials/metrics/trial_metrics?trialIds=-1", "trialIds"),
        ("/api/v1/trials/metrics/trial_metrics?" + "&".join("trialIds=%d" % i for i in range(1, 102)), "trialIds"),
        ("/api/v1/trials/metrics/trial_metrics?trialIds=1&group=a.b", "group"),
        ("/api/v1/trials/0/timeline", "trial_id"),
        ("/api/v1/trials/x/timeline", "trial_id"),
        ("/api/v1/experiments?sortBy=SORT_BY_NOTHING", "sortBy"),
        ("/api/v1/experiments?orderBy=UP", "orderBy"),
        ("/api/v1/experiments?states=RUNNING", "states"),
        ("/api/v1/experiments?name=" + "x" * 300, "name"),
        ("/api/v1/job-queues?limit=many", "limit"),
    ]
    for path, field in cases:
        status, body = api_get(c, path)
        assert status == 400, (path, status, body)
        assert field in json.loads(body)["error"]["error"], (path, body)
    status, body = api_get(c, "/api/v1/trials/999999/timeline")
    assert status == 404, body
    # Without a session: 401, like every other API route.
    for path in ("/api/v1/trials/metrics/trial_metrics?trialIds=1", "/api/v1/job-queues",
                 "/api/v1/trials/1/timeline"):
        status, _, _ = raw_get(c, path)
        assert status == 401, path


def det(c, home, *args):
    env = dict(os.environ, DET_MASTER=c.url, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"),
               DET_USER="admin", DET_PASS="")
    env.pop("DET_USER_TOKEN", None)
    p = subprocess.run([DET] + list(args), env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, "det %s: %s" % (" ".join(args), p.stdout + p.stderr)
    return p.stdout


def create(c, home, tmp, name, config_text):
    path = os.path.join(tmp, name + ".yaml")
    with open(path, "w") as f:
        f.write(config_text.replace("name: e2e", "name: %s\nlabels: [webui]" % name, 1))
    out = det(c, home, "experiment", "create", path, EXAMPLE)
    m = re.search(r"Created experiment (\d+)", out)
    assert m, out
    return int(m.group(1))


@pytest.mark.skipif(DET is None, reason="the det CLI is not installed")
@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_app_in_a_browser(c, tmp_path):
    if not os.path.exists(CHROMIUM):
        pytest.fail(CHROMIUM + " is missing: scripts/install-deps.sh installs Debian's chromium")
    if not os.path.isdir(os.path.join(ROOT, "webui", "node_modules", "playwright-core")):
        pytest.fail("webui/node_modules has no playwright-core: make webui runs npm ci")
    home = str(tmp_path / "home")
    os.makedirs(home)
    # A: two short trials that complete. B: one trial that runs until it
    # is killed from the UI.
    a = create(c, home, str(tmp_path), "webui-a",
               experiment_yaml(max_length=40, trials=2, batch_delay=0.05, checkpoint_every=20))
    b = create(c, home, str(tmp_path), "webui-b",
               experiment_yaml(max_length=100000, trials=1, batch_delay=0.05, checkpoint_every=200))
    shots = os.path.join(BUILD, "webui-shots", "flow")
    shutil.rmtree(shots, ignore_errors=True)
    os.makedirs(shots)
    env = dict(os.environ, DET_WEBUI_URL=c.url, DET_WEBUI_EXP_A=str(a), DET_WEBUI_EXP_B=str(b),
               DET_WEBUI_SHOTS=str(shots), DET_MASTER=c.url, HOME=home,
               XDG_CONFIG_HOME=os.path.join(home, ".config"), DET_USER="admin", DET_PASS="")
    p = subprocess.run([NODE, os.path.join(HERE, "ui_flow.mjs")], env=env, capture_output=True,
                       text=True, timeout=600)
    print(p.stdout)
    assert p.returncode == 0, p.stdout + p.stderr + "\nmaster log tail:\n" + c.master_log()[-3000:]
    names = sorted(os.listdir(shots))
    for page in ("sign-in", "experiments", "cluster-with-agents", "experiment-completed", "trial-logs",
                 "trial-timeline", "job-queue", "event-log", "cluster-scaled-down"):
        assert any(page in n for n in names), (page, names)
    # What the UI did, as the API sees it.
    assert c.experiment(a)["state"] == "STATE_COMPLETED"
    assert c.experiment(b)["state"] == "STATE_CANCELED"


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_app_over_https(cluster_factory, tmp_path):
    if not os.path.exists(CHROMIUM):
        pytest.fail(CHROMIUM + " is missing: scripts/install-deps.sh installs Debian's chromium")
    cert, key = str(tmp_path / "master.crt"), str(tmp_path / "master.key")
    subprocess.check_call(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", key, "-out", cert, "-subj", "/CN=det-master-webui",
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    c = cluster_factory(tls=(cert, key, cert))
    assert c.url.startswith("https://")
    shots = tmp_path / "screenshots"
    shots.mkdir()
    env = dict(os.environ, DET_WEBUI_URL=c.url, DET_WEBUI_SHOTS=str(shots))
    p = subprocess.run([NODE, os.path.join(HERE, "ui_tls.mjs")], env=env, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert sorted(os.listdir(shots)) == ["https-cluster.png", "https-experiments.png"]


def test_metric_history_is_every_report_and_after_id_gives_the_rest(c):
    status, body = c.submit(experiment_yaml(max_length=20, trials=1, batch_delay=0.15))
    assert status == 200, body
    exp = body["experiment"]["id"]
    trial = wait_for("the trial", lambda: (c.trials(exp) or [None])[0], timeout=60)["id"]

    def reports(query):
        status, text = api_get(c, "/api/v1/trials/metrics/trial_metrics?trialIds=%d%s" % (trial, query))
        assert status == 200, text
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
        assert len(lines) == 1
        return lines[0]["result"]["metrics"]

    # Asked while the trial runs (a server may keep what it read), then
    # after: the history is whole either way.
    early = wait_for("a first report", lambda: reports("&group=training"), timeout=90)
    assert c.experiment(exp)["state"] != "STATE_COMPLETED" or len(early) == 4
    wait_for("the experiment to complete", lambda: c.experiment(exp)["state"] == "STATE_COMPLETED",
             timeout=120)
    training = reports("&group=training")
    validation = reports("&group=validation")
    # metrics_every 5 over 20 batches; a validation per checkpoint (10).
    assert [r["totalBatches"] for r in training] == [5, 10, 15, 20]
    assert [r["totalBatches"] for r in validation] == [10, 20]
    assert all(r["group"] == "training" and "loss" in r["metrics"]["avg_metrics"] for r in training)
    assert all("validation_loss" in r["metrics"]["validation_metrics"] for r in validation)
    assert reports("&group=other") == []
    ids = [r["id"] for r in training]
    assert ids == sorted(ids)
    # afterId: what the app follows a curve with. A server may answer more
    # (upstream ignores it); never less, and never a report not logged.
    later = reports("&group=training&afterId=%d" % ids[1])
    assert [r for r in later if r["id"] > ids[1]] == training[2:]
    assert all(r in training for r in later)
    assert [r for r in reports("&group=training&afterId=%d" % ids[-1]) if r["id"] > ids[-1]] == []
    # The trial's last report is what the trial's own view shows.
    assert c.get("/api/v1/trials/%d" % trial)["trial"]["totalBatchesProcessed"] == 20
