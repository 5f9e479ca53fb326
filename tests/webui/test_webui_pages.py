"""Upstream's everyday pages (workspaces, projects, moving an experiment,
compare, the model registry, users, settings, webhooks, templates, tasks:
a command, a JupyterLab notebook opened through the proxy, TensorBoards) in
Debian's Chromium against one real master with local agents
(ui_pages.mjs): each action through the UI, its effect read back from the
REST API; axe-core on every page; screenshots into
<build>/webui-shots/pages/."""
import os
import re
import shutil
import subprocess

import pytest

from conftest import EXAMPLE, ROOT, Cluster, experiment_yaml, wait_for
from harness.paths import BUILD

HERE = os.path.dirname(os.path.abspath(__file__))
DET = shutil.which("det")
NODE = shutil.which("node")
CHROMIUM = os.environ.get("DET_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="module")
def c(pg_server, tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("webui_pages"))
    # One agent always up: the provisioner does not count commands yet.
    cl = Cluster(pg_server, tmp, "e2e_webui_pages", idle="3s", max_instances=2, min_instances=1)
    yield cl
    cl.stop()


@pytest.mark.skipif(DET is None, reason="the det CLI is not installed")
@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_upstreams_pages_in_a_browser(c, tmp_path):
    if not os.path.exists(CHROMIUM):
        pytest.fail(CHROMIUM + " is missing: scripts/install-deps.sh installs Debian's chromium")
    for mod in ("playwright-core", "axe-core"):
        if not os.path.isdir(os.path.join(ROOT, "webui", "node_modules", mod)):
            pytest.fail("webui/node_modules has no %s: make webui runs npm ci" % mod)
    home = str(tmp_path / "home")
    os.makedirs(home)
    env = dict(os.environ, DET_MASTER=c.url, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"),
               DET_USER="admin", DET_PASS="")
    env.pop("DET_USER_TOKEN", None)
    config = tmp_path / "exp.yaml"
    config.write_text(experiment_yaml(max_length=20, trials=2, batch_delay=0.02, checkpoint_every=10)
                      .replace("name: e2e", "name: webui-pages", 1))
    p = subprocess.run([DET, "experiment", "create", str(config), EXAMPLE], env=env, capture_output=True,
                       text=True, timeout=120)
    m = re.search(r"Created experiment (\d+)", p.stdout)
    assert m, p.stdout + p.stderr
    exp = int(m.group(1))
    wait_for("the experiment to complete", lambda: c.experiment(exp)["state"] == "STATE_COMPLETED", timeout=180)
    shots = os.path.join(BUILD, "webui-shots", "pages")
    shutil.rmtree(shots, ignore_errors=True)
    os.makedirs(shots)
    env.update(DET_WEBUI_URL=c.url, DET_WEBUI_EXP=str(exp), DET_WEBUI_SHOTS=shots, DET_WEBUI_MODEL_DIR=EXAMPLE)
    p = subprocess.run([NODE, os.path.join(HERE, "ui_pages.mjs")], env=env, capture_output=True, text=True,
                       timeout=600)
    print(p.stdout)
    assert p.returncode == 0, p.stdout + p.stderr + "\nmaster log tail:\n" + c.master_log()[-3000:]
    names = sorted(os.listdir(shots))
    for page in ("sign-in", "workspaces", "workspace-projects", "project-experiments", "compare-trials", "trial",
                 "model", "models", "experiment-code", "compare-experiments", "experiment-hyperparameters", "trial-logs", "tasks", "task-logs", "tasks-notebook", "job-queue-tasks", "experiment-tensorboard", "tasks-tensorboards", "time-travel-experiment", "cluster-usage", "cluster-cost", "users", "settings", "webhooks", "templates", "cluster", "job-queue",
                 "event-log", "settings-dark", "phone-experiment"):
        assert any(n.endswith("-" + page + ".png") for n in names), (page, names)
    # What the UI did, as the API sees it (the script checked each step; the
    # end state once more here).
    assert c.experiment(exp)["projectId"] != 1
    assert c.get("/api/v1/models/mnist-ui/versions")["modelVersions"][0]["version"] == 1
    assert c.get("/api/v1/users/ui-user/by-username")["user"]["active"] is False
