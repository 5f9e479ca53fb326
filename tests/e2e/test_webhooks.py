"""Webhooks with the SDK's bindings (`determined.common.api.bindings`, the
calls behind `det`/WebUI of 0.38.1; the CLI has no webhook group) against a
loopback receiver: an experiment completing fires a signed COMPLETED
delivery with upstream's payload, Slack webhooks get Slack's shape, a
receiver that drops the first attempts still gets it (retry), a TASK_LOG
regex fires on a trial's log line, delete stops deliveries, and a restart
keeps the webhooks."""
import hashlib
import hmac
import http.server
import json
import os
import subprocess
import threading

import pytest

from conftest import BIN, Cluster, experiment_yaml, free_port, wait_for
from test_cli import DET

pytestmark = pytest.mark.skipif(DET is None, reason="determined is not installed")

KEY = "e2e-signing-key"


class Receiver:
    """A loopback HTTP server recording every POST; the first `drop` requests
    to /flaky get their connection closed without an answer."""

    def __init__(self, drop=2):
        self.got = []
        self.drop = drop
        self.down = set()  # paths answered 503
        self.lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with outer.lock:
                    outer.got.append((self.path, dict(self.headers), body))
                    drop = self.path == "/flaky" and outer.drop > 0
                    if drop:
                        outer.drop -= 1
                if drop:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                with outer.lock:
                    status = 503 if self.path in outer.down else 200
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def at(self, path):
        with self.lock:
            return [(h, b) for p, h, b in self.got if p == path]

    def stop(self):
        self.server.shutdown()


@pytest.fixture(scope="module")
def c(pg_server, tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("webhooks"))
    cl = Cluster(pg_server, tmp, "e2e_webhooks", idle="10m", max_instances=1,
                 extra_config="webhooks:\n  signing_key: %s\n" % KEY)
    yield cl
    cl.stop()


@pytest.fixture(scope="module")
def rx():
    r = Receiver()
    yield r
    r.stop()


def session(c):
    from determined.experimental import client
    return client.Determined(master=c.url, user="admin", password="")._session


def create(c, url, trigger, kind="DEFAULT", mode="WORKSPACE", name=""):
    from determined.common.api import bindings
    return bindings.post_PostWebhook(session(c), body=bindings.v1Webhook(
        url=url, webhookType=bindings.v1WebhookType[kind],
        mode=bindings.v1WebhookMode[mode], name=name, triggers=[trigger])).webhook


def on_state(state):
    from determined.common.api import bindings
    return bindings.v1Trigger(
        triggerType=bindings.v1TriggerType.EXPERIMENT_STATE_CHANGE,
        condition={"state": state})


def run_experiment(c):
    status, body = c.submit(experiment_yaml(max_length=10, checkpoint_every=10))
    assert status == 200, body
    exp_id = int(body["experiment"]["id"])
    wait_for("experiment %d completed" % exp_id,
             lambda: c.experiment(exp_id)["state"] == "STATE_COMPLETED", timeout=180)
    return exp_id


def signed(headers, body):
    t = headers["X-Determined-AI-Signature-Timestamp"]
    want = hmac.new(KEY.encode(), ("%s," % t).encode() + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(want, headers["X-Determined-AI-Signature"])


def test_every_field_is_checked_and_only_admins_create(c, rx):
    from determined.common.api import bindings, errors
    sess = session(c)
    with pytest.raises(errors.APIException) as e:
        create(c, "ftp://127.0.0.1/x", on_state("COMPLETED"))
    assert "url" in str(e.value), e.value
    with pytest.raises(errors.APIException) as e:
        create(c, rx.url + "/x", bindings.v1Trigger(
            triggerType=bindings.v1TriggerType.TASK_LOG, condition={"regex": "(a"}))
    assert "triggers[0].condition.regex" in str(e.value), e.value
    with pytest.raises(errors.APIException) as e:
        create(c, rx.url + "/x", on_state("FINISHED"))
    assert "condition.state" in str(e.value), e.value
    assert bindings.get_GetWebhooks(sess).webhooks == []
    c.post("/api/v1/users", {"user": {"username": "bob", "active": True, "admin": False},
                             "password": ""})
    from determined.experimental import client
    bob = client.Determined(master=c.url, user="bob", password="")._session
    # As upstream: an APIException (not a ForbiddenException), whatever
    # the body claims.
    with pytest.raises(errors.APIException) as e:
        bindings.post_PostWebhook(bob, body=bindings.v1Webhook(
            url=rx.url + "/x", webhookType=bindings.v1WebhookType.DEFAULT,
            mode=bindings.v1WebhookMode.WORKSPACE, name="", triggers=[on_state("ERROR")]))
    assert "non admin" in str(e.value), e.value
    # A body that claims to be an admin's changes nothing.
    with pytest.raises(errors.APIException) as e:
        bob.post("/api/v1/webhooks", json={
            "url": rx.url + "/x", "webhookType": "WEBHOOK_TYPE_DEFAULT", "name": "",
            "triggers": [], "asAdmin": True})
    assert "non admin" in str(e.value), e.value
    # bob's own workspace is his to hook.
    ws = bindings.post_PostWorkspace(bob, body=bindings.v1PostWorkspaceRequest(
        name="bobs")).workspace
    made = bindings.post_PostWebhook(bob, body=bindings.v1Webhook(
        url=rx.url + "/x", webhookType=bindings.v1WebhookType.DEFAULT,
        mode=bindings.v1WebhookMode.WORKSPACE, name="", triggers=[on_state("ERROR")],
        workspaceId=ws.id)).webhook
    assert made.workspaceId == ws.id
    bindings.delete_DeleteWebhook(bob, id=made.id)


def test_a_completed_experiment_fires_signed_deliveries_with_retries(c, rx):
    from determined.common.api import bindings
    done = create(c, rx.url + "/done", on_state("COMPLETED"), name="done")
    slack = create(c, rx.url + "/slack", on_state("COMPLETED"), kind="SLACK")
    create(c, rx.url + "/flaky", on_state("COMPLETED"))
    create(c, rx.url + "/log", bindings.v1Trigger(
        triggerType=bindings.v1TriggerType.TASK_LOG,
        condition={"regex": r"done at step \d+"}))
    listed = bindings.get_GetWebhooks(session(c)).webhooks
    assert [w.url for w in listed] == [rx.url + p for p in ("/done", "/slack", "/flaky", "/log")]
    assert listed[0].triggers[0].condition == {"state": "COMPLETED"}
    assert listed[0].triggers[0].webhookId == done.id

    exp_id = run_experiment(c)
    wait_for("the COMPLETED delivery", lambda: rx.at("/done"), timeout=30)
    headers, body = rx.at("/done")[0]
    assert signed(headers, body)
    p = json.loads(body)
    assert p["event_type"] == "EXPERIMENT_STATE_CHANGE"
    assert p["condition"] == {"state": "COMPLETED"}
    e = p["event_data"]["experiment"]
    assert (e["id"], e["state"], e["name"], e["resource_pool"], e["slots_per_trial"]) == \
        (exp_id, "COMPLETED", "e2e", "default", 1), p
    assert e["workspace"] == "Uncategorized" and e["project"] == "Uncategorized", p

    wait_for("the Slack delivery", lambda: rx.at("/slack"), timeout=30)
    s = json.loads(rx.at("/slack")[0][1])
    assert s["blocks"][0]["text"]["text"] == "Your experiment completed successfully 🎉"
    assert s["attachments"][0]["color"] == "#13B670"
    assert s["attachments"][0]["blocks"][0]["text"]["text"] == "✅ e2e (#%d)" % exp_id

    # Two attempts dropped, the third (after 1 s and 2 s of backoff) answered.
    wait_for("the retried delivery", lambda: len(rx.at("/flaky")) == 3, timeout=30)
    bodies = [b for _, b in rx.at("/flaky")]
    assert bodies[0] == bodies[2] and json.loads(bodies[2])["condition"]["state"] == "COMPLETED"

    wait_for("the TASK_LOG delivery", lambda: rx.at("/log"), timeout=30)
    h, b = rx.at("/log")[0]
    assert signed(h, b)
    t = json.loads(b)
    assert t["event_type"] == "TASK_LOG" and t["condition"] == {"regex": r"done at step \d+"}
    assert "done at step 10" in t["event_data"]["task_log"]["triggering_log"], t

    # The log records each delivery's outcome; det-inspect shows it.
    def ended():
        out = subprocess.run(
            [os.path.join(BIN, "det-inspect"), "--master", c.url, "events", "--type",
             "webhook_delivery_ended", "--limit", "100", "--json"],
            capture_output=True, text=True, timeout=60, env=dict(os.environ, DET_TOKEN=c.token))
        assert out.returncode == 0, out.stderr
        return [e["payload"] for e in json.loads(out.stdout)["events"]]
    wait_for("four deliveries recorded", lambda: len(ended()) == 4, timeout=30)
    assert all(e["delivered"] for e in ended()), ended()
    assert sorted(e["attempts"] for e in ended()) == [1, 1, 1, 3], ended()

    from determined.common.api import bindings as b2
    b2.delete_DeleteWebhook(session(c), id=done.id)
    before = len(rx.at("/slack"))
    run_experiment(c)
    wait_for("the second Slack delivery", lambda: len(rx.at("/slack")) > before, timeout=30)
    assert len(rx.at("/done")) == 1, "a deleted webhook was called"
    assert slack.id in [w.id for w in bindings.get_GetWebhooks(session(c)).webhooks]


def test_a_restart_keeps_the_webhooks_and_test_sends_upstreams_test_body(c, rx):
    from determined.common.api import bindings
    before = [(w.id, w.url) for w in bindings.get_GetWebhooks(session(c)).webhooks]
    assert before
    c.restart()
    after = [(w.id, w.url) for w in bindings.get_GetWebhooks(session(c)).webhooks]
    assert after == before
    slack_id = [i for i, u in after if u.endswith("/slack")][0]
    bindings.patch_PatchWebhook(session(c), id=slack_id,
                                body=bindings.v1PatchWebhook(url=rx.url + "/patched"))
    log_id = [i for i, u in after if u.endswith("/log")][0]
    bindings.post_TestWebhook(session(c), id=log_id)
    h, b = rx.at("/log")[-1]
    assert json.loads(b)["event_data"] == {"data": "test"} and signed(h, b)
    bindings.post_TestWebhook(session(c), id=slack_id)
    assert json.loads(rx.at("/patched")[-1][1])["blocks"][0]["text"]["text"] == "test"


def test_a_delivery_due_when_the_master_stops_is_sent_after_its_restart(c, rx):
    with rx.lock:
        rx.down.add("/down")
    hook = create(c, rx.url + "/down", on_state("COMPLETED"))
    exp_id = run_experiment(c)
    wait_for("a first, refused attempt", lambda: rx.at("/down"), timeout=30)
    c.restart()  # the delivery is still due: 5 attempts take 15 s
    with rx.lock:
        rx.down.discard("/down")
    n = len(rx.at("/down"))
    wait_for("the delivery after the restart", lambda: len(rx.at("/down")) > n, timeout=30)
    h, b = rx.at("/down")[-1]
    assert signed(h, b) and json.loads(b)["event_data"]["experiment"]["id"] == exp_id
    from determined.common.api import bindings
    bindings.delete_DeleteWebhook(session(c), id=hook.id)
