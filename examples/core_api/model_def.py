"""A Core API trial for determined 0.38.1, unmodified: it uses only
`determined.core` and runs on any Determined cluster (ours or upstream).

The "model" is one weight w fitted to a target by gradient descent on
(w - target)^2, so a run needs nothing but the standard library and the
harness. What it shows:
  * hyperparameters from the cluster (learning_rate, max_batches, ...);
  * training metrics every `report_every` batches, validation metrics
    (validation_loss, and `batches` for adaptive_asha's time_metric) and
    progress every `validate_every` batches;
  * checkpoints through core.checkpoint.store_path every
    `checkpoint_every` batches and at the end;
  * preemption: core.preempt.should_preempt() between batches; when asked
    it checkpoints and returns (exit 0), and the next run resumes from
    info.latest_checkpoint.
"""
import json
import logging
import pathlib
import sys
import time

import determined as det
from determined import core

TARGET = 3.0
STATE_FILE = "state.json"


def loss_of(w):
    return (w - TARGET) ** 2


def save(core_context, w, steps):
    metadata = {"steps_completed": steps}
    with core_context.checkpoint.store_path(metadata) as (path, storage_id):
        with open(pathlib.Path(path) / STATE_FILE, "w") as f:
            json.dump({"w": w, "steps_completed": steps}, f)
    print("checkpoint %s at step %d" % (storage_id, steps), flush=True)
    return steps


def load(core_context, uuid):
    with core_context.checkpoint.restore_path(uuid) as path:
        with open(pathlib.Path(path) / STATE_FILE) as f:
            state = json.load(f)
    return float(state["w"]), int(state["steps_completed"])


def main(core_context, hparams, latest_checkpoint):
    lr = float(hparams.get("learning_rate", 0.1))
    max_batches = int(hparams.get("max_batches", 20))
    report_every = int(hparams.get("report_every", 2))
    validate_every = int(hparams.get("validate_every", 4))
    checkpoint_every = int(hparams.get("checkpoint_every", 4))
    batch_delay = float(hparams.get("batch_delay", 0.05))

    w, steps = 0.0, 0
    if latest_checkpoint is not None:
        w, steps = load(core_context, latest_checkpoint)
        print("resumed from checkpoint %s at step %d" % (latest_checkpoint, steps),
              flush=True)
    else:
        print("starting fresh, learning_rate=%g" % lr, flush=True)
    last_saved = steps

    while steps < max_batches:
        w -= lr * 2.0 * (w - TARGET)
        steps += 1
        time.sleep(batch_delay)  # stands in for accelerator time
        if steps % report_every == 0:
            core_context.train.report_training_metrics(
                steps_completed=steps, metrics={"loss": loss_of(w)})
        if steps % validate_every == 0:
            core_context.train.report_validation_metrics(
                steps_completed=steps,
                metrics={"validation_loss": loss_of(w) + 0.01, "batches": steps})
            core_context.train.report_progress(steps / max_batches)
        if steps % checkpoint_every == 0:
            last_saved = save(core_context, w, steps)
        if core_context.preempt.should_preempt():
            print("preempted at step %d" % steps, flush=True)
            if last_saved != steps:
                save(core_context, w, steps)
            return
    if last_saved != steps:
        save(core_context, w, steps)
    print("done at step %d: w=%.4f" % (steps, w), flush=True)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format=det.LOG_FORMAT)
    info = det.get_cluster_info()
    assert info is not None, "run this as a Determined trial"
    # MANUAL: this image has neither torch nor tensorflow for AUTO mode.
    with core.init(tensorboard_mode=core.TensorboardMode.MANUAL) as core_context:
        main(core_context, info.trial.hparams, info.latest_checkpoint)
    sys.exit(0)
