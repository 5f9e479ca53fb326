"""Upstream 0.38's Runs API (a run is a trial) through the SDK's own
bindings (`determined.common.api.bindings`, what the WebUI's run table
calls): search with paging and sorting, pause and resume of a single-trial
run (its experiment) while a multi-trial run is refused, move of a
multi-trial run taking its experiment along, kill, and hostile bodies
refused naming the field."""
import json

import pytest

from conftest import experiment_yaml, wait_for

pytest.importorskip("determined", reason="pip install determined==0.38.1")

SINGLE = """
name: runs-single
entrypoint: python3 train.py
max_restarts: 0
hyperparameters:
  learning_rate: 0.1
  batch_size: 16
  checkpoint_every: 10
  metrics_every: 5
  batch_delay: 0.05
searcher:
  name: single
  metric: validation_loss
  max_length:
    batches: 100000
"""


def field(location, column, op, value):
    return {"kind": "field", "location": location, "columnName": column,
            "operator": op, "type": "COLUMN_TYPE_NUMBER", "value": value}


def group(*children, conjunction="and"):
    return {"kind": "group", "conjunction": conjunction, "children": list(children)}


def session(c):
    from determined.experimental import client
    return client.Determined(master=c.url, user="admin", password="")._session


def by_id(results):
    return {r.id: r.error for r in results}


def test_runs_search_pause_resume_move_and_kill(cluster_factory):
    from determined.common.api import bindings as b

    c = cluster_factory()
    status, body = c.submit(SINGLE)
    assert status == 200, body
    single = body["experiment"]["id"]
    status, body = c.submit(experiment_yaml(max_length=100000, trials=2, batch_delay=0.05))
    assert status == 200, body
    grid = body["experiment"]["id"]
    wait_for("three trials", lambda: len(c.trials(single)) + len(c.trials(grid)) == 3)
    single_run = c.trials(single)[0]["id"]
    grid_runs = sorted(t["id"] for t in c.trials(grid))
    sess = session(c)

    # Search: every run of the project, newest first, then a page of it.
    found = b.post_SearchRuns(sess, body=b.v1SearchRunsRequest(projectId=1, sort="id=desc"))
    assert [r.id for r in found.runs] == sorted([single_run] + grid_runs, reverse=True)
    assert found.pagination.total == 3
    rows = {r.id: r for r in found.runs}
    assert rows[single_run].experiment.id == single
    assert rows[single_run].experiment.searcherType == "single"
    assert rows[single_run].experiment.isMultitrial is False
    assert rows[grid_runs[0]].experiment.isMultitrial is True
    assert rows[single_run].projectName == "Uncategorized"
    assert rows[single_run].hyperparameters["learning_rate"] == 0.1
    page = b.post_SearchRuns(sess, body=b.v1SearchRunsRequest(
        projectId=1, sort="id=asc", offset=1, limit=1))
    assert [r.id for r in page.runs] == [sorted([single_run] + grid_runs)[1]]
    assert page.pagination.total == 3

    # Pause: the single-trial run's experiment pauses; the grid's run is
    # refused as part of a multi-trial search; an unknown run is named.
    paused = by_id(b.post_PauseRuns(sess, body=b.v1PauseRunsRequest(
        projectId=1, runIds=[single_run, grid_runs[0], 99999])).results)
    assert paused == {
        single_run: "",
        grid_runs[0]: "Cannot pause/unpause run '%d' (part of multi-trial)." % grid_runs[0],
        99999: "Run with id '99999' not found in project with id '1'",
    }
    wait_for("the single experiment paused",
             lambda: c.experiment(single)["state"] == "STATE_PAUSED")
    assert c.experiment(grid)["state"] != "STATE_PAUSED"
    resumed = by_id(b.post_ResumeRuns(sess, body=b.v1ResumeRunsRequest(
        projectId=1, runIds=[single_run])).results)
    assert resumed == {single_run: ""}
    wait_for("the single experiment active again",
             lambda: c.experiment(single)["state"] in ("STATE_ACTIVE", "STATE_RUNNING",
                                                       "STATE_QUEUED"))

    # Move: skipped as multi-trial when asked; otherwise its experiment
    # (with both its runs) goes to the destination project.
    status, body = c.post("/api/v1/workspaces", {"name": "runs-ws"})
    assert status == 200, body
    ws = body["workspace"]["id"]
    status, body = c.post("/api/v1/workspaces/%d/projects" % ws, {"name": "moved-runs",
                                                             "workspaceId": ws})
    assert status == 200, body
    dest = body["project"]["id"]
    skipped = by_id(b.post_MoveRuns(sess, body=b.v1MoveRunsRequest(
        sourceProjectId=1, destinationProjectId=dest, runIds=[grid_runs[0]],
        skipMultitrial=True)).results)
    assert skipped == {grid_runs[0]: "Skipping run '%d' (part of multi-trial)." % grid_runs[0]}
    assert c.experiment(grid)["projectId"] == 1
    moved = by_id(b.post_MoveRuns(sess, body=b.v1MoveRunsRequest(
        sourceProjectId=1, destinationProjectId=dest, runIds=[grid_runs[0]])).results)
    assert moved == {grid_runs[0]: ""}
    wait_for("the grid experiment in the new project",
             lambda: c.experiment(grid)["projectId"] == dest)
    there = b.post_SearchRuns(sess, body=b.v1SearchRunsRequest(projectId=dest))
    assert sorted(r.id for r in there.runs) == grid_runs
    assert {r.projectName for r in there.runs} == {"moved-runs"}

    # Kill: the run's trial ends canceled; killing it again is no error.
    killed = by_id(b.post_KillRuns(sess, body=b.v1KillRunsRequest(
        runIds=[single_run], projectId=1)).results)
    assert killed == {single_run: ""}
    wait_for("the killed run to end", lambda: c.trials(single)[0]["state"] == "STATE_CANCELED")
    again = by_id(b.post_KillRuns(sess, body=b.v1KillRunsRequest(
        runIds=[single_run], projectId=1)).results)
    assert again == {single_run: ""}
    ended = b.post_SearchRuns(sess, body=b.v1SearchRunsRequest(projectId=1))
    assert [r.state.value for r in ended.runs] == ["STATE_CANCELED"]
    assert ended.runs[0].endTime is not None
    for kill in b.post_KillRuns(sess, body=b.v1KillRunsRequest(
            runIds=grid_runs, projectId=dest)).results:
        assert kill.error == "", kill


REFUSALS = [
    ("/api/v1/runs/kill", {"runIds": ["1"]}, "runIds[0]"),
    ("/api/v1/runs/kill", {"runIds": "1"}, "runIds"),
    ("/api/v1/runs/kill", {"runIds": list(range(1, 1002))}, "runIds"),
    ("/api/v1/runs/kill", {}, "runIds"),
    ("/api/v1/runs/pause", {"runIds": [1], "projectId": -3}, "projectId"),
    ("/api/v1/runs/pause", {"filter": '{"filterGroup": {"children": [{"columnName": "id"}]}}'},
     "filter.filterGroup.children[0].kind"),
    ("/api/v1/runs/kill", {"filter": json.dumps({"filterGroup": group(
        field("LOCATION_TYPE_RUN", "id", "=", 1),
        field("LOCATION_TYPE_RUN", "secret", "=", 1))})},
     "filter.filterGroup.children[1].columnName"),
    ("/api/v1/runs", {"filter": json.dumps({"filterGroup": group(
        field("LOCATION_TYPE_RUN", "id", "LIKE", 1))})},
     "filter.filterGroup.children[0].operator"),
    ("/api/v1/runs/kill", {"runIds": [1], "filter": "{}"}, "filter"),
    ("/api/v1/runs", {"filter": "not json"}, "filter"),
    ("/api/v1/runs", {"sort": "bogus=asc"}, "sort"),
    ("/api/v1/runs", {"sort": "id=sideways"}, "sort"),
    ("/api/v1/runs", {"sort": ",".join(["id=asc"] * 17)}, "sort"),
    ("/api/v1/runs", {"limit": -1}, "limit"),
    ("/api/v1/runs/move", {"runIds": [1], "sourceProjectId": 1}, "destinationProjectId"),
]


def test_run_requests_that_make_no_sense_are_refused_naming_the_field(cluster_factory):
    c = cluster_factory()
    for path, body, field in REFUSALS:
        status, answer = c.post(path, body)
        assert status == 400, (path, body, answer)
        assert answer["error"]["error"].startswith(field + ":"), (path, body, answer)
    # A NUL is refused where every body is read, naming the field too.
    status, answer = c.post("/api/v1/runs", {"filter": "{}\u0000"})
    assert status == 400, answer
    assert answer["error"]["error"].startswith("field 'filter': contains a NUL"), answer
    status, answer = c.post("/api/v1/runs", {"projectId": 4242})
    assert status == 404, answer
    assert "project 4242 not found" in answer["error"]["error"], answer
    # Nothing above was acted on: the master still answers a search.
    status, answer = c.post("/api/v1/runs", {})
    assert status == 200 and answer["runs"] == [], answer


def status_of(c, path):
    import urllib.error
    try:
        c.get(path)
        return 200
    except urllib.error.HTTPError as e:
        return e.code


def search_ids(sess, **filter_):
    from determined.common.api import bindings as b
    import json
    body = b.v1SearchRunsRequest(projectId=1, sort="id=asc",
                                 filter=json.dumps(filter_) if filter_ else None)
    return {r.id: r for r in b.post_SearchRuns(sess, body=body).runs}


def test_runs_archive_unarchive_and_delete_survive_a_restart(cluster_factory):
    from determined.common.api import bindings as b
    from test_cluster import replay_ok

    c = cluster_factory()
    status, body = c.submit(experiment_yaml(max_length=20, trials=2))
    assert status == 200, body
    done = body["experiment"]["id"]
    wait_for("the experiment to complete",
             lambda: c.experiment(done)["state"] == "STATE_COMPLETED", timeout=120)
    first, second = sorted(t["id"] for t in c.trials(done))
    status, body = c.submit(SINGLE)
    assert status == 200, body
    live = body["experiment"]["id"]
    wait_for("the live run", lambda: len(c.trials(live)) == 1)
    live_run = c.trials(live)[0]["id"]
    sess = session(c)

    # Archive: an ended run leaves the search unless archived ones are
    # asked for; a live run is refused; archiving twice is no error.
    archived = by_id(b.post_ArchiveRuns(sess, body=b.v1ArchiveRunsRequest(
        projectId=1, runIds=[first, live_run, 99999])).results)
    assert archived == {
        first: "",
        live_run: "Run is not in terminal state.",
        99999: "Run with id '99999' not found in project with id '1'",
    }
    assert set(search_ids(sess)) == {second, live_run}
    shown = search_ids(sess, showArchived=True)
    assert shown[first].archived is True and shown[second].archived is False
    again = by_id(b.post_ArchiveRuns(sess, body=b.v1ArchiveRunsRequest(
        projectId=1, runIds=[first])).results)
    assert again == {first: ""}

    # Delete: a run of a live search is refused; an ended one of an ended
    # search is gone from every list and lookup.
    deleted = by_id(b.post_DeleteRuns(sess, body=b.v1DeleteRunsRequest(
        projectId=1, runIds=[second, live_run])).results)
    assert deleted == {second: "", live_run: "Run is not in a terminal state."}
    assert set(search_ids(sess, showArchived=True)) == {first, live_run}
    exp = c.experiment(done)
    assert exp["numTrials"] == 1 and exp["trialIds"] == [first], exp
    assert [t["id"] for t in c.trials(done)] == [first]
    assert status_of(c, "/api/v1/trials/%d" % second) == 404

    # Unarchive brings the first back; a restarted master replays all of it.
    unarchived = by_id(b.post_UnarchiveRuns(sess, body=b.v1UnarchiveRunsRequest(
        projectId=1, runIds=[first])).results)
    assert unarchived == {first: ""}
    assert set(search_ids(sess)) == {first, live_run}
    b.post_ArchiveRuns(sess, body=b.v1ArchiveRunsRequest(projectId=1, runIds=[first]))
    c.post("/api/v1/experiments/%d/kill" % live)
    c.stop()
    c.start()
    sess = session(c)
    assert set(search_ids(sess)) == {live_run}
    assert search_ids(sess, showArchived=True)[first].archived is True
    assert c.experiment(done)["trialIds"] == [first]
    assert status_of(c, "/api/v1/trials/%d" % second) == 404
    # The experiment cannot be continued without its deleted run.
    status, body = c.post("/api/v1/experiments/continue", {"id": done})
    assert status == 400 and "was deleted" in body["error"]["error"], body
    replay_ok(c)


def test_filters_choose_the_runs_that_search_kill_and_pause_act_on(cluster_factory):
    """Upstream's table sends conditions: a kill by filter kills exactly
    the runs a search with that filter lists (here the grid run with the
    larger learning rate), and pause by filter answers each multi-trial
    run with upstream's refusal."""
    from determined.common.api import bindings as b

    c = cluster_factory()
    status, body = c.submit(experiment_yaml(max_length=100000, trials=2, batch_delay=0.05))
    assert status == 200, body
    grid = body["experiment"]["id"]
    status, body = c.submit(SINGLE)
    assert status == 200, body
    wait_for("the grid's two trials", lambda: len(c.trials(grid)) == 2)
    runs = {t["id"]: t["hparams"]["learning_rate"] for t in c.trials(grid)}
    high = max(runs, key=runs.get)
    sess = session(c)
    of_grid = field("LOCATION_TYPE_RUN", "experimentId", "=", grid)
    chosen = json.dumps({"filterGroup": group(
        of_grid, field("LOCATION_TYPE_RUN_HYPERPARAMETERS", "learning_rate", ">=", 0.1)),
        "showArchived": False})

    found = b.post_SearchRuns(sess, body=b.v1SearchRunsRequest(filter=chosen)).runs
    assert [r.id for r in found] == [high]
    # A run waiting or training is ACTIVE, as upstream's runs table has it.
    assert found[0].state == b.trialv1State.ACTIVE, found[0].state
    killed = b.post_KillRuns(sess, body=b.v1KillRunsRequest(
        runIds=[], filter=chosen, projectId=1)).results
    assert by_id(killed) == {high: ""}
    wait_for("the chosen run to be canceled",
             lambda: c.get("/api/v1/trials/%d" % high)["trial"]["state"] == "STATE_CANCELED", timeout=60)
    others = [t for t in c.trials(grid) if t["id"] != high]
    assert [t["state"] for t in others if t["state"] != "STATE_CANCELED"] == [
        t["state"] for t in others], others
    assert len(others) == 1, others

    # An "or" of two experiments, and pause refusing the multi-trial ones.
    either = json.dumps({"filterGroup": group(
        of_grid, field("LOCATION_TYPE_RUN", "experimentId", "=", grid + 1),
        conjunction="or")})
    listed = b.post_SearchRuns(sess, body=b.v1SearchRunsRequest(filter=either)).runs
    assert len(listed) == 3, listed
    paused = b.post_PauseRuns(sess, body=b.v1PauseRunsRequest(
        runIds=[], projectId=1, filter=json.dumps({"filterGroup": group(of_grid)}))).results
    assert by_id(paused) == {
        r: "Cannot pause/unpause run '%d' (part of multi-trial)." % r for r in runs}

    # Pause and resume by filter: the single-trial experiment alone.
    (single_run,) = [t["id"] for t in c.trials(grid + 1)]
    only_single = json.dumps({"filterGroup": group(
        field("LOCATION_TYPE_RUN", "experimentId", "=", grid + 1))})
    paused = b.post_PauseRuns(sess, body=b.v1PauseRunsRequest(
        runIds=[], projectId=1, filter=only_single)).results
    assert by_id(paused) == {single_run: ""}
    wait_for("the single experiment paused by filter",
             lambda: c.experiment(grid + 1)["state"] == "STATE_PAUSED")
    resumed = b.post_ResumeRuns(sess, body=b.v1ResumeRunsRequest(
        runIds=[], projectId=1, filter=only_single)).results
    assert by_id(resumed) == {single_run: ""}
    wait_for("the single experiment resumed by filter",
             lambda: c.experiment(grid + 1)["state"] in ("STATE_ACTIVE", "STATE_RUNNING",
                                                         "STATE_QUEUED"))
