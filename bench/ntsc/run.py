#!/usr/bin/env python3
"""bench/ntsc: how long the real `det` CLI waits from `det notebook start`
to JupyterLab reachable through the master's proxy (the CLI polls the task
until it is ready, then prints its URL), and from `det cmd run true` to its
exit line, on one local agent that is already up. Each is run RUNS times;
one JSON line per result (median, with the fastest and slowest).

    bench/ntsc/run.py BUILD_DIR   (DET_BENCH_PG_URL: a server URL)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests"))
os.environ.setdefault("DET_BUILD_DIR", sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(ROOT, "build"))
from harness import cluster as harness  # noqa: E402  (the suites' cluster harness)
from harness.wait import wait_until  # noqa: E402

RUNS = 3


def det(c, home, *args, timeout=300):
    env = dict(os.environ, DET_MASTER=c.url, DET_USER="admin", DET_PASS="",
               HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"))
    start = time.monotonic()
    p = subprocess.run(["det"] + list(args), env=env, capture_output=True,
                       text=True, timeout=timeout)
    return time.monotonic() - start, p.returncode, p.stdout + p.stderr


def report(metric, times, **extra):
    times = sorted(times)
    print(json.dumps(dict(bench="ntsc", metric=metric, value=times[len(times) // 2],
                          min=times[0], max=times[-1], runs=len(times), unit="s",
                          stat="median", **extra)))


def main():
    server = os.environ.get("DET_BENCH_PG_URL")
    if not server:
        print("bench/ntsc: set DET_BENCH_PG_URL (make bench does)", file=sys.stderr)
        return 2
    if shutil.which("det") is None:
        print("bench/ntsc: the det CLI is not installed", file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="det-bench-ntsc-")
    home = os.path.join(tmp, "home")
    os.makedirs(home)
    c = harness.Cluster(server, tmp, "bench_ntsc", idle="10m", min_instances=1,
                        max_instances=1)
    try:
        wait_until("the agent", lambda: c.get("/api/v1/agents")["agents"],
                           timeout=120)
        notebook, command = [], []
        for _ in range(RUNS):
            took, rc, out = det(c, home, "notebook", "start", "--no-browser")
            if rc != 0 or "is running at" not in out:
                print("bench/ntsc: notebook start failed:\n" + out, file=sys.stderr)
                return 1
            notebook.append(took)
            for nb in c.get("/api/v1/notebooks")["notebooks"]:
                det(c, home, "notebook", "kill", nb["id"])
            took, rc, out = det(c, home, "cmd", "run", "true")
            if rc != 0 or "resources exited successfully" not in out:
                print("bench/ntsc: cmd run failed:\n" + out, file=sys.stderr)
                return 1
            command.append(took)
        report("notebook_start_to_ready", notebook)
        report("cmd_run_to_exit", command)
        return 0
    finally:
        c.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
