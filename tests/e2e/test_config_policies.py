"""Config policies (`det config-policies set|describe|delete`, global and
per workspace) with the real `det` CLI 0.38.1: what they print, what the
REST API then answers, who may change them, what is refused, how they hold
experiment creation to their constraints and merge their invariant config,
and that a restarted master (the event log replayed) keeps them."""
import os

import pytest
import yaml

from conftest import EXAMPLE, Cluster, experiment_yaml
from test_cli import DET, det, http, login, ok

pytestmark = pytest.mark.skipif(DET is None, reason="the det CLI is not installed")

POLICIES = """constraints:
  priority_limit: 10
  resources:
    max_slots: 4
invariant_config:
  records_per_epoch: 100
"""


@pytest.fixture(scope="module")
def c(pg_server, tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("policies"))
    cl = Cluster(pg_server, tmp, "e2e_policies", idle="10m", max_instances=1)
    cl.home = os.path.join(tmp, "home")
    os.makedirs(cl.home)
    yield cl
    cl.stop()


def write(c, name, text):
    path = os.path.join(c.home, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def admin_token(c):
    status, token = login(c, "admin")
    assert status == 200
    return token


def workspace_id(c, name):
    status, body = http(c, "GET", "/api/v1/workspaces?name=" + name, token=admin_token(c))
    assert status == 200, body
    return body["workspaces"][0]["id"]


def test_set_describe_delete_with_the_real_cli(c):
    ok(c, "workspace", "create", "team")
    wid = workspace_id(c, "team")
    path = write(c, "policies.yaml", POLICIES)
    out = ok(c, "config-policies", "set", "experiment", path, "--workspace-name", "team")
    assert out.startswith("Set experiment config policies for workspace team:"), out
    assert yaml.safe_load(out.split(":\n", 1)[1]) == yaml.safe_load(POLICIES), out
    out = ok(c, "config-policies", "set", "tasks",
             write(c, "ntsc.json", '{"constraints": {"priority_limit": 10}}'))
    assert "Set global tasks config policies" in out, out

    t = admin_token(c)
    status, body = http(c, "GET", "/api/v1/config-policies/workspaces/%d/EXPERIMENT" % wid,
                        token=t)
    assert status == 200 and body["configPolicies"] == yaml.safe_load(POLICIES), body
    status, body = http(c, "GET", "/api/v1/config-policies/global/NTSC", token=t)
    assert body["configPolicies"] == {"constraints": {"priority_limit": 10}}, body
    status, body = http(c, "GET", "/api/v1/config-policies/global/EXPERIMENT", token=t)
    assert status == 200 and body["configPolicies"] == {}, body

    out = ok(c, "config-policies", "describe", "experiment", "--workspace-name", "team",
             "--json")
    assert yaml.safe_load(out) == yaml.safe_load(POLICIES), out

    # The event log holds them: a restarted master answers the same.
    c.restart()
    status, body = http(c, "GET", "/api/v1/config-policies/workspaces/%d/EXPERIMENT" % wid,
                        token=admin_token(c))
    assert body["configPolicies"] == yaml.safe_load(POLICIES), body

    out = ok(c, "config-policies", "delete", "experiment", "--workspace-name", "team")
    assert "Successfully deleted" in out, out
    status, body = http(c, "GET", "/api/v1/config-policies/workspaces/%d/EXPERIMENT" % wid,
                        token=admin_token(c))
    assert status == 200 and body["configPolicies"] == {}, body
    ok(c, "config-policies", "delete", "tasks")
    status, body = http(c, "GET", "/api/v1/config-policies/global/NTSC", token=admin_token(c))
    assert body["configPolicies"] == {}, body


def test_refusals_name_the_field(c):
    rc, out = det(c, "config-policies", "set", "experiment",
                  write(c, "bad.yaml", "constraints:\n  priority_limit: high\n"))
    assert rc != 0 and "constraints.priority_limit" in out, out
    rc, out = det(c, "config-policies", "set", "experiment",
                  write(c, "typo.yaml", "constraint:\n  priority_limit: 1\n"))
    assert rc != 0 and "constraint" in out, out
    rc, out = det(c, "config-policies", "set", "tasks",
                  write(c, "inv.yaml", "invariant_config:\n  description: x\n"))
    assert rc != 0 and "invariant_config" in out, out
    rc, out = det(c, "config-policies", "set", "experiment",
                  write(c, "unknown.yaml", "invariant_config:\n  resourcez: {}\n"))
    assert rc != 0 and "invariant_config" in out and "resourcez" in out, out

    t = admin_token(c)
    status, body = http(c, "PUT", "/api/v1/config-policies/global/TASKS",
                        {"workloadType": "TASKS", "configPolicies": "{}"}, token=t)
    assert status == 400 and "workloadType" in body["error"]["error"], body
    status, body = http(c, "PUT", "/api/v1/config-policies/global/EXPERIMENT",
                        {"workloadType": "EXPERIMENT",
                         "configPolicies": "constraints:\n  priority_limit: 1\x00\n"},
                        token=t)
    assert status == 400 and "configPolicies" in body["error"]["error"], body
    status, body = http(c, "PUT", "/api/v1/config-policies/global/EXPERIMENT",
                        {"workloadType": "EXPERIMENT", "configPolicies": ""}, token=t)
    assert status == 400 and "configPolicies" in body["error"]["error"], body
    status, body = http(c, "GET", "/api/v1/config-policies/workspaces/9999/EXPERIMENT",
                        token=t)
    assert status == 404, body
    # Nothing was written.
    status, body = http(c, "GET", "/api/v1/config-policies/global/EXPERIMENT", token=t)
    assert body["configPolicies"] == {}, body


def test_only_admins_and_the_owner_change_them(c):
    ok(c, "user", "create", "olga", "--password", "Olga123456")
    ok(c, "user", "create", "pete", "--password", "Pete123456")
    ok(c, "workspace", "create", "olgas", user="olga", password="Olga123456")
    path = write(c, "p.yaml", POLICIES)
    rc, out = det(c, "config-policies", "set", "experiment", path, user="olga",
                  password="Olga123456")
    assert rc != 0 and "admin" in out, out
    rc, out = det(c, "config-policies", "set", "experiment", path, "--workspace-name",
                  "olgas", user="pete", password="Pete123456")
    assert rc != 0 and "olgas" in out, out
    ok(c, "config-policies", "set", "experiment", path, "--workspace-name", "olgas",
       user="olga", password="Olga123456")
    # Everyone may read them.
    out = ok(c, "config-policies", "describe", "experiment", "--workspace-name", "olgas",
             user="pete", password="Pete123456")
    assert yaml.safe_load(out) == yaml.safe_load(POLICIES), out
    ok(c, "config-policies", "delete", "experiment", "--workspace-name", "olgas")


def test_experiments_are_held_to_the_policies(c):
    ok(c, "config-policies", "set", "experiment", write(c, "g.yaml", """constraints:
  resources:
    max_slots: 1
invariant_config:
  description: set by the admin
"""))
    try:
        big = write(c, "big.yaml", experiment_yaml(max_length=20).replace(
            "resources:\n", "resources:\n  max_slots: 2\n", 1))
        rc, out = det(c, "experiment", "create", big, EXAMPLE)
        assert rc != 0 and "resources.max_slots" in out and "limit of 1" in out, out

        cfg = write(c, "exp.yaml", experiment_yaml(max_length=20))
        out = ok(c, "experiment", "create", cfg, EXAMPLE, "--paused")
        exp_id = int(out.strip().split("Created experiment ")[1].split()[0])
        e = c.experiment(exp_id)
        assert e["config"]["description"] == "set by the admin", e["config"]
    finally:
        ok(c, "config-policies", "delete", "experiment")
