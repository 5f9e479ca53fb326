"""det-master over TLS: HTTPS for the REST API and WSS for agents, with a
self-signed certificate the test makes (openssl CLI). A trial runs to
completion over it; agents with a wrong or missing token, or that do not
trust the certificate, are refused, and the master never logs a token."""
import os
import subprocess

import pytest

from conftest import BIN, experiment_yaml, wait_for
from test_cluster import ended

TOKEN = "e2e-agent-token-6d1f0c"
WRONG = "e2e-wrong-token-93ab77"


@pytest.fixture
def self_signed(tmp_path):
    cert, key = str(tmp_path / "master.crt"), str(tmp_path / "master.key")
    subprocess.check_call(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", key, "-out", cert, "-subj", "/CN=det-master-e2e",
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    return cert, key, cert  # self-signed: its own CA


def start_agent(c, tmp, agent_id, *args):
    work = os.path.join(tmp, agent_id)
    os.makedirs(work, exist_ok=True)
    log = open(os.path.join(work, "agent.log"), "w")
    return subprocess.Popen(
        [os.path.join(BIN, "det-agent"), "--master-url", c.url, "--agent-id", agent_id,
         "--work-dir", work, "--slots", "1", "--resource-pool", "default"] + list(args),
        stdout=log, stderr=subprocess.STDOUT, env={k: v for k, v in os.environ.items()
                                                    if k != "DET_AGENT_TOKEN"})


def agent_log(tmp, agent_id):
    return open(os.path.join(tmp, agent_id, "agent.log")).read()


def test_a_trial_completes_over_https_and_wss_and_bad_agents_are_refused(cluster_factory, self_signed, tmp_path):
    c = cluster_factory(tls=self_signed, agent_token=TOKEN, idle="60s", max_instances=1)
    assert c.url.startswith("https://")
    assert "serving https" in c.master_log()
    status, body = c.submit(experiment_yaml(max_length=20, batch_delay=0.01))
    assert status == 200, body
    exp_id = int(body["experiment"]["id"])
    e = ended(c, exp_id, timeout=120)
    assert e["state"] == "STATE_COMPLETED"
    trial = c.trials(exp_id)[0]
    assert trial["bestCheckpoint"]["totalBatches"] == 20  # reported over https
    (agent_id, _), = c.agent_pids().items()
    assert "connected to wss://127.0.0.1:%d/agents/ws" % c.port in c.agent_log(agent_id)

    tmp = str(tmp_path / "intruders")
    bad = {
        "wrong-token": start_agent(c, tmp, "wrong-token", "--ca-cert", self_signed[2],
                                   "--token", WRONG),
        "no-token": start_agent(c, tmp, "no-token", "--ca-cert", self_signed[2]),
        "untrusting": start_agent(c, tmp, "untrusting", "--token", TOKEN),
    }
    try:
        wait_for("two refusals in the master log",
                 lambda: c.master_log().count("missing or wrong agent token") >= 2,
                 timeout=30)
        wait_for("the untrusting agent to reject the certificate",
                 lambda: "certificate verify failed" in agent_log(tmp, "untrusting"),
                 timeout=30)
        for name, proc in bad.items():
            assert proc.poll() is None, name  # it keeps trying, with backoff
        for name in ("wrong-token", "no-token"):
            assert "HTTP 401" in agent_log(tmp, name), agent_log(tmp, name)
    finally:
        for proc in bad.values():
            proc.terminate()
            proc.wait(timeout=30)
    log = c.master_log()
    for name in bad:
        assert "agent %s connected" % name not in log
    assert TOKEN not in log and WRONG not in log
    for name in bad:
        assert WRONG not in agent_log(tmp, name) and TOKEN not in agent_log(tmp, name)
