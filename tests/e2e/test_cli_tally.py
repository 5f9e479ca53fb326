"""Every leaf command of the det CLI 0.38.1 that this master is meant to
serve, run once each against one cluster, in an order where each finds what
it needs (a finished experiment, its trial and checkpoints, a workspace, a
model, a template, a token, a user). A command "works" when it exits 0 and
its output says what upstream's says (a pattern per command).

Out of the count: the Enterprise-only groups (auth, oauth, rbac,
user-group, config-policies), `deploy`, `dev`, `version`, every `help`, and
commands, notebooks, shells, TensorBoards and generic tasks (`task create`,
`fork`, `kill`, `pause`, `unpause`, and `task config`, which shows a
generic task's config), which are an issue of their own.

The tally (works / total, and why each other one fails) is printed and
written to $DET_BUILD_DIR/cli-tally.json. The test fails if a command of
MUST_WORK stops working: the count can only go up."""
import datetime
import json
import os
import re
import time

import pytest

from conftest import BUILD, EXAMPLE, Cluster, experiment_yaml, wait_for
from test_cli import DET, det, ok

pytestmark = pytest.mark.skipif(DET is None, reason="the det CLI is not installed")

PASSWORD = "Tally-Passw0rd!"


@pytest.fixture(scope="module")
def c(pg_server, tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("tally"))
    cl = Cluster(pg_server, tmp, "e2e_tally", idle="10m", max_instances=1,
                 extra_pools="  - pool_name: spare\n")
    cl.home = os.path.join(tmp, "home")
    os.makedirs(cl.home)
    yield cl
    cl.stop()


def write(c, name, text):
    path = os.path.join(c.home, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def json_of(out):
    start = min(i for i in (out.find("["), out.find("{")) if i >= 0)
    return json.JSONDecoder().raw_decode(out[start:])[0]


def created_id(out):
    return int(out.split("Created experiment ")[1].split()[0])


# (command, arguments, pattern its output must match, stdin). The
# arguments are formatted with the fixture's names: {exp} a completed
# experiment, {trial} its trial, {ckpt} and {ckpt2} two of its checkpoints,
# {paused} an experiment created paused, {running} one
# running (its trial's task is {task}), {agent} an agent's id, {cfg} an
# experiment config file, {model_dir} the model definition, {tpl} a
# template file, {out} a fresh folder, {job} the paused experiment's job,
# {task} the trial's task id, {token_id} a token's id, {token} its text,
# {user} a user made for the test.
COMMANDS = [
    ("master info", [], r"clusterId|cluster_id|version", ""),
    ("master config show", [], r"checkpoint_storage|resource_pools", ""),
    ("master config set", ["--log.level", "DEBUG"], r"", ""),
    ("master logs", ["--tail", "5"], r"\S", ""),
    ("master cluster-message set", ["-m", "maintenance at noon", "-d", "1h"], r"", ""),
    ("master cluster-message get", ["--json"], r"maintenance at noon", ""),
    ("master cluster-message clear", [], r"", ""),
    ("agent list", [], r"{agent}", ""),
    ("slot list", [], r"{agent}", ""),
    ("experiment list", [], r"\b{exp}\b", ""),
    ("experiment describe", ["{exp}"], r"COMPLETED", ""),
    ("experiment config", ["{exp}"], r"searcher", ""),
    ("experiment list-trials", ["{exp}"], r"\b{trial}\b", ""),
    ("experiment list-checkpoints", ["{exp}"], r"{ckpt}", ""),
    ("experiment logs", ["--tail", "5"], r"\S", ""),
    ("experiment download-model-def", ["--output-dir", "{out}", "{exp}"], r"", ""),
    ("experiment download", ["-o", "{out}", "{exp}"], r"", ""),
    ("experiment label add", ["{exp}", "tallied"], r"", ""),
    ("experiment label remove", ["{exp}", "tallied"], r"", ""),
    ("experiment set name", ["{exp}", "renamed"], r"", ""),
    ("experiment set description", ["{exp}", "a description"], r"", ""),
    ("experiment set priority", ["{paused}", "10"], r"", ""),
    ("experiment set weight", ["{paused}", "2"], r"", ""),
    ("experiment set max-slots", ["{paused}", "1"], r"", ""),
    ("trial download", ["--latest", "-o", "{out}", "{trial}"], r"", ""),
    ("checkpoint download", ["-o", "{out}", "{ckpt}"], r"", ""),
    ("experiment set gc-policy", ["--save-experiment-best", "1", "--save-trial-best", "1",
                                  "--save-trial-latest", "1", "--yes", "{exp}"], r"", ""),
    ("experiment set log-retention", ["--days", "30", "{exp}"], r"", ""),
    ("experiment archive", ["{exp}"], r"", ""),
    ("experiment unarchive", ["{exp}"], r"", ""),
    ("experiment delete-tb-files", ["{exp}"], r"", ""),
    ("experiment wait", ["{exp}"], r"", ""),
    ("experiment pause", ["{running}"], r"", ""),
    ("experiment activate", ["{running}"], r"", ""),
    ("trial describe", ["{trial}"], r"\b{trial}\b", ""),
    ("trial logs", ["--tail", "5", "{trial}"], r"\S", ""),
    ("trial set log-retention", ["--days", "30", "{trial}"], r"", ""),
    ("trial support-bundle", ["-o", "{out}", "{trial}"], r"", ""),
    ("checkpoint describe", ["{ckpt}"], r"{ckpt}", ""),
    ("checkpoint rm", ["--glob", "no-such-file*", "--yes", "{ckpt}"], r"", ""),
    ("job list", [], r"\b{running}\b|{job}", ""),
    ("job update", ["-p", "20", "{job}"], r"", ""),
    ("job update-batch", ["{job}.priority=30"], r"", ""),
    # The trials the search would create: one, trained for max_length.
    ("preview-search", ["{cfg}"], r"\b1\s*\|\s*train for 15 batches", ""),
    ("workspace create", ["tally-ws"], r"tally-ws", ""),
    ("workspace list", [], r"tally-ws", ""),
    ("workspace describe", ["tally-ws"], r"tally-ws", ""),
    ("workspace edit", ["--agent-uid", "1001", "--agent-user", "ml", "tally-ws"], r"", ""),
    ("workspace list-pools", ["tally-ws"], r"", ""),
    ("workspace list-members", ["tally-ws"], r"", ""),
    ("workspace resource-quota set", ["tally-ws", "4"], r"", ""),
    ("workspace bindings list", ["tally-ws"], r"", ""),
    ("workspace bindings set", ["--namespace", "tally", "tally-ws"], r"", ""),
    ("workspace bindings delete", ["tally-ws"], r"", ""),
    ("project create", ["tally-ws", "tally-p"], r"tally-p", ""),
    ("project list", ["tally-ws"], r"tally-p", ""),
    ("workspace list-projects", ["tally-ws"], r"tally-p", ""),
    ("project describe", ["tally-ws", "tally-p"], r"tally-p", ""),
    ("project edit", ["--description", "tallied", "tally-ws", "tally-p"], r"", ""),
    ("experiment move", ["{paused}", "tally-ws", "tally-p"], r"", ""),
    ("project list-experiments", ["tally-ws", "tally-p"], r"\b{paused}\b", ""),
    ("project archive", ["tally-ws", "tally-p"], r"", ""),
    ("project unarchive", ["tally-ws", "tally-p"], r"", ""),
    ("resource-pool bindings add", ["spare", "tally-ws"], r"", ""),
    ("resource-pool bindings list-workspaces", ["spare"], r"tally-ws", ""),
    ("resource-pool bindings replace", ["spare", "tally-ws"], r"", ""),
    ("resource-pool bindings remove", ["spare", "tally-ws"], r"", ""),
    ("workspace archive", ["tally-ws"], r"", ""),
    ("workspace unarchive", ["tally-ws"], r"", ""),
    ("model create", ["tally-model"], r"tally-model", ""),
    ("model list", [], r"tally-model", ""),
    ("model register-version", ["tally-model", "{ckpt}"], r"{ckpt}|[Vv]ersion", ""),
    ("model list-versions", ["tally-model"], r"{ckpt}|1", ""),
    ("model describe", ["tally-model"], r"tally-model", ""),
    ("model move", ["-w", "tally-ws", "tally-model"], r"", ""),
    ("model delete", ["tally-model"], r"", ""),
    ("template create", ["tally-tpl", "{tpl}"], r"", ""),
    ("template list", [], r"tally-tpl", ""),
    ("template describe", ["tally-tpl"], r"max_restarts", ""),
    ("template set", ["tally-tpl", "{tpl}"], r"", ""),
    ("template set-value config", ["tally-tpl", "{tpl}"], r"", ""),
    ("template remove", ["tally-tpl"], r"", ""),
    ("resources aggregated", ["{day_before}", "{day_after}"], r"\S", ""),
    ("resources allocations", ["{ts_before}", "{ts_after}"], r"", ""),
    ("resources raw", ["{ts_before}", "{ts_after}"], r"", ""),
    ("task list", [], r"{task}", ""),
    ("task logs", ["--tail", "5", "{task}"], r"\S", ""),
    ("task cleanup-logs", [], r"", ""),
    ("token create", ["--description", "tally", "--json"], r"token", ""),
    ("token list", [], r"\S", ""),
    ("token describe", ["{token_id}"], r"tally|{token_id}", ""),
    ("token edit", ["--description", "edited", "{token_id}"], r"", ""),
    ("token login", ["{token}"], r"", ""),
    ("token revoke", ["{token_id}"], r"", ""),
    ("user create", ["--password", PASSWORD, "tally-user"], r"", ""),
    ("user list", [], r"tally-user", ""),
    ("user whoami", [], r"admin", ""),
    ("user edit", ["--display-name", "Tally User", "tally-user"], r"", ""),
    ("user rename", ["tally-user", "tally-user2"], r"", ""),
    ("user deactivate", ["tally-user2"], r"", ""),
    ("user activate", ["tally-user2"], r"", ""),
    ("user link-with-agent-user", ["--agent-uid", "1000", "--agent-user", "ml",
                                   "--agent-gid", "1000", "--agent-group", "ml",
                                   "tally-user2"], r"", ""),
    ("user change-password", ["tally-user2"], r"", PASSWORD + "x\n" + PASSWORD + "x\n"),
    ("user login", ["tally-user2"], r"", PASSWORD + "x\n"),
    ("user logout", [], r"", ""),
    ("experiment continue", ["--config", "searcher.max_length.batches=20", "{exp}"],
     r"[Cc]ontinued", ""),
    ("trial kill", ["{trial}"], r"", ""),
    ("checkpoint delete", ["--yes", "{ckpt2}"], r"", ""),
    ("experiment cancel", ["{paused}"], r"", ""),
    ("experiment create", ["--paused", "{cfg}", "{model_dir}"], r"Created experiment", ""),
    ("experiment kill", ["{running}"], r"", ""),
    ("experiment delete", ["--yes", "{paused}"], r"", ""),
    ("agent disable", ["{agent}"], r"", ""),
    ("agent enable", ["{agent}"], r"", ""),
    ("slot disable", ["{agent}", "0"], r"", ""),
    ("slot enable", ["{agent}", "0"], r"", ""),
    ("project delete", ["--yes", "tally-ws", "tally-p"], r"", ""),
    ("workspace delete", ["--yes", "tally-ws"], r"", ""),
]

# The commands that do not work yet, and why. Every other command of
# COMMANDS must work: one that stops working fails the test.
NOT_YET = {
    "workspace list-members": "membership comes from RBAC roles and user groups, "
                              "which this master does not have (Enterprise features): "
                              "answered as unimplemented, as upstream's open-source master does",
    "workspace resource-quota set": "quotas apply to auto-created namespaces (an Enterprise "
                                    "feature): answered as unimplemented",
    # Refused here as upstream refuses them on det-agents; they work under
    # the kubernetes resource manager (tests/k8s/test_rm_experiment.py,
    # test_a_workspace_bound_to_a_namespace_runs_its_trials_there).
    "workspace bindings list": "workspace-namespace bindings need the kubernetes "
                               "resource manager; this cluster runs det-agents",
    "workspace bindings set": "as workspace bindings list",
    "workspace bindings delete": "as workspace bindings list",
}

ROUTE_MISSING = re.compile(r"no route|not allowed|Not Found|404|405|not implemented|Unimplemented",
                           re.IGNORECASE)


def why(rc, out):
    if ROUTE_MISSING.search(out):
        return "no route: " + ROUTE_MISSING.search(out).group(0)
    lines = [l.strip() for l in out.strip().splitlines() if l.strip()]
    return ("exit %d: " % rc) + (" | ".join(lines[-3:])[:300] if lines else "(no output)")


def test_every_det_command(c):
    # Every checkpoint is kept (save_trial_latest), so each command below
    # finds a completed one.
    # A single searcher: `det experiment continue --config` takes an
    # override only for single (as upstream).
    cfg = write(c, "exp.yaml", experiment_yaml(max_length=15, checkpoint_every=5)
                .replace("name: grid", "name: single")
                + "checkpoint_storage:\n  save_trial_latest: 5\n")
    tpl = write(c, "tpl.yaml", "max_restarts: 3\n")
    exp = created_id(ok(c, "experiment", "create", cfg, EXAMPLE))
    wait_for("experiment %d to complete" % exp,
             lambda: c.experiment(exp)["state"] == "STATE_COMPLETED",
             timeout=180)
    long_cfg = write(c, "long.yaml", experiment_yaml(max_length=100000, batch_delay=0.05))
    paused = created_id(ok(c, "experiment", "create", "--paused", long_cfg, EXAMPLE))
    running = created_id(ok(c, "experiment", "create", long_cfg, EXAMPLE))
    wait_for("experiment %d's trial to run" % running,
             lambda: [t for t in c.trials(running) if t["state"] == "STATE_RUNNING"],
             timeout=120)
    tasks = c.get("/api/v1/tasks")["allocationIdToSummary"]
    trial = c.trials(exp)[0]["id"]
    ckpts = c.get("/api/v1/experiments/%d/checkpoints" % exp)["checkpoints"]
    ckpts = [k for k in ckpts if k["state"] == "STATE_COMPLETED"]
    assert len(ckpts) >= 2, ckpts
    agents = c.get("/api/v1/agents")["agents"]
    jobs = c.get("/api/v1/job-queues")["jobs"]
    job = next(j["jobId"] for j in jobs if j.get("entityId") == str(running))
    token = json_of(ok(c, "token", "create", "--description", "fixture", "--json"))
    now = datetime.datetime.now(datetime.timezone.utc)
    names = dict(
        exp=exp, paused=paused, trial=trial, ckpt=ckpts[-1]["uuid"], ckpt2=ckpts[0]["uuid"],
        agent=agents[0]["id"], cfg=cfg, model_dir=EXAMPLE, tpl=tpl, job=job,
        running=running, task=next(iter(tasks.values()))["taskId"],
        token_id=token["tokenId"], token=token["token"],
        day_before=(now - datetime.timedelta(days=1)).strftime("%Y-%m-%d"),
        day_after=(now + datetime.timedelta(days=1)).strftime("%Y-%m-%d"),
        ts_before=(now - datetime.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        ts_after=(now + datetime.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ"))
    results = []
    outs = {}
    for command, args, pattern, stdin in COMMANDS:
        out_dir = os.path.join(c.home, "out-" + command.replace(" ", "-"))
        os.makedirs(out_dir, exist_ok=True)
        names["out"] = out_dir
        argv = command.split() + [a.format(**names) for a in args]
        if command == "experiment logs":
            argv.append(str(exp))
        started = time.monotonic()
        rc, out = det(c, *argv, stdin=stdin)
        outs[command] = out
        content = re.search(pattern.format(**names), out) is not None
        works = rc == 0 and content
        results.append(dict(command=command, works=works,
                            seconds=round(time.monotonic() - started, 2),
                            why="" if works else (why(rc, out) if rc else
                                                  "output lacks /%s/: %s" % (pattern, out[:200]))))
    working = [r["command"] for r in results if r["works"]]
    report = dict(works=len(working), total=len(results),
                  failing={r["command"]: r["why"] for r in results if not r["works"]})
    with open(os.path.join(BUILD, "cli-tally.json"), "w") as f:
        json.dump(dict(report, results=results), f, indent=1)
    print("\n[ tally ] %d of %d det commands work" % (len(working), len(results)))
    for name, reason in report["failing"].items():
        print("[ tally ] not yet: det %s -- %s" % (name, reason))
    assert len({cmd for cmd, *_ in COMMANDS}) == len(COMMANDS), "a command is listed twice"
    assert set(NOT_YET) <= {cmd for cmd, *_ in COMMANDS}
    for name in set(working) & set(NOT_YET):
        print("[ tally ] det %s works now: take it out of NOT_YET" % name)
    # `master config set --log.level DEBUG` changed the level the master
    # shows (nothing later sets it again).
    assert c.get("/api/v1/master/config")["config"]["log"]["level"] == "debug"
    # The Enterprise features are refused as upstream's open-source master
    # refuses them (unimplemented), with a reason the user can read.
    assert "RBAC" in outs["workspace list-members"], outs["workspace list-members"]
    assert "namespaces" in outs["workspace resource-quota set"], \
        outs["workspace resource-quota set"]
    for name in ("list", "set", "delete"):
        out = outs["workspace bindings " + name]
        assert "resource_manager.type kubernetes" in out, out
    lost = {n: r for n, r in report["failing"].items() if n not in NOT_YET}
    assert not lost, "these det commands do not work: %s" % lost
