"""Users, access tokens, the cluster message and the master's identity with
the real `det` CLI 0.38.1 and its SDK: `det user ls [--all]/edit/rename/
activate/deactivate/link-with-agent-user`, `det token create/list/describe/edit/revoke/login`,
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
    # As upstream: no cluster_name in master.yaml is "", and without
    # external sessions the login and logout URIs are "" (not null).
    status, master = http(c, "GET", "/api/v1/master", token=c.token)
    assert status == 200, master
    assert master["clusterName"] == "" and info["clusterName"] == "", master
    assert master["externalLoginUri"] == "" and master["externalLogoutUri"] == "", master
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
    ok(c, "user", "create", "erin3", "--password", "Erin123456")
    rc, out = det(c, "user", "rename", "erin2", "erin3")
    assert rc != 0 and "already exists" in out, out
    # As upstream, a non-admin is never renamed "admin" (in any case).
    rc, out = det(c, "user", "rename", "erin2", "Admin")
    assert rc != 0 and "cannot be renamed 'admin'" in out, out
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


def test_user_ls_leaves_out_deactivated_users_unless_all(c):
    ok(c, "user", "create", "hal", "--password", "Hal1234567")
    def names(*flags):
        rows = [[cell.strip() for cell in row.split("|")]
                for row in ok(c, "user", "ls", *flags).splitlines() if "|" in row]
        column = rows[0].index("Username")
        return {row[column] for row in rows[1:] if len(row) > column}

    assert "hal" in names(), names()
    ok(c, "user", "deactivate", "hal")
    assert "hal" not in names(), names()
    assert "hal" in names("--all"), names("--all")
    # The filter the CLI sends, through the API.
    status, body = http(c, "GET", "/api/v1/users?active=true", token=c.token)
    assert status == 200 and "hal" not in [u["username"] for u in body["users"]], body
    status, body = http(c, "GET", "/api/v1/users?active=sure", token=c.token)
    assert status == 400 and "active" in body["error"]["error"], body


def test_sdk_creates_a_user_with_its_agent_user_group_and_refuses_half_of_one(c):
    from determined.common.api import bindings as b
    from determined.common.api import errors
    from determined.experimental import client

    sess = client.Determined(master=c.url, user="admin", password="")._session
    group = b.v1AgentUserGroup(agentUid=1000, agentGid=1001, agentUser="username",
                               agentGroup="groupname")
    made = b.post_PostUser(sess, body=b.v1PostUserRequest(
        user=b.v1User(username="ivan", admin=False, active=True, agentUserGroup=group),
        password="Ivan123456"))
    assert made.user.agentUserGroup is not None
    assert made.user.agentUserGroup.to_json() == group.to_json()
    assert user_row(c, "ivan")["agentUserGroup"] == group.to_json()
    plain = b.post_PostUser(sess, body=b.v1PostUserRequest(
        user=b.v1User(username="ivo", admin=False, active=True), password="Ivo1234567"))
    assert plain.user.agentUserGroup is None

    half = b.v1AgentUserGroup(agentUid=1000, agentGid=1001)
    with pytest.raises(errors.APIException) as refused:
        b.post_PostUser(sess, body=b.v1PostUserRequest(
            user=b.v1User(username="ida", admin=False, active=True, agentUserGroup=half),
            password="Ida1234567"))
    assert "agentUid, agentGid, agentUser and agentGroup cannot be empty" in str(refused.value)
    assert user_row(c, "ida") is None
    with pytest.raises(errors.APIException):
        b.patch_PatchUser(sess, body=b.v1PatchUser(agentUserGroup=half),
                          userId=made.user.id)
    assert user_row(c, "ivan")["agentUserGroup"] == group.to_json()


def test_a_non_admin_cannot_take_admin_as_display_name(c):
    from determined.common.api import bindings as b
    from determined.common.api import errors
    from determined.experimental import client

    ok(c, "user", "create", "jo", "--password", "Jo12345678")
    sess = client.Determined(master=c.url, user="jo", password="Jo12345678")._session
    uid = user_row(c, "jo")["id"]
    b.patch_PatchUser(sess, body=b.v1PatchUser(displayName="renamed display-name"), userId=uid)
    assert user_row(c, "jo")["displayName"] == "renamed display-name"
    for name in ("Admin", " admin "):
        with pytest.raises(errors.APIException) as refused:
            b.patch_PatchUser(sess, body=b.v1PatchUser(displayName=name), userId=uid)
        assert "cannot be renamed 'admin'" in str(refused.value)
    assert user_row(c, "jo")["displayName"] == "renamed display-name"
    status, body = http(c, "PATCH", "/api/v1/users/%d" % uid, {"displayName": "ADMIN"},
                        token=login(c, "jo", "Jo12345678")[1])
    assert status == 400 and "displayName" in body["error"]["error"], body
    b.patch_PatchUser(sess, body=b.v1PatchUser(displayName=""), userId=uid)
    assert user_row(c, "jo")["displayName"] == ""


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
    # Only an admin sets or reads it (upstream's 403); everyone sees it in
    # master info. A bad end time is refused naming the field.
    ok(c, "user", "create", "gina", "--password", "Gina123456")
    rc, out = det(c, "master", "cluster-message", "set", "-m", "hi",
                  user="gina", password="Gina123456")
    assert rc != 0, out
    rc, out = det(c, "master", "cluster-message", "get",
                  user="gina", password="Gina123456")
    assert rc != 0 and "maintenance" not in out, out
    status, body = http(c, "GET", "/api/v1/master/cluster_message",
                        token=login(c, "gina", "Gina123456")[1])
    assert status == 403 and body["error"]["error"] == "user does not have permission", body
    info = json_of(ok(c, "master", "info", "--json", user="gina", password="Gina123456"))
    assert info["clusterMessage"]["message"] == "maintenance at 5pm", info
    status, body = http(c, "PUT", "/api/v1/master/cluster_message",
                        {"message": "x", "endTime": "tomorrow"}, token=c.token)
    assert status == 400 and "endTime" in body["error"]["error"], body
    c.restart()
    got = json_of(ok(c, "master", "cluster-message", "get", "--json"))
    assert got["clusterMessage"]["message"] == "maintenance at 5pm", got
    ok(c, "master", "cluster-message", "clear")
    got = json_of(ok(c, "master", "cluster-message", "get", "--json"))
    assert got.get("clusterMessage") is None, got


def test_a_cluster_message_scheduled_later_is_not_in_master_info_yet(c):
    ok(c, "master", "cluster-message", "set", "-m", "upgrade in 2035",
       "--start", "2035-01-01T00:00:00Z", "--duration", "22h")
    got = json_of(ok(c, "master", "cluster-message", "get", "--json"))["clusterMessage"]
    assert got["message"] == "upgrade in 2035", got
    assert got["endTime"] == "2035-01-01T22:00:00Z", got
    info = json_of(ok(c, "master", "info", "--json"))
    assert info.get("clusterMessage") is None, info
    ok(c, "master", "cluster-message", "clear")


def test_a_non_admin_gathers_a_support_bundle_of_their_own_trial(c, tmp_path):
    """`det trial support-bundle` as the trial's owner, not an admin: the
    bundle holds the trial's logs, the master's log and both API views."""
    import tarfile
    from conftest import EXAMPLE, experiment_yaml, wait_for

    ok(c, "user", "create", "bundler", "--password", "Bundler1234")
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(experiment_yaml(max_length=10, checkpoint_every=5))
    out = ok(c, "experiment", "create", str(cfg), EXAMPLE,
             user="bundler", password="Bundler1234")
    exp_id = int(out.split("Created experiment ")[1].split()[0])
    wait_for("the experiment to end", lambda: c.experiment(exp_id)["state"] in (
        "STATE_COMPLETED", "STATE_ERROR"), timeout=120)
    trial = c.trials(exp_id)[0]["id"]
    out = ok(c, "trial", "support-bundle", "-o", str(tmp_path), str(trial),
             user="bundler", password="Bundler1234")
    path = out.split("bundle path: ")[1].split()[0]
    with tarfile.open(path) as tar:
        files = {os.path.basename(m.name): m for m in tar.getmembers() if m.isfile()}
        assert set(files) == {"trial_logs.txt", "master_logs.txt",
                              "api_experiment_call.json", "api_trial_call.json"}, files
        logs = tar.extractfile(files["trial_logs.txt"]).read().decode()
        assert "step" in logs, logs[-2000:]
        trial_view = json.loads(tar.extractfile(files["api_trial_call.json"]).read())
        assert trial_view["id"] == trial and trial_view["experimentId"] == exp_id, trial_view
        assert tar.extractfile(files["master_logs.txt"]).read().strip()
