"""Log policies (config `log_policies`, as upstream 0.38): a trial whose
logs match a policy shows its name (logPolicyMatched) on the trial and the
run; `cancel_retries` makes its next failure final, `exclude_node` keeps
its later runs off the agent where the line was printed. The trial here
prints the line, then waits for a file the test writes once the master
shows the match, so every step is awaited, never slept on."""
import json
import textwrap

import pytest

from conftest import wait_for

pytest.importorskip("determined", reason="pip install determined==0.38.1")

# Prints hparams.line on its first run, waits for hparams.go, then fails;
# a later run says where it runs and completes.
TRAIN = textwrap.dedent("""
    import json, os, sys, time
    hp = json.loads(os.environ["DET_HPARAMS"])
    marker = hp["go"] + ".ran"
    if os.path.exists(marker):
        print("second run on", os.environ["DET_AGENT_ID"], flush=True)
        sys.exit(0)
    open(marker, "w").close()
    print(hp["line"], flush=True)
    deadline = time.time() + 120
    while not os.path.exists(hp["go"]) and time.time() < deadline:
        time.sleep(0.05)
    sys.exit(1)
""")


def config(go, line, policies, max_restarts):
    return json.dumps({
        "name": "log-policies",
        "entrypoint": "python3 train.py",
        "max_restarts": max_restarts,
        "hyperparameters": {"go": go, "line": line},
        "searcher": {"name": "single", "metric": "loss", "max_length": {"batches": 1}},
        "log_policies": policies,
    })


def model_dir(tmp_path):
    d = tmp_path / "model"
    d.mkdir()
    (d / "train.py").write_text(TRAIN)
    return str(d)


def only_trial(c, exp_id):
    trials = c.trials(exp_id)
    return trials[0] if trials else {}


def run_rows(c):
    status, body = c.post("/api/v1/runs", {"projectId": 1})
    assert status == 200, body
    return {r["id"]: r for r in body["runs"]}


def test_cancel_retries_ends_a_failed_trial_at_once(cluster_factory, tmp_path):
    c = cluster_factory()
    go = str(tmp_path / "go")
    status, body = c.submit(config(
        go, "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB",
        [{"name": "CUDA OOM", "pattern": ".*CUDA out of memory.*",
          "action": "cancel_retries"}], 3), model_dir(tmp_path))
    assert status == 200, body
    exp = body["experiment"]["id"]
    wait_for("the match on the trial",
             lambda: only_trial(c, exp).get("logPolicyMatched") == "CUDA OOM")
    trial = only_trial(c, exp)["id"]
    assert run_rows(c)[trial]["logPolicyMatched"] == "CUDA OOM"
    open(go, "w").close()
    wait_for("the experiment to end", lambda: c.experiment(exp)["state"] == "STATE_ERROR",
             timeout=90)
    t = only_trial(c, exp)
    # One failure, no restart although max_restarts is 3 (a second run
    # would have completed); as upstream, the failure that ended it is not
    # counted as a restart, and the master says why in the trial's logs.
    assert t["state"] == "STATE_ERROR" and t["restarts"] == 0, t
    assert "don't retry policy 'CUDA OOM'" in t["runnerState"], t
    wait_for("the master's line in the trial's logs",
             lambda: "trial failed and matched logs to a don't retry policy"
             in c.get_text("/api/v1/trials/%d/logs" % trial))


def test_exclude_node_runs_the_retry_on_another_agent(cluster_factory, tmp_path):
    c = cluster_factory(min_instances=2)
    wait_for("two agents", lambda: len(c.get("/api/v1/agents")["agents"]) == 2, timeout=60)
    go = str(tmp_path / "go")
    status, body = c.submit(config(
        go, "RuntimeError: uncorrectable ECC error encountered",
        [{"name": "ECC Error", "pattern": ".*uncorrectable ECC error encountered.*",
          "action": "exclude_node"}], 1), model_dir(tmp_path))
    assert status == 200, body
    exp = body["experiment"]["id"]
    wait_for("the match on the trial",
             lambda: only_trial(c, exp).get("logPolicyMatched") == "ECC Error")
    trial = only_trial(c, exp)["id"]
    open(go, "w").close()
    wait_for("the experiment to complete",
             lambda: c.experiment(exp)["state"] == "STATE_COMPLETED", timeout=90)
    logs = [json.loads(l)["result"]
            for l in c.get_text("/api/v1/trials/%d/logs" % trial).splitlines() if l.strip()]
    matched = [l["agentId"] for l in logs if l["log"].startswith("RuntimeError: uncorrectable")]
    second = [l["log"].split()[-1] for l in logs if l["log"].startswith("second run on ")]
    assert len(matched) == 1 and len(second) == 1, logs
    assert second[0] != matched[0], (matched, second)


def test_the_default_policies_label_and_bad_ones_are_refused(cluster_factory, tmp_path):
    c = cluster_factory()
    go = str(tmp_path / "go")
    open(go, "w").close()
    # No log_policies: upstream's defaults label the run, and a failure
    # is retried as usual.
    models = model_dir(tmp_path)
    status, body = c.submit(config(go, "CUDA out of memory", None, 1), models)
    assert status == 200, body
    exp = body["experiment"]["id"]
    wait_for("the experiment to complete",
             lambda: c.experiment(exp)["state"] == "STATE_COMPLETED", timeout=90)
    wait_for("the label", lambda: only_trial(c, exp).get("logPolicyMatched") == "CUDA OOM")
    assert only_trial(c, exp)["restarts"] == 1
    for policies, field in [
            ([{"name": "x", "pattern": "(unclosed"}], "log_policies[0].pattern"),
            ([{"name": "x", "action": "reboot"}], "log_policies[0].action"),
            ([{"pattern": "x"}], "log_policies[0]"),
            ([{"name": "a"}, {"name": "a"}], "log_policies have duplicated names"),
            ("CUDA", "log_policies")]:
        status, body = c.submit(config(go, "", policies, 0), models)
        assert status == 400, (policies, body)
        assert field in body["error"]["error"], (policies, body)
