#!/usr/bin/env python3
"""bench/e2e: time from submitting an experiment of 100 one-slot trials with
tiny workloads to all completed, on 4 local agents, and the master's CPU time
and peak memory over that run. Per trial, from the event log: start order
(trial_placed) to first metric received (the first trial_metrics_reported),
split at trial_running (the agent started the process) -- the agent's start
path and spawn before it, the process's start-up and first report's round
trip after it. Twice: with the agents' warm launcher (the default) and
with --cold-launch (each trial's launch layer in an interpreter of its
own), the reference. One JSON line per result, each naming its "launch".

    bench/e2e/run.py BUILD_DIR   (DET_BENCH_PG_URL: a server URL)
"""
import json
import os
import subprocess
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


def start_to_first_metric(db_url):
    """Per trial, in ms: (placed -> running, running -> first metric,
    placed -> first metric), from the at_us of the first of each event."""
    sql = """
      SELECT (payload->>'trial_id')::bigint, type,
             min((payload->>'at_us')::bigint)
      FROM events
      WHERE type IN ('trial_placed', 'trial_running', 'trial_metrics_reported')
      GROUP BY 1, 2"""
    out = subprocess.check_output(["psql", db_url, "-At", "-F", ",", "-c", sql],
                                  text=True)
    first = {}
    for line in out.splitlines():
        trial, kind, at = line.split(",")
        first.setdefault(int(trial), {})[kind] = int(at)
    rows = []
    for t in first.values():
        if all(k in t for k in ("trial_placed", "trial_running",
                                "trial_metrics_reported")):
            rows.append(((t["trial_running"] - t["trial_placed"]) / 1000.0,
                         (t["trial_metrics_reported"] - t["trial_running"]) / 1000.0,
                         (t["trial_metrics_reported"] - t["trial_placed"]) / 1000.0))
    return rows


def pct(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, max(0, int(round(q * len(v) + 0.5)) - 1))] if v else 0


def main():
    server = os.environ.get("DET_BENCH_PG_URL")
    if not server:
        print("bench/e2e: set DET_BENCH_PG_URL (make bench does)", file=sys.stderr)
        return 2
    # The agents' warm launcher (the product's default) and, as the
    # reference in the same run, every trial's launch layer started cold.
    status = 0
    for launch in ("warm", "cold"):
        status = status or run_once(server, launch)
    if "warm" in ELAPSED and "cold" in ELAPSED:
        print(json.dumps({"bench": "e2e", "trials": TRIALS, "agents": 4,
                          "metric": "submit_to_all_completed_warm_vs_cold",
                          "value": round(ELAPSED["warm"] / ELAPSED["cold"], 3),
                          "unit": "ratio"}))
    return status


ELAPSED = {}


def run_once(server, launch):
    tmp = tempfile.mkdtemp(prefix="det-bench-e2e-")
    args = ["--cold-launch"] if launch == "cold" else []
    c = conftest.Cluster(server, tmp, "bench_e2e_" + launch, idle="60s",
                         max_instances=4, agent_args=args)
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
        ELAPSED[launch] = elapsed
        cpu1, peak_kb = proc_stats(c.proc.pid)
        done = sum(1 for t in c.trials(exp_id) if t["state"] == "STATE_COMPLETED")
        common = {"bench": "e2e", "trials": TRIALS, "completed": done,
                  "agents": 4, "experiment_state": e["state"], "launch": launch}
        print(json.dumps(dict(common, metric="submit_to_all_completed",
                              value=elapsed, unit="s")))
        print(json.dumps(dict(common, metric="master_cpu_time",
                              value=cpu1 - cpu0, unit="s")))
        print(json.dumps(dict(common, metric="master_peak_rss",
                              value=peak_kb / 1024.0, unit="MiB")))
        rows = start_to_first_metric(c.db)
        for i, name in enumerate(("placed_to_running", "running_to_first_metric",
                                  "start_order_to_first_metric")):
            col = [r[i] for r in rows]
            print(json.dumps(dict(common, metric="per_trial_" + name,
                                  value=pct(col, 0.5), p90=pct(col, 0.9),
                                  max=max(col) if col else 0, unit="ms",
                                  stat="p50", trials_measured=len(col))))
        return 0
    finally:
        c.stop()


if __name__ == "__main__":
    sys.exit(main())
