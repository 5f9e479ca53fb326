#!/usr/bin/env python3
"""A linear regression trained by SGD: the sample trial for det-master.

Pure Python 3 standard library. The agent starts it with the DET_*
environment variables (docs/agent_protocol.md); the only network peer is
the master at $DET_MASTER. The training loop (`train`) takes its master
client as an argument, so tests drive it with a fake one.

What it shows:
  * hyperparameters from DET_HPARAMS (learning_rate, checkpoint_every, ...)
  * training length from DET_TARGET_LENGTH (batches in total)
  * exact resume from $DET_CHECKPOINT_DIR/$DET_LATEST_CHECKPOINT: weights,
    step and the RNG state, so a resumed trial computes the same numbers as
    one that never stopped
  * checkpoints every `checkpoint_every` batches, reported to the master
  * training metrics every `metrics_every` batches, `validation_loss` at
    every checkpoint and at the end
  * preemption: polled between batches; on {"preempt": true} it
    acknowledges, checkpoints and exits 0
  * several containers (a Kubernetes trial of several pods: DET_POD_RANK,
    DET_NUM_PODS): rank 0 is the chief and the only one that reports or
    checkpoints; the others train alongside and stop when it is preempted
"""

import json
import os
import random
import ssl
import sys
import time
import urllib.error
import urllib.request
import uuid

FEATURES = 3
TRUE_WEIGHTS = [2.0, -3.0, 0.5]
TRUE_BIAS = 1.0
DATA_SEED = 1234
TRAIN_SEED = 42
STATE_FILE = "state.json"


def make_dataset(n, seed):
    """n (x, y) pairs of y = w.x + b + noise, the same for every run."""
    rng = random.Random(seed)
    data = []
    for _ in range(n):
        x = [rng.uniform(-1.0, 1.0) for _ in range(FEATURES)]
        y = sum(w * v for w, v in zip(TRUE_WEIGHTS, x)) + TRUE_BIAS
        data.append((x, y + rng.gauss(0.0, 0.1)))
    return data


TRAIN_DATA = make_dataset(512, DATA_SEED)
VALIDATION_DATA = make_dataset(128, DATA_SEED + 1)


class Model:
    """Weights, bias, batches done and the batch-sampling RNG."""

    def __init__(self, seed=TRAIN_SEED):
        self.weights = [0.0] * FEATURES
        self.bias = 0.0
        self.step = 0
        self.rng = random.Random(seed)

    def predict(self, x):
        return sum(w * v for w, v in zip(self.weights, x)) + self.bias

    def train_batch(self, batch_size, learning_rate):
        """One SGD step on a random batch; returns the batch's MSE."""
        batch = [self.rng.choice(TRAIN_DATA) for _ in range(batch_size)]
        grad_w = [0.0] * FEATURES
        grad_b = 0.0
        loss = 0.0
        for x, y in batch:
            err = self.predict(x) - y
            loss += err * err
            for i in range(FEATURES):
                grad_w[i] += 2.0 * err * x[i]
            grad_b += 2.0 * err
        n = float(len(batch))
        self.weights = [w - learning_rate * g / n
                        for w, g in zip(self.weights, grad_w)]
        self.bias -= learning_rate * grad_b / n
        self.step += 1
        return loss / n

    def validation_loss(self):
        total = sum((self.predict(x) - y) ** 2 for x, y in VALIDATION_DATA)
        return total / len(VALIDATION_DATA)

    def to_json(self):
        version, internal, gauss_next = self.rng.getstate()
        return {"weights": self.weights, "bias": self.bias, "step": self.step,
                "rng": [version, list(internal), gauss_next]}

    @classmethod
    def from_json(cls, doc):
        m = cls()
        m.weights = [float(w) for w in doc["weights"]]
        m.bias = float(doc["bias"])
        m.step = int(doc["step"])
        version, internal, gauss_next = doc["rng"]
        m.rng.setstate((version, tuple(internal), gauss_next))
        return m


class TrialContext:
    """What the agent tells the trial, read from the environment."""

    def __init__(self, env):
        self.master = env.get("DET_MASTER", "http://127.0.0.1:8080").rstrip("/")
        self.trial_id = int(env.get("DET_TRIAL_ID", "0"))
        self.experiment_id = int(env.get("DET_EXPERIMENT_ID", "0"))
        self.allocation_id = env.get("DET_ALLOCATION_ID", "")
        self.trial_run_id = int(env.get("DET_TRIAL_RUN_ID", "1") or "1")
        self.hparams = json.loads(env.get("DET_HPARAMS") or "{}")
        self.target_length = int(env.get("DET_TARGET_LENGTH") or "100")
        self.latest_checkpoint = env.get("DET_LATEST_CHECKPOINT", "")
        self.checkpoint_dir = env.get("DET_CHECKPOINT_DIR") or os.path.join(
            os.getcwd(), "checkpoints")
        self.session_token = env.get("DET_SESSION_TOKEN", "")
        # A trial of several containers: this one's rank among them.
        self.rank = int(env.get("DET_POD_RANK") or "0")
        self.num_pods = int(env.get("DET_NUM_PODS") or "1")
        # With TLS: the CA file that signs the master's certificate (set by
        # det-agent from its own setting), or "noverify".
        self.master_cert_file = env.get("DET_MASTER_CERT_FILE", "")

    def ssl_context(self):
        if not self.master.startswith("https:"):
            return None
        if self.master_cert_file == "noverify":
            return ssl._create_unverified_context()
        return ssl.create_default_context(cafile=self.master_cert_file or None)

    @property
    def chief(self):
        return self.rank == 0

    @property
    def task_id(self):
        # Upstream allocation ids are "<task id>.<n>".
        head, dot, tail = self.allocation_id.rpartition(".")
        return head if dot and tail.isdigit() else self.allocation_id


class MasterClient:
    """The trial-side REST calls of docs/agent_protocol.md, over urllib."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.ssl = ctx.ssl_context()

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.ctx.master + path, data=data,
                                     method=method)
        req.add_header("Content-Type", "application/json")
        if self.ctx.session_token:
            req.add_header("Authorization",
                           "Bearer " + self.ctx.session_token)
        # A master that restarts is a normal event: retry connection errors
        # and 502/503/504 with backoff for up to a minute, as the upstream
        # Core API does; other errors are the caller's.
        delay, waited = 0.25, 0.0
        while True:
            try:
                with urllib.request.urlopen(req, timeout=30,
                                            context=self.ssl) as resp:
                    text = resp.read()
                return json.loads(text) if text.strip() else {}
            except urllib.error.HTTPError as e:
                if e.code not in (502, 503, 504) or waited > 60:
                    raise
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if waited > 60:
                    raise
            time.sleep(delay)
            waited += delay
            delay = min(delay * 2, 5.0)

    def report_metrics(self, group, steps, metrics):
        self._call("POST", "/api/v1/trials/%d/metrics" % self.ctx.trial_id, {
            "metrics": {"trialId": self.ctx.trial_id,
                        "trialRunId": self.ctx.trial_run_id,
                        "stepsCompleted": steps,
                        "metrics": {"avgMetrics": metrics}},
            "group": group})

    def report_checkpoint(self, ckpt_uuid, steps, resources):
        self._call("POST", "/api/v1/checkpoints", {"checkpoint": {
            "uuid": ckpt_uuid,
            "allocationId": self.ctx.allocation_id,
            "taskId": self.ctx.task_id,
            "resources": resources,
            "metadata": {"steps_completed": steps},
            "training": {"trialId": self.ctx.trial_id}}})

    def should_preempt(self):
        doc = self._call("GET", "/api/v1/allocations/%s/signals/preemption"
                         "?timeout_seconds=0" % self.ctx.allocation_id)
        return bool(doc.get("preempt", False))

    def ack_preemption(self):
        self._call("POST", "/api/v1/allocations/%s/signals/ack_preemption"
                   % self.ctx.allocation_id)


def load_checkpoint(ctx):
    path = os.path.join(ctx.checkpoint_dir, ctx.latest_checkpoint, STATE_FILE)
    with open(path) as f:
        return Model.from_json(json.load(f))


def save_checkpoint(ctx, model, client):
    """Writes <checkpoint_dir>/<uuid>/state.json atomically; reports it."""
    ckpt_uuid = str(uuid.uuid4())
    final = os.path.join(ctx.checkpoint_dir, ckpt_uuid)
    tmp = final + ".tmp"
    os.makedirs(tmp, exist_ok=True)
    with open(os.path.join(tmp, STATE_FILE), "w") as f:
        json.dump(model.to_json(), f)
    os.rename(tmp, final)
    size = os.path.getsize(os.path.join(final, STATE_FILE))
    client.report_checkpoint(ckpt_uuid, model.step, {STATE_FILE: size})
    client.report_metrics("validation", model.step,
                          {"validation_loss": model.validation_loss()})
    print("checkpoint %s at step %d" % (ckpt_uuid, model.step), flush=True)
    return ckpt_uuid


def train(ctx, client):
    """Trains to ctx.target_length batches; returns the exit code."""
    hp = ctx.hparams
    learning_rate = float(hp.get("learning_rate", 0.1))
    batch_size = int(hp.get("batch_size", 16))
    checkpoint_every = max(1, int(hp.get("checkpoint_every", 10)))
    metrics_every = max(1, int(hp.get("metrics_every", 5)))
    batch_delay = float(hp.get("batch_delay", 0.02))
    fail_at_step = hp.get("fail_at_step")

    resumed = bool(ctx.latest_checkpoint)
    model = load_checkpoint(ctx) if resumed else Model()
    print("trial %d: learning_rate=%g, %s at step %d, target %d" % (
        ctx.trial_id, learning_rate, "resuming" if resumed else "starting",
        model.step, ctx.target_length), flush=True)
    if not ctx.chief:
        return train_worker(ctx, client, model, batch_size, learning_rate,
                            batch_delay)

    losses = []
    last_checkpoint_step = model.step if resumed else -1
    while model.step < ctx.target_length:
        if client.should_preempt():
            print("preempted at step %d" % model.step, flush=True)
            client.ack_preemption()
            if last_checkpoint_step != model.step:
                save_checkpoint(ctx, model, client)
            return 0
        losses.append(model.train_batch(batch_size, learning_rate))
        if batch_delay > 0:
            time.sleep(batch_delay)  # stands in for accelerator time
        # A fresh (not resumed) run fails here, so a restart from a later
        # checkpoint gets past it; one from scratch fails again.
        if (fail_at_step is not None and not resumed
                and model.step == int(fail_at_step)):
            print("failing at step %d as asked" % model.step, flush=True)
            return 1
        if model.step % metrics_every == 0:
            client.report_metrics("training", model.step,
                                  {"loss": sum(losses) / len(losses)})
            losses = []
        if model.step % checkpoint_every == 0:
            save_checkpoint(ctx, model, client)
            last_checkpoint_step = model.step
    if last_checkpoint_step != model.step:
        save_checkpoint(ctx, model, client)
    print("done at step %d: weights %s bias %.4f" % (
        model.step, ["%.4f" % w for w in model.weights], model.bias),
        flush=True)
    return 0


def train_worker(ctx, client, model, batch_size, learning_rate, batch_delay):
    """A container other than the chief: trains the same steps (standing in
    for its shard of a data-parallel step), reports nothing, and stops when
    the trial is preempted (the chief checkpoints)."""
    print("container %d of %d: following the chief" % (ctx.rank, ctx.num_pods),
          flush=True)
    while model.step < ctx.target_length:
        if client.should_preempt():
            print("container %d: preempted at step %d" % (ctx.rank, model.step),
                  flush=True)
            return 0
        model.train_batch(batch_size, learning_rate)
        if batch_delay > 0:
            time.sleep(batch_delay)
    print("container %d: done at step %d" % (ctx.rank, model.step), flush=True)
    return 0


def main():
    ctx = TrialContext(os.environ)
    return train(ctx, MasterClient(ctx))


if __name__ == "__main__":
    sys.exit(main())
