"""det-master and det-agent ship their logs and metrics to CloudWatch (docs/cloudwatch.md):
against moto in server mode behind a loopback fault proxy
(tests/telemetry/fault_proxy.py), with a fake journalctl speaking the real
`-o json` format (journald does not run here) and a fake nvidia-smi printing
the real CSV. While CloudWatch answers 503 the master's API keeps
answering; once it is back, everything logged arrives, once."""
import json
import os
import subprocess
import sys
import time
import urllib.request

import pytest

from conftest import ROOT, free_port, wait_for

TELEMETRY = os.path.join(ROOT, "tests", "telemetry")
REGION = "us-west-2"


@pytest.fixture
def moto(tmp_path):
    d = str(tmp_path / "moto")
    url = subprocess.check_output([os.path.join(ROOT, "scripts", "moto.sh"), "start", d],
                                  text=True).strip()
    yield url
    subprocess.call([os.path.join(ROOT, "scripts", "moto.sh"), "stop", d])


@pytest.fixture
def proxy(moto):
    p = subprocess.Popen([sys.executable, os.path.join(TELEMETRY, "fault_proxy.py"), moto],
                         stdout=subprocess.PIPE, text=True)
    url = p.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:")
    yield url
    p.terminate()
    p.wait(timeout=10)


def set_mode(proxy, mode):
    urllib.request.urlopen(urllib.request.Request(proxy + "/__fault/" + mode, method="POST"),
                           timeout=10).read()


def proxy_state(proxy):
    return json.loads(urllib.request.urlopen(proxy + "/__fault", timeout=10).read())


def cw(moto, *args):
    out = subprocess.check_output(
        [sys.executable, os.path.join(TELEMETRY, "cw_check.py"), moto, REGION, *args],
        text=True)
    return json.loads(out)


def entry(i):
    return json.dumps({
        "__CURSOR": "s=e2e;i=%d" % i,
        "__REALTIME_TIMESTAMP": str(int(time.time() * 1e6)),
        "SYSLOG_IDENTIFIER": "sshd", "_PID": "99",
        "MESSAGE": "journal entry %d" % i}) + "\n"


def test_master_ships_journald_own_lines_and_metrics_through_an_outage(
        cluster_factory, tmp_path, moto, proxy):
    journal = tmp_path / "journal"
    journal.write_text("".join(entry(i) for i in range(1, 4)))
    group = "/determined/e2e/journald"
    extra = """
cluster_id: cw-e2e
cluster_name: cw-e2e
cloudwatch:
  enabled: true
  region: %s
  endpoint_url: %s
  log_group: %s
  log_stream: master-e2e
  journalctl: %s
  own_logs: "true"
  cursor_file: %s
  flush_interval: 100ms
  metrics_interval: 1s
  nvidia_smi: %s
""" % (REGION, proxy, group, os.path.join(TELEMETRY, "fake_journalctl"),
       tmp_path / "cursor", os.path.join(TELEMETRY, "fake_nvidia_smi"))
    env = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
           "AWS_EC2_METADATA_DISABLED": "true", "FAKE_JOURNAL": str(journal)}
    set_mode(proxy, "503")
    c = cluster_factory(extra_config=extra, env=env)
    # CloudWatch is down: the master keeps answering, promptly.
    wait_for("calls refused by the outage", lambda: proxy_state(proxy)["refused"] >= 5)
    for _ in range(20):
        t0 = time.monotonic()
        assert c.get("/api/v1/master")["clusterName"] == "cw-e2e"
        assert time.monotonic() - t0 < 2.0
    assert not (tmp_path / "cursor").exists()  # nothing accepted, nothing saved
    set_mode(proxy, "ok")

    def messages():
        try:
            return [m for _, m in cw(moto, "events", group, "master-e2e")]
        except subprocess.CalledProcessError:
            return []  # the group is not there yet
    wait_for("the journal in CloudWatch",
             lambda: sum(m.startswith("sshd[99]: journal entry") for m in messages()) == 3)
    got = messages()
    assert [m for m in got if m.startswith("sshd[")] == [
        "sshd[99]: journal entry %d" % i for i in (1, 2, 3)]
    # The master's own lines, logged while CloudWatch was down, arrived too.
    assert any(m.startswith("det-master[") and "serving http" in m for m in got), got[:20]
    wait_for("the cursor saved", lambda: (tmp_path / "cursor").exists()
             and (tmp_path / "cursor").read_text().strip() == "s=e2e;i=3")

    # Metrics: this host's, the fake GPUs', and the cluster gauges.
    def names():
        return {(n, d.get("Pool"), d.get("GPU")) for n, d in cw(moto, "metrics", "Determined")
                if d.get("Cluster") == "cw-e2e"}
    wait_for("metrics in CloudWatch", lambda: {
        ("MemoryUtilization", "master", None), ("CPUUtilization", "master", None),
        ("GPUUtilization", "master", "0"), ("SlotsUsed", "default", None),
        ("SlotsFree", "default", None), ("PendingTrials", "default", None),
        ("Instances", "default", None)} <= names())

    # A restart resumes after the saved cursor: new entries once, old ones
    # not again.
    c.stop()
    with open(journal, "a") as f:
        f.write(entry(4) + entry(5))
    c.start()
    wait_for("the new entries", lambda: sum(
        m.startswith("sshd[99]: journal entry") for m in messages()) >= 5)
    assert [m for m in messages() if m.startswith("sshd[")] == [
        "sshd[99]: journal entry %d" % i for i in range(1, 6)]


def test_agent_ships_journald_its_own_lines_and_host_metrics(
        cluster_factory, tmp_path, moto, proxy):
    # det-agent as the master's local pool starts it, with agent.yaml's
    # `cloudwatch:` section (what det-deploy's user data writes on EC2).
    journal = tmp_path / "journal"
    journal.write_text("".join(entry(i) for i in range(1, 3)))
    group = "/determined/e2e/journald"
    agent_yaml = tmp_path / "agent.yaml"
    agent_yaml.write_text("""
cloudwatch:
  enabled: true
  region: %s
  endpoint_url: %s
  log_group: %s
  log_stream: agent-e2e
  journalctl: %s
  own_logs: "true"
  cursor_file: %s
  flush_interval: 100ms
  metrics_interval: 1s
  nvidia_smi: %s
""" % (REGION, proxy, group, os.path.join(TELEMETRY, "fake_journalctl"),
       tmp_path / "agent-cursor", os.path.join(TELEMETRY, "fake_nvidia_smi")))
    env = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
           "AWS_EC2_METADATA_DISABLED": "true", "FAKE_JOURNAL": str(journal)}
    set_mode(proxy, "503")  # down when the agent starts: nothing is lost
    c = cluster_factory(extra_config="cluster_id: cw-agent\n", env=env, min_instances=1,
                        agent_args=["--config", str(agent_yaml)])
    wait_for("calls refused by the outage", lambda: proxy_state(proxy)["refused"] >= 3)
    assert not (tmp_path / "agent-cursor").exists()
    set_mode(proxy, "ok")

    def messages():
        try:
            return [m for _, m in cw(moto, "events", group, "agent-e2e")]
        except subprocess.CalledProcessError:
            return []
    wait_for("the agent's journal in CloudWatch",
             lambda: sum(m.startswith("sshd[99]: journal entry") for m in messages()) == 2)
    got = messages()
    assert [m for m in got if m.startswith("sshd[")] == [
        "sshd[99]: journal entry 1", "sshd[99]: journal entry 2"]
    # Its own lines, logged during the outage (the first once shipping is on).
    assert any(m.startswith("det-agent[") and "cloudwatch: shipping logs to " + group in m
               for m in got), got[:20]
    wait_for("the agent's cursor saved", lambda: (tmp_path / "agent-cursor").exists()
             and (tmp_path / "agent-cursor").read_text().strip() == "s=e2e;i=2")

    def names():
        return {(n, d.get("Pool"), d.get("GPU")) for n, d in cw(moto, "metrics", "Determined")}
    wait_for("the agent's host metrics", lambda: {
        ("CPUUtilization", "default", None), ("MemoryUtilization", "default", None),
        ("GPUUtilization", "default", "0")} <= names())
    assert c.get("/api/v1/agents")["agents"], "the agent registered with the master"
