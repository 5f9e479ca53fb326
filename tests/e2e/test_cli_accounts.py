"""Users, access tokens, the cluster message and the master's identity with
the real `det` CLI 0.38.1: `det user edit/rename/activate/deactivate/
link-with-agent-user`, `det token create/list/describe/edit/revoke/login`,
`det master cluster-message set/get/clear` and `det master info`; every
change survives a master restart (it is in the event log)."""
import json
import os
import re
import uuid

import pytest

from conftest import Cluster
from test_cli import det, http, login, ok


def json_of(out):
    """The JSON document det printed (stderr, merged in, may add lines)."""
    start = min(i for i in (out.find("["), out.find("{")) if i >= 0)
    return json.JSONDecoder().raw_decode(out[start:])[0]


@pytest.fixture(scope="module")
def c(pg_server, tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("accounts"))
    cl = Cluster(pg_server, tmp, "e2e_accounts", idle="10m", max_instances=1)
    cl.home = os.path.join(tmp, "home")
    os.makedirs(cl.home)
    yield cl
    cl.stop()


def user_row(c, name):
    """The user as the API lists it; `det user list` (no --json) shows the
    same row as a table."""
    status, body = http(c, "GET", "/api/v1/users", token=c.token)
    assert status == 200, body
    rows = [r for r in body["users"] if r["username"] == name]
    return rows[0] if rows else None


def test_master_info_names_uuids_that_survive_a_restart(c):
    info = json_of(ok(c, "master", "info", "--json"))
    cluster_id = info["clusterId"]
    assert str(uuid.UUID(cluster_id)) == cluster_id
    assert str(uuid.UUID(info["masterId"])) == info["masterId"]
    assert info["clusterName"] == "determined"
    c.restart()
    again = json_of(ok(c, "master", "info", "--json"))
    assert again["clusterId"] == cluster_id  # the cluster's, from the log
    assert again["masterId"] != info["masterId"]  # this process's own


def test_edit_rename_deactivate_and_link_a_user(c):
    ok(c, "user", "create", "erin", "--password", "Erin123456")
    out = ok(c, "user", "edit", "erin", "--display-name", "Erin E.")
    assert user_row(c, "erin")["displayName"] == "Erin E.", out
    row = [l for l in ok(c, "user", "list").splitlines() if " erin " in l]
    assert row and "Erin E." in row[0], row
    ok(c, "user", "link-with-agent-user", "erin", "--agent-uid", "1234",
       "--agent-gid", "1235", "--agent-user", "erin", "--agent-group", "ml")
    row = user_row(c, "erin")
    assert row["agentUserGroup"] == {"agentUid": 1234, "agentGid": 1235,
                                     "agentUser": "erin", "agentGroup": "ml"}, row
    # A non-admin may not change another account, nor make itself admin.
    as_erin = {"user": "erin", "password": "Erin123456"}
    rc, out = det(c, "user", "deactivate", "admin", **as_erin)
    assert rc != 0, out
    status, body = http(c, "PATCH", "/api/v1/users/%d" % row["id"], {"admin": True},
                        token=login(c, "erin", "Erin123456")[1])
    assert status == 403 and "admin only" in body["error"]["error"], body

    ok(c, "user", "deactivate", "erin")
    assert user_row(c, "erin")["active"] is False
    assert login(c, "erin", "Erin123456")[0] == 403
    ok(c, "user", "activate", "erin")
    assert login(c, "erin", "Erin123456")[0] == 200

    ok(c, "user", "rename", "erin", "erin2")
    assert user_row(c, "erin") is None
    assert user_row(c, "erin2")["displayName"] == "Erin E."
    assert login(c, "erin2", "Erin123456")[0] == 200
    rc, out = det(c, "user", "rename", "erin2", "admin")
    assert rc != 0 and "already exists" in out, out
    # Bad values are refused naming the field; nothing is written.
    uid = user_row(c, "erin2")["id"]
    for body, field in (({"displayName": "a\x00b"}, "displayName"),
                        ({"username": "x" * 200}, "username"),
                        ({"agentUserGroup": {"agentUid": -5}}, "agentUid"),
                        ({"colour": "red"}, "colour")):
        status, answer = http(c, "PATCH", "/api/v1/users/%d" % uid, body, token=c.token)
        assert status == 400 and field in answer["error"]["error"], (body, answer)
    # The admin cannot lock itself out.
    status, answer = http(c, "PATCH", "/api/v1/users/1", {"active": False}, token=c.token)
    assert status == 400, answer

    c.restart()
    row = user_row(c, "erin2")
    assert row["displayName"] == "Erin E." and row["active"] is True
    assert row["agentUserGroup"]["agentUid"] == 1234


def test_access_tokens_authenticate_until_revoked(c):
    ok(c, "user", "create", "frank", "--password", "Frank12345")
    out = ok(c, "token", "create", "frank", "--description", "ci job",
             "--expiration-days", "2")
    m = re.search(r"TokenID: (\d+)\s+Access-Token: (\S+)", out)
    assert m, out
    token_id, token = int(m.group(1)), m.group(2)
    status, me = http(c, "GET", "/api/v1/me", token=token)
    assert status == 200 and me["user"]["username"] == "frank", me

    listed = json_of(ok(c, "token", "list", "--json"))
    mine = [t for t in listed if t["id"] == token_id]
    assert mine and mine[0]["description"] == "ci job" and mine[0]["revoked"] is False
    assert mine[0]["tokenType"] == "TOKEN_TYPE_ACCESS_TOKEN" and mine[0]["expiry"]
    described = json_of(ok(c, "token", "describe", str(token_id), "--json"))
    assert [t["id"] for t in described] == [token_id]

    out = ok(c, "token", "edit", str(token_id), "--description", "nightly")
    assert "Successfully updated token" in out, out
    assert json_of(ok(c, "token", "describe", str(token_id), "--json"))[0]["description"] \
        == "nightly"

    # `det token login` stores the token; later commands run as frank.
    rc, out = det(c, "token", "login", token, user=None)
    assert rc == 0 and "Authenticated as frank" in out, out
    rc, out = det(c, "user", "whoami", user=None)
    assert "frank" in out, out

    for body, field in (({"userId": 1, "lifespan": "3 days"}, "lifespan"),
                        ({"userId": 1, "description": "x\x01"}, "description"),
                        ({"userId": 999}, "999")):
        status, answer = http(c, "POST", "/api/v1/tokens", body, token=c.token)
        assert status in (400, 404) and field in answer["error"]["error"], (body, answer)

    c.restart()
    assert http(c, "GET", "/api/v1/me", token=token)[0] == 200
    out = ok(c, "token", "revoke", str(token_id))
    assert "Successfully revoked token" in out, out
    assert http(c, "GET", "/api/v1/me", token=token)[0] == 401
    assert all(t["id"] != token_id for t in json_of(ok(c, "token", "list", "--json")))
    shown = json_of(ok(c, "token", "list", "--show-inactive", "--json"))
    assert [t["revoked"] for t in shown if t["id"] == token_id] == [True]
    # A revoked token stays revoked.
    status, answer = http(c, "PATCH", "/api/v1/tokens/%d" % token_id,
                          {"setRevoked": False}, token=c.token)
    assert http(c, "GET", "/api/v1/me", token=token)[0] == 401


def test_cluster_message_set_get_clear(c):
    assert "No cluster-wide message" in ok(c, "master", "cluster-message", "get") \
        or json_of(ok(c, "master", "cluster-message", "get", "--json")).get(
            "clusterMessage") is None
    ok(c, "master", "cluster-message", "set", "-m", "maintenance at 5pm",
       "--duration", "2h")
    got = json_of(ok(c, "master", "cluster-message", "get", "--json"))
    assert got["clusterMessage"]["message"] == "maintenance at 5pm", got
    assert got["clusterMessage"]["endTime"], got
    info = json_of(ok(c, "master", "info", "--json"))
    assert info["clusterMessage"]["message"] == "maintenance at 5pm", info
    # Only an admin sets it; a bad end time is refused naming the field.
    ok(c, "user", "create", "gina", "--password", "Gina123456")
    rc, out = det(c, "master", "cluster-message", "set", "-m", "hi",
                  user="gina", password="Gina123456")
    assert rc != 0, out
    status, body = http(c, "PUT", "/api/v1/master/cluster_message",
                        {"message": "x", "endTime": "tomorrow"}, token=c.token)
    assert status == 400 and "endTime" in body["error"]["error"], body
    c.restart()
    got = json_of(ok(c, "master", "cluster-message", "get", "--json"))
    assert got["clusterMessage"]["message"] == "maintenance at 5pm", got
    ok(c, "master", "cluster-message", "clear")
    got = json_of(ok(c, "master", "cluster-message", "get", "--json"))
    assert got.get("clusterMessage") is None, got
