"""`det experiment continue` with the real det CLI: a single-trial
experiment completed at 10 batches continues with
searcher.max_length.batches=20, its one trial resuming from its checkpoint
(not from 0) and completing at 20, across a master restart in the middle of
the continued run; a running experiment is refused naming its state."""
import shutil

import pytest

from conftest import EXAMPLE, experiment_yaml, wait_for
from test_cli_experiments import det, home_of

pytest.importorskip("determined", reason="pip install determined==0.38.1")
pytestmark = pytest.mark.skipif(shutil.which("det") is None,
                                reason="the det CLI is not installed")


def single(max_length, batch_delay):
    return experiment_yaml(max_length=max_length, checkpoint_every=5,
                           batch_delay=batch_delay).replace("name: grid", "name: single")


def test_continue_trains_a_completed_single_on_from_its_checkpoint(
        cluster_factory, tmp_path):
    cluster = cluster_factory()
    home = home_of(tmp_path)
    cfg = tmp_path / "single.yaml"
    cfg.write_text(single(10, 0.8))
    rc, out = det(cluster, home, "experiment", "create", str(cfg), EXAMPLE)
    assert rc == 0 and "Created experiment 1" in out, out

    # Still running: refused, naming the state.
    rc, out = det(cluster, home, "experiment", "continue", "1")
    assert rc != 0 and "non terminal state" in out, out

    wait_for("experiment 1 to complete",
             lambda: cluster.experiment(1)["state"] == "STATE_COMPLETED", timeout=120)
    trial = cluster.trials(1)[0]
    assert trial["totalBatchesProcessed"] == 10, trial
    tid = trial["id"]

    # A grid-only refusal does not apply: an override of a single is fine,
    # but the project may not change.
    rc, out = det(cluster, home, "experiment", "continue", "--config",
                  "project=elsewhere", "1")
    assert rc != 0 and "project" in out, out

    rc, out = det(cluster, home, "experiment", "continue", "--config",
                  "searcher.max_length.batches=20", "1")
    assert rc == 0 and "Continued experiment 1" in out, out
    # Live again (the trial may already be pulling or running).
    assert cluster.experiment(1)["state"] not in (
        "STATE_COMPLETED", "STATE_CANCELED", "STATE_ERROR"), cluster.experiment(1)

    # The master restarts while the continued trial trains.
    wait_for("the continued trial to resume",
             lambda: "resuming at step 10, target 20" in
             det(cluster, home, "trial", "logs", str(tid))[1], timeout=120)
    cluster.restart()

    wait_for("experiment 1 to complete again",
             lambda: cluster.experiment(1)["state"] == "STATE_COMPLETED", timeout=180)
    trials = cluster.trials(1)
    assert [t["id"] for t in trials] == [tid], trials  # no new trial
    assert trials[0]["totalBatchesProcessed"] == 20, trials[0]
    assert trials[0]["state"] == "STATE_COMPLETED", trials[0]
    # (It resumed at step 10, not 0: the wait above saw its log line before
    # the restart.)
    rc, out = det(cluster, home, "experiment", "config", "1")
    assert rc == 0 and "batches: 20" in out, out
