"""`det agent enable/disable` and `det slot list` with the real CLI: a
draining agent keeps its trial running and is given nothing new; enabling it
places the waiting trial on it at once; a non-admin may not do either. A
slot reads alone through the SDK's GetSlot; a free one has a null
container."""
import json
import os

import pytest

from conftest import experiment_yaml, wait_for
from test_cli import det, ok


def json_of(out):
    """The JSON document det printed (stderr, merged in, may add lines)."""
    start = min(i for i in (out.find("["), out.find("{")) if i >= 0)
    return json.JSONDecoder().raw_decode(out[start:])[0]


def agents(c):
    return json_of(ok(c, "agent", "list", "--json"))


def test_disable_with_drain_then_enable_with_the_real_cli(cluster_factory, tmp_path):
    c = cluster_factory(max_instances=1, idle="10m")
    c.home = str(tmp_path / "home")
    os.makedirs(c.home)
    status, body = c.submit(experiment_yaml(max_length=100000, batch_delay=0.05))
    assert status == 200, body
    first = int(body["experiment"]["id"])
    wait_for("a trial to run", lambda: any(
        t["state"] == "STATE_RUNNING" for t in c.trials(first)), timeout=90)
    [agent] = agents(c)
    agent_id = agent["id"]
    assert agent["enabled"] is True

    rc, out = det(c, "agent", "disable", "--drain", agent_id, user="determined")
    assert rc != 0 and "admin" in out.lower(), out

    out = ok(c, "agent", "disable", "--drain", agent_id)
    assert "Disabled agent %s" % agent_id in out, out
    assert "Tasks still in progress on draining nodes" in out, out
    [agent] = agents(c)
    assert agent["enabled"] is False and agent["draining"] is True, agent
    slots = json_of(ok(c, "slot", "list", "--json"))
    assert slots and all(s["enabled"] is False and s["draining"] is True for s in slots), slots
    # Its trial keeps running; a new experiment waits (max_instances=1, so
    # no other agent comes).
    assert any(t["state"] == "STATE_RUNNING" for t in c.trials(first))
    status, body = c.submit(experiment_yaml(max_length=20))
    second = int(body["experiment"]["id"])
    wait_for("the second trial to exist", lambda: c.trials(second), timeout=30)
    ok(c, "experiment", "kill", str(first))
    wait_for("the first trial to end", lambda: all(
        t["state"] not in ("STATE_RUNNING", "STATE_ACTIVE") for t in c.trials(first)),
        timeout=90)
    assert all(t["state"] in ("STATE_QUEUED", "STATE_ACTIVE") and not t.get("startTime")
               or t["state"] == "STATE_QUEUED" for t in c.trials(second)), c.trials(second)

    out = ok(c, "agent", "enable", agent_id)
    assert "Enabled agent %s" % agent_id in out, out
    [agent] = agents(c)
    assert agent["enabled"] is True and agent["draining"] is False, agent
    wait_for("the waiting experiment to complete on the enabled agent", lambda:
             c.experiment(second)["state"] == "STATE_COMPLETED", timeout=120)

    rc, out = det(c, "agent", "enable", "no-such-agent")
    assert rc != 0 and "not found" in out, out


def test_slot_disable_moves_the_trial_off_and_enable_brings_it_back(cluster_factory,
                                                                   tmp_path):
    c = cluster_factory(max_instances=1, idle="10m")
    c.home = str(tmp_path / "home")
    os.makedirs(c.home)
    status, body = c.submit(experiment_yaml(max_length=100000, batch_delay=0.05))
    assert status == 200, body
    exp_id = int(body["experiment"]["id"])
    running = lambda: [t for t in c.trials(exp_id) if t["state"] == "STATE_RUNNING"]
    wait_for("a trial to run", running, timeout=90)
    agent_id = agents(c)[0]["id"]
    # det agent list --json leaves slots out: read them from the API.
    slots = lambda: c.get("/api/v1/agents")["agents"][0]["slots"]

    rc, out = det(c, "slot", "disable", agent_id, "0", user="determined")
    assert rc != 0, out
    out = ok(c, "slot", "disable", agent_id, "0")
    assert "Disabled slot 0 of agent %s" % agent_id in out, out
    assert slots()["0"]["enabled"] is False, slots()
    # The trial checkpoints and stops; the only slot is off and the pool is
    # at its size, so it waits.
    wait_for("the trial to leave the slot",
             lambda: all(t["state"] != "STATE_RUNNING" for t in c.trials(exp_id)),
             timeout=90)
    # A free slot says so as upstream does: "container": null.
    assert "container" in slots()["0"] and slots()["0"]["container"] is None, slots()
    # The SDK's GetSlot (what upstream's tests read a slot with) and the
    # agent's slots, from the API.
    from determined.common.api import bindings as b
    from determined.common.api import errors
    from determined.experimental import client
    sess = client.Determined(master=c.url, user="admin", password="")._session
    slot = b.get_GetSlot(sess, agentId=agent_id, slotId="0").slot
    assert slot is not None and slot.enabled is False and slot.container is None
    listed = c.get("/api/v1/agents/%s/slots" % agent_id)["slots"]
    assert [s["id"] for s in listed] == ["0"] and listed[0]["container"] is None, listed
    with pytest.raises(errors.NotFoundException):
        b.get_GetSlot(sess, agentId=agent_id, slotId="7")
    with pytest.raises(errors.NotFoundException):
        b.get_GetSlot(sess, agentId="no-such-agent", slotId="0")

    ok(c, "slot", "enable", agent_id, "0")
    assert b.get_GetSlot(sess, agentId=agent_id, slotId="0").slot.enabled is True
    wait_for("the trial to run again", running, timeout=90)
    assert slots()["0"]["enabled"] is True
    assert slots()["0"]["container"]["state"] in ("STATE_STARTING", "STATE_RUNNING"), slots()
    rc, out = det(c, "slot", "disable", agent_id, "7")
    assert rc != 0 and "no slot 7" in out, out
    ok(c, "experiment", "kill", str(exp_id))


def test_disable_without_drain_kills_the_trial_and_it_resumes_without_a_restart(
        cluster_factory, tmp_path):
    # Upstream's test_disable_agent_experiment_resume: max_restarts 0, and a
    # trial whose batches are long (it would notice a gentle stop request
    # only at the end of one). The disable frees the slot at once; after the
    # enable the trial runs again and no restart is counted.
    c = cluster_factory(max_instances=1, idle="10m")
    c.home = str(tmp_path / "home")
    os.makedirs(c.home)
    status, body = c.submit(experiment_yaml(max_length=100000, batch_delay=30,
                                            max_restarts=0))
    assert status == 200, body
    exp_id = int(body["experiment"]["id"])
    running = lambda: [t for t in c.trials(exp_id) if t["state"] == "STATE_RUNNING"]
    wait_for("a trial to run", running, timeout=90)
    agent_id = agents(c)[0]["id"]
    slots = lambda: c.get("/api/v1/agents")["agents"][0]["slots"]

    out = ok(c, "agent", "disable", agent_id)
    assert "Disabled agent %s" % agent_id in out, out
    # Well within one 30 s batch: the allocation was killed, not asked.
    wait_for("the slot to be free", lambda: slots()["0"].get("container") is None,
             timeout=20)
    ok(c, "agent", "enable", agent_id)
    wait_for("the trial to run again", running, timeout=90)
    [trial] = c.trials(exp_id)
    assert trial["restarts"] == 0, trial
    assert c.experiment(exp_id)["state"] not in ("STATE_ERROR", "STATE_CANCELED"), \
        c.experiment(exp_id)
    ok(c, "experiment", "kill", str(exp_id))
