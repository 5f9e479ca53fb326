"""Workspaces, projects, `det experiment move`, resource-pool bindings,
config templates (and `det experiment create --template`) and the model
registry, with the real `det` CLI 0.38.1 and the SDK behind it
(`determined.experimental.client`). Output is checked on content; a master
restart in the middle shows the records come back from the event log."""
import json
import os
import subprocess
import sys

import pytest

from conftest import EXAMPLE, Cluster, experiment_yaml, wait_for
from test_cli import DET, det, ok

pytestmark = pytest.mark.skipif(DET is None, reason="the det CLI is not installed")


@pytest.fixture(scope="module")
def c(pg_server, tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("records"))
    # "spare": a pool without agents, for bindings (the default pool is
    # never bound to a workspace).
    cl = Cluster(pg_server, tmp, "e2e_records", idle="10m", max_instances=1,
                 extra_pools="  - pool_name: spare\n")
    cl.home = os.path.join(tmp, "home")
    os.makedirs(cl.home)
    yield cl
    cl.stop()


def json_of(out):
    """The JSON document det printed (stderr, merged in, may add lines)."""
    start = min(i for i in (out.find("["), out.find("{")) if i >= 0)
    return json.JSONDecoder().raw_decode(out[start:])[0]


def write(c, name, text):
    path = os.path.join(c.home, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def create_experiment(c, *args):
    cfg = write(c, "exp.yaml", experiment_yaml(max_length=20, checkpoint_every=10))
    out = ok(c, "experiment", "create", cfg, EXAMPLE, *args)
    return int(out.strip().split("Created experiment ")[1].split()[0])


def test_workspaces_projects_and_moves_with_the_real_cli(c):
    out = ok(c, "workspace", "list")
    assert "Uncategorized" in out, out
    out = ok(c, "workspace", "create", "research", "--agent-uid", "1000",
             "--agent-user", "ml", "--checkpoint-storage-config",
             '{"type": "shared_fs", "host_path": "/tmp"}')
    assert "research" in out and "1000" in out and "ml" in out, out
    rc, out = det(c, "workspace", "create", "research")
    assert rc != 0 and "already exists" in out, out
    rc, out = det(c, "workspace", "create", "bad\x1bname")
    assert rc != 0 and "name" in out and "control character" in out, out

    w = json_of(ok(c, "workspace", "describe", "research", "--json"))
    assert w["name"] == "research" and w["id"] > 1
    assert w["agentUserGroup"]["agentUid"] == 1000
    assert w["checkpointStorageConfig"] == {"type": "shared_fs", "host_path": "/tmp"}
    out = ok(c, "workspace", "edit", "research", "--name", "lab")
    assert "lab" in out, out

    out = ok(c, "project", "create", "lab", "vision", "--description", "images",
             "--key", "VIS")
    assert "vision" in out and "images" in out and "VIS" in out, out
    rc, out = det(c, "project", "create", "lab", "vision")
    assert rc != 0 and "already exists" in out, out
    assert "vision" in ok(c, "workspace", "list-projects", "lab")
    out = ok(c, "project", "edit", "lab", "vision", "--description", "pictures")
    assert "pictures" in out, out
    assert "default" in ok(c, "workspace", "list-pools", "lab")

    p = json_of(ok(c, "project", "describe", "lab", "vision", "--json"))
    exp_id = create_experiment(c, "--project_id", str(p["id"]), "--paused")
    e = c.experiment(exp_id)
    assert (e["projectId"], e["projectName"], e["workspaceName"]) == (p["id"], "vision", "lab")
    # The list the CLI reads (its table has no project column in 0.38).
    assert str(exp_id) in ok(c, "experiment", "list", "--all")
    row = [x for x in c.get("/api/v1/experiments")["experiments"] if x["id"] == exp_id][0]
    assert row["projectName"] == "vision" and row["workspaceId"] == w["id"], row
    out = ok(c, "project", "list-experiments", "lab", "vision")
    assert str(exp_id) in out, out
    p = json_of(ok(c, "project", "describe", "lab", "vision", "--json"))
    assert p["numExperiments"] == 1 and p["numActiveExperiments"] == 1, p
    rc, out = det(c, "project", "delete", "lab", "vision", "--yes")
    assert rc != 0 and "experiment" in out, out

    # The records come back from the log.
    c.kill_master()
    c.start()
    assert "lab" in ok(c, "workspace", "list")
    assert c.experiment(exp_id)["projectName"] == "vision"

    out = ok(c, "experiment", "move", str(exp_id), "Uncategorized", "Uncategorized")
    assert 'Moved experiment %d to project "Uncategorized"' % exp_id in out, out
    e = c.experiment(exp_id)
    assert (e["projectId"], e["workspaceName"]) == (1, "Uncategorized"), e

    out = ok(c, "workspace", "archive", "lab")
    assert "Successfully archived workspace lab." in out, out
    assert json_of(ok(c, "workspace", "describe", "lab", "--json"))["archived"] is True
    rc, out = det(c, "experiment", "move", str(exp_id), "lab", "vision")
    assert rc != 0 and "archived" in out, out
    ok(c, "workspace", "unarchive", "lab")
    out = ok(c, "project", "archive", "lab", "vision")
    assert "Successfully archived project vision." in out, out
    # What describe shows (read at once, as a user would) has the change.
    assert json_of(ok(c, "project", "describe", "lab", "vision", "--json"))["archived"] is True
    ok(c, "project", "unarchive", "lab", "vision")
    assert json_of(ok(c, "project", "describe", "lab", "vision", "--json"))["archived"] is False
    out = ok(c, "project", "delete", "lab", "vision", "--yes")
    assert "Successfully deleted project vision." in out, out
    # A workspace goes with the projects left in it (as upstream).
    ok(c, "project", "create", "lab", "left")
    out = ok(c, "workspace", "delete", "lab", "--yes")
    assert "Successfully deleted workspace lab." in out, out
    assert "lab" not in ok(c, "workspace", "list")

    rc, out = det(c, "workspace", "delete", "Uncategorized", "--yes")
    assert rc != 0 and "default" in out, out
    ok(c, "experiment", "kill", str(exp_id))


def test_resource_pool_bindings_limit_who_may_use_a_pool(c):
    ok(c, "workspace", "create", "bound")
    # As upstream: the cluster's default pool is never bound.
    rc, out = det(c, "resource-pool", "bindings", "add", "default", "bound")
    assert rc != 0 and "default resource pool default cannot be bound" in out, out
    ok(c, "resource-pool", "bindings", "add", "spare", "bound")
    out = ok(c, "resource-pool", "bindings", "list-workspaces", "spare")
    assert "bound" in out, out
    assert "spare" in ok(c, "workspace", "list-pools", "bound")
    assert "spare" not in ok(c, "workspace", "list-pools", "Uncategorized")
    cfg = write(c, "exp.yaml", experiment_yaml(max_length=20).replace(
        "resources:\n", "resources:\n  resource_pool: spare\n"))
    rc, out = det(c, "experiment", "create", cfg, EXAMPLE, "--paused")
    assert rc != 0 and "not available to workspace id 1" in out, out
    ok(c, "resource-pool", "bindings", "remove", "spare", "bound")
    assert "spare" in ok(c, "workspace", "list-pools", "Uncategorized")
    ok(c, "workspace", "delete", "bound", "--yes")


def test_templates_with_the_real_cli(c):
    tpl = write(c, "tpl.yaml", "description: from the template\nmax_restarts: 7\n")
    out = ok(c, "template", "create", "base", tpl)
    assert "Created template base" in out, out
    rc, out = det(c, "template", "create", "base", tpl)
    assert rc != 0 and "already exists" in out, out
    out = ok(c, "template", "list")
    assert "base" in out and "Uncategorized" in out, out
    assert "from the template" in ok(c, "template", "describe", "base")
    tpl2 = write(c, "tpl2.yaml", "description: changed\n")
    out = ok(c, "template", "set-value", "config", "base", tpl2)
    assert "Updated template base" in out, out
    assert "changed" in ok(c, "template", "describe", "base")
    out = ok(c, "template", "set", "other", tpl)
    assert "Set template other" in out, out
    assert "max_restarts: 7" in ok(c, "template", "list", "--details")

    cfg = write(c, "exp.yaml", experiment_yaml(max_length=20))
    rc, out = det(c, "experiment", "create", cfg, EXAMPLE, "--template", "nope")
    assert rc != 0 and "template" in out and "'nope' not found" in out, out
    exp_id = create_experiment(c, "--template", "other", "--paused")
    config = c.experiment(exp_id)["config"]
    # The template fills what the config lacks; the config's own value wins.
    assert config["description"] == "from the template", config
    assert config["max_restarts"] == 2, config
    ok(c, "experiment", "kill", str(exp_id))

    # A template written for older masters (resources.slots, a legacy
    # field) still serves: its other resources reach the experiment.
    legacy = write(c, "legacy.yaml", "resources:\n  slots: 1\n  priority: 30\n")
    ok(c, "template", "create", "legacy", legacy)
    exp_id = create_experiment(c, "--template", "legacy", "--paused")
    resources = c.experiment(exp_id)["config"]["resources"]
    assert resources["priority"] == 30 and resources["slots_per_trial"] == 1, resources
    ok(c, "experiment", "kill", str(exp_id))

    for name in ("base", "other", "legacy"):
        assert "Removed template %s" % name in ok(c, "template", "remove", name)
    rc, out = det(c, "template", "describe", "base")
    assert rc != 0 and "not found" in out, out


SDK = """
import json, sys
from determined.experimental import client
client.login(master=sys.argv[1], user="admin", password="")
m = client.get_model("resnet")
m.set_description("sdk description")
m.add_metadata({"stage": "prod"})
m.set_labels(["vision"])
v = m.get_version()
print(json.dumps({
    "latest": v.model_version,
    "uuid": v.checkpoint.uuid,
    "versions": [x.model_version for x in m.list_versions()],
    "models": [x.name for x in client.list_models()],
    "by_id": client.get_model(m.model_id).name,
}))
m.archive()
"""


def test_the_model_registry_with_the_cli_and_the_sdk(c):
    exp_id = create_experiment(c)
    wait_for("experiment %d completed" % exp_id,
             lambda: c.experiment(exp_id)["state"] == "STATE_COMPLETED", timeout=180)
    ckpts = c.get("/api/v1/experiments/%d/checkpoints" % exp_id)["checkpoints"]
    uuid = ckpts[0]["uuid"]

    out = ok(c, "model", "create", "resnet", "--description", "a model")
    assert "resnet" in out and "a model" in out, out
    rc, out = det(c, "model", "create", "resnet")
    assert rc != 0 and "already exists" in out, out
    assert "resnet" in ok(c, "model", "list")
    rc, out = det(c, "model", "register-version", "resnet", "no-such-uuid")
    assert rc != 0 and "not found" in out, out
    out = ok(c, "model", "register-version", "resnet", uuid)
    assert uuid in out, out
    out = ok(c, "model", "list-versions", "resnet")
    assert uuid in out, out
    versions = json_of(ok(c, "model", "list-versions", "resnet", "--json"))
    assert [v["version"] for v in versions["modelVersions"]] == [1], versions
    assert versions["modelVersions"][0]["checkpoint"]["uuid"] == uuid
    out = ok(c, "model", "describe", "resnet", "--version", "1")
    assert uuid in out, out

    p = subprocess.run([sys.executable, "-c", SDK, c.url], capture_output=True,
                       text=True, timeout=120,
                       env=dict(os.environ, HOME=c.home))
    assert p.returncode == 0, p.stdout + p.stderr
    got = json.loads(p.stdout.strip().splitlines()[-1])
    assert got == {"latest": 1, "uuid": uuid, "versions": [1],
                   "models": ["resnet"], "by_id": "resnet"}, got
    m = json_of(ok(c, "model", "describe", "resnet", "--json"))
    assert m["description"] == "sdk description", m
    assert m["metadata"] == {"stage": "prod"} and m["archived"] is True, m

    ok(c, "workspace", "create", "models")
    ok(c, "model", "move", "resnet", "-w", "models")
    ws = json_of(ok(c, "workspace", "describe", "models", "--json"))
    assert c.get("/api/v1/models/resnet")["model"]["workspaceId"] == ws["id"]
    assert "resnet" in ok(c, "model", "list", "-w", "models")
    assert "resnet" not in ok(c, "model", "list", "-w", "Uncategorized")
    ok(c, "model", "delete", "resnet")
    assert "resnet" not in ok(c, "model", "list")
