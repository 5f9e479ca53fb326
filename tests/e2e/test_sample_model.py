"""The sample trial (examples/linear_regression/train.py) without a master.

In-process: the training loop against a fake master client, checking that a
preempted-and-resumed trial ends bit-for-bit where an uninterrupted one
does. As a process: train.py against a tiny fake REST server on 127.0.0.1,
checking the requests it sends and its exit codes.
"""

import http.server
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import threading

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TRAIN_PY = ROOT / "examples" / "linear_regression" / "train.py"


def load_train_module():
    spec = importlib.util.spec_from_file_location("sample_train", TRAIN_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


train = load_train_module()


class FakeClient:
    """Records reports; asks for preemption at step `preempt_at`."""

    def __init__(self, preempt_at=None):
        self.preempt_at = preempt_at
        self.steps_seen = 0
        self.metrics = []
        self.checkpoints = []
        self.acks = 0
        self.polls = 0

    def report_metrics(self, group, steps, metrics):
        self.metrics.append((group, steps, metrics))

    def report_checkpoint(self, ckpt_uuid, steps, resources):
        self.checkpoints.append((ckpt_uuid, steps, resources))

    def should_preempt(self):
        self.polls += 1
        return self.preempt_at is not None and self.polls > self.preempt_at

    def ack_preemption(self):
        self.acks += 1


def context(tmp_path, hparams, target, latest=""):
    return train.TrialContext({
        "DET_TRIAL_ID": "7", "DET_EXPERIMENT_ID": "3",
        "DET_ALLOCATION_ID": "3.7.1",
        "DET_HPARAMS": json.dumps(hparams),
        "DET_TARGET_LENGTH": str(target),
        "DET_LATEST_CHECKPOINT": latest,
        "DET_CHECKPOINT_DIR": str(tmp_path)})


def checkpoint_state(tmp_path, ckpt_uuid):
    with open(tmp_path / ckpt_uuid / "state.json") as f:
        return json.load(f)


HP = {"learning_rate": 0.1, "checkpoint_every": 10, "batch_delay": 0}


def test_resumed_trial_ends_exactly_where_an_uninterrupted_one_does(tmp_path):
    straight = FakeClient()
    assert train.train(context(tmp_path / "a", HP, 40), straight) == 0
    want = checkpoint_state(tmp_path / "a", straight.checkpoints[-1][0])

    first = FakeClient(preempt_at=17)
    assert train.train(context(tmp_path / "b", HP, 40), first) == 0
    assert first.acks == 1
    ckpt, steps, _ = first.checkpoints[-1]
    assert steps == 17

    second = FakeClient()
    ctx = context(tmp_path / "b", HP, 40, latest=ckpt)
    assert train.train(ctx, second) == 0
    got = checkpoint_state(tmp_path / "b", second.checkpoints[-1][0])
    assert got == want
    assert got["step"] == 40


def test_trial_checkpoints_every_n_batches_and_validates_at_each(tmp_path):
    client = FakeClient()
    assert train.train(context(tmp_path, HP, 25), client) == 0
    assert [s for _, s, _ in client.checkpoints] == [10, 20, 25]
    validations = [s for g, s, _ in client.metrics if g == "validation"]
    assert validations == [10, 20, 25]
    training = [s for g, s, _ in client.metrics if g == "training"]
    assert training == [5, 10, 15, 20, 25]
    first = [m for g, _, m in client.metrics if g == "validation"][0]
    last = [m for g, _, m in client.metrics if g == "validation"][-1]
    assert last["validation_loss"] < first["validation_loss"]


def test_a_container_other_than_the_chief_reports_nothing(tmp_path):
    ctx = context(tmp_path, HP, 25)
    ctx.rank, ctx.num_pods = 1, 2
    worker = FakeClient()
    assert train.train(ctx, worker) == 0
    assert worker.metrics == [] and worker.checkpoints == [] and worker.acks == 0
    assert worker.polls == 25
    # Preempted, it stops without acknowledging or checkpointing: the
    # chief does both.
    preempted = FakeClient(preempt_at=7)
    assert train.train(ctx, preempted) == 0
    assert preempted.polls == 8 and preempted.checkpoints == [] and preempted.acks == 0


def test_fail_at_step_fails_a_fresh_run_but_not_a_resumed_one(tmp_path):
    hp = dict(HP, fail_at_step=15)
    client = FakeClient()
    assert train.train(context(tmp_path, hp, 30), client) == 1
    ckpt, steps, _ = client.checkpoints[-1]
    assert steps == 10
    resumed = FakeClient()
    assert train.train(context(tmp_path, hp, 30, latest=ckpt), resumed) == 0


class FakeMaster(http.server.BaseHTTPRequestHandler):
    """Answers the trial-side REST calls; preempts after `preempt_after`
    polls when that is set."""

    requests = []
    preempt_after = None
    polls = 0

    def log_message(self, *args):
        pass

    def _answer(self, doc):
        body = json.dumps(doc).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        cls = type(self)
        cls.requests.append(("GET", self.path, None,
                             self.headers.get("Authorization")))
        cls.polls += 1
        preempt = cls.preempt_after is not None and cls.polls > cls.preempt_after
        self._answer({"preempt": preempt})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"null")
        type(self).requests.append(("POST", self.path, body,
                                    self.headers.get("Authorization")))
        self._answer({})


@pytest.fixture
def master():
    handler = type("Handler", (FakeMaster,), {"requests": [], "polls": 0,
                                              "preempt_after": None})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server, handler
    server.shutdown()
    server.server_close()


def run_trial(server, tmp_path, hparams, target):
    env = dict(os.environ,
               DET_MASTER="http://127.0.0.1:%d" % server.server_address[1],
               DET_TRIAL_ID="7", DET_EXPERIMENT_ID="3",
               DET_ALLOCATION_ID="3.7.1", DET_SESSION_TOKEN="tok",
               DET_HPARAMS=json.dumps(hparams),
               DET_TARGET_LENGTH=str(target), DET_LATEST_CHECKPOINT="",
               DET_CHECKPOINT_DIR=str(tmp_path))
    return subprocess.run([sys.executable, str(TRAIN_PY)], env=env,
                          cwd=str(tmp_path), capture_output=True, text=True,
                          timeout=60)


def test_trial_process_reports_to_the_master_over_rest(master, tmp_path):
    server, handler = master
    done = run_trial(server, tmp_path, HP, 20)
    assert done.returncode == 0, done.stderr
    assert all(auth == "Bearer tok" for *_, auth in handler.requests)
    checkpoints = [b for m, p, b, _ in handler.requests
                   if p == "/api/v1/checkpoints"]
    assert [c["checkpoint"]["metadata"]["steps_completed"]
            for c in checkpoints] == [10, 20]
    c = checkpoints[0]["checkpoint"]
    assert c["allocationId"] == "3.7.1" and c["taskId"] == "3.7"
    assert c["training"] == {"trialId": 7}
    assert (tmp_path / c["uuid"] / "state.json").exists()
    metrics = [b for m, p, b, _ in handler.requests
               if p == "/api/v1/trials/7/metrics"]
    groups = {b["group"] for b in metrics}
    assert groups == {"training", "validation"}
    assert "validation_loss" in [
        b for b in metrics if b["group"] == "validation"][0][
            "metrics"]["metrics"]["avgMetrics"]
    polls = [p for m, p, *_ in handler.requests if m == "GET"]
    assert polls[0] == ("/api/v1/allocations/3.7.1/signals/preemption"
                        "?timeout_seconds=0")


def test_preempted_trial_process_checkpoints_and_exits_zero(master, tmp_path):
    server, handler = master
    handler.preempt_after = 3
    done = run_trial(server, tmp_path, HP, 100)
    assert done.returncode == 0, done.stderr
    paths = [p for _, p, *_ in handler.requests]
    assert "/api/v1/allocations/3.7.1/signals/ack_preemption" in paths
    checkpoints = [b for m, p, b, _ in handler.requests
                   if p == "/api/v1/checkpoints"]
    assert checkpoints[-1]["checkpoint"]["metadata"]["steps_completed"] == 3


def test_failing_trial_process_exits_one(master, tmp_path):
    server, _ = master
    done = run_trial(server, tmp_path, dict(HP, fail_at_step=4), 20)
    assert done.returncode == 1
