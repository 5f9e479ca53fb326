"""What would it cost: POST /api/v1/resource-pools/{pool}/simulate runs the
trials the cluster really ran in a pool, read from its own event log, again
through det-sim under the pool's fleet with the body's changes, beside
Determined's defaults and two autoscalers' rules. The figures obey the
bounds, the same question gets the same bytes, and every bad field, an
unknown pool and a non-admin are refused."""
from conftest import experiment_yaml, wait_for
from test_cli import hashed, http, login

PATH = "/api/v1/resource-pools/default/simulate"


def test_a_pools_own_trials_are_simulated_again_under_another_fleet(cluster_factory):
    c = cluster_factory(max_instances=2, idle="3s")
    status, body = c.submit(experiment_yaml(max_length=20, trials=2))
    assert status == 200, body
    exp = int(body["experiment"]["id"])
    wait_for("the experiment to complete",
             lambda: c.experiment(exp)["state"] == "STATE_COMPLETED", timeout=180)

    ask = {"pricePerHour": 3.06, "gpusPerInstance": 1, "idleSeconds": 60, "bootSeconds": 90}
    status, out = c.post(PATH, ask)
    assert status == 200, out
    assert out["pool"] == "default"
    assert out["bounds"]["jobs"] == len(c.trials(exp)) == 2
    assert out["bounds"]["gpus_per_instance"] == 1
    assert [r["policy"] for r in out["runs"]] == ["ours", "det-20m", "det-5m", "ca", "karpenter"]
    for r in out["runs"]:
        # No fleet does the work in fewer instance-hours than the work.
        assert r["instance_hours"] >= out["bounds"]["work_h"] - 0.01, r
        assert abs(r["cost"] - r["instance_hours"] * 3.06) <= 0.02, r
        assert r["never_started"] == 0 and not r["stalled"], r
    # Determined's 20-minute idle period keeps instances longer than our 60 s.
    by = {r["policy"]: r for r in out["runs"]}
    assert by["det-20m"]["instance_hours"] > by["ours"]["instance_hours"], by
    assert out["svg"].lstrip().startswith("<svg") and "karpenter" in out["svg"]
    # The same question, the same answer; a chosen policy alone.
    assert c.post(PATH, ask) == (200, out)
    status, one = c.post(PATH, dict(ask, policies=["karpenter"]))
    assert status == 200 and [r["policy"] for r in one["runs"]] == ["karpenter"]
    assert one["runs"][0] == by["karpenter"]

    for bad, field in [({"gpusPerInstance": 0}, "gpusPerInstance"),
                       ({"idleSeconds": "5m"}, "idleSeconds"),
                       ({"maxInstances": 1.5}, "maxInstances"),
                       ({"pricePerHour": -1}, "pricePerHour"),
                       ({"bootSeconds": 10 ** 9}, "bootSeconds"),
                       ({"policies": ["magic"]}, "policies"),
                       ({"policies": []}, "policies"),
                       ({"nope": 1}, "nope"),
                       ({"idle\u0000Seconds": 1}, "NUL")]:
        status, err = c.post(PATH, bad)
        assert status == 400 and field in err["error"]["error"], (bad, status, err)
    # The refusal lists every policy the route takes, each of which runs.
    status, err = c.post(PATH, {"policies": ["magic"]})
    known = err["error"]["error"].split("known: ", 1)[1].split(", ")
    assert "ours+self-stop-drop-exits" in known and len(known) >= 7, known
    status, every = c.post(PATH, dict(ask, policies=known))
    assert status == 200 and [r["policy"] for r in every["runs"]] == known, every
    status, err = c.post("/api/v1/resource-pools/no-such-pool/simulate", {})
    assert status == 404 and "no-such-pool" in err["error"]["error"]
    status, _ = http(c, "POST", "/api/v1/users", token=c.token, body={
        "user": {"username": "sim-user", "admin": False}, "password": hashed("Sim12345678"),
        "isHashed": True})
    assert status == 200
    status, token = login(c, "sim-user", "Sim12345678")
    assert status == 200
    status, _ = http(c, "POST", PATH, body=ask, token=token)
    assert status == 403
