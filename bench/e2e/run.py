#!/usr/bin/env python3
"""bench/e2e: time from submitting an experiment of 100 one-slot trials with
tiny workloads to all completed, on 4 local agents, and the master's CPU time
and peak memory over that run. One JSON line per result.

    bench/e2e/run.py BUILD_DIR   (DET_BENCH_PG_URL: a server URL)
"""
import json
import os
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests"))
os.environ.setdefault("DET_BUILD_DIR", sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(ROOT, "build"))
from harness import cluster as conftest  # noqa: E402  (the suites' cluster harness)

TRIALS = 100


def proc_stats(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().split(")")[-1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / ticks  # utime + stime
    peak_kb = 0
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                peak_kb = int(line.split()[1])
    return cpu, peak_kb


def main():
    server = os.environ.get("DET_BENCH_PG_URL")
    if not server:
        print("bench/e2e: set DET_BENCH_PG_URL (make bench does)", file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="det-bench-e2e-")
    c = conftest.Cluster(server, tmp, "bench_e2e", idle="60s", max_instances=4)
    try:
        cpu0, _ = proc_stats(c.proc.pid)
        config = conftest.experiment_yaml(max_length=5, trials=TRIALS,
                                          batch_delay=0, checkpoint_every=5)
        config += "  max_concurrent_trials: %d\n" % TRIALS
        start = time.monotonic()
        status, body = c.submit(config)
        if status != 200:
            print("bench/e2e: submit failed: %s" % body, file=sys.stderr)
            return 1
        exp_id = int(body["experiment"]["id"])
        deadline = start + 900
        while True:
            e = c.experiment(exp_id)
            if e["state"] in ("STATE_COMPLETED", "STATE_ERROR", "STATE_CANCELED"):
                break
            if time.monotonic() > deadline:
                print("bench/e2e: not done after 900 s", file=sys.stderr)
                return 1
            time.sleep(0.2)
        elapsed = time.monotonic() - start
        cpu1, peak_kb = proc_stats(c.proc.pid)
        done = sum(1 for t in c.trials(exp_id) if t["state"] == "STATE_COMPLETED")
        common = {"bench": "e2e", "trials": TRIALS, "completed": done,
                  "agents": 4, "experiment_state": e["state"]}
        print(json.dumps(dict(common, metric="submit_to_all_completed",
                              value=elapsed, unit="s")))
        print(json.dumps(dict(common, metric="master_cpu_time",
                              value=cpu1 - cpu0, unit="s")))
        print(json.dumps(dict(common, metric="master_peak_rss",
                              value=peak_kb / 1024.0, unit="MiB")))
        return 0
    finally:
        c.stop()


if __name__ == "__main__":
    sys.exit(main())
