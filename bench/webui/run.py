#!/usr/bin/env python3
"""bench/webui: the WebUI in Debian's Chromium (playwright-core), against a
master whose log holds 10,000 experiments and one trial with a 100,000-point
training curve (written by api-bench-seed before the master starts). Two
figures, one JSON line each, in milliseconds from navigation:

- experiments_list_10000: to the experiments list's first page rendered
  with the total of 10,000 from the master (goal: under 1,000 ms);
- experiment_curve_100000: to an experiment page with the 100,000-point
  learning curve drawn by uPlot (goal: under 1,500 ms);
- compare_10x10000: to the compare view of 10 trials with 10,000 training
  reports each drawn, 10 curves on one chart (a second master, seeded with
  10 trials of 10,000 reports; goal: under 1,500 ms, as the one curve of
  as many points).

Each is the median of 5 navigations in one signed-in browser (its cache
warm, as for a person who keeps the UI open); the first navigation is
reported too ("first": for the curve it includes the master's first read
of the trial's 100,000 reports from the log; later ones read only newer
events). The browser shares the machine's 2 cores with the master.

  python3 bench/webui/run.py BUILD_DIR

PostgreSQL: DET_BENCH_PG_URL (scripts/bench.sh sets it), else a private one
started with scripts/pg.sh."""
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXPERIMENTS = 10000
POINTS = 100000
COMPARE_TRIALS = 10
COMPARE_POINTS = 10000


def emit(**kw):
    print(json.dumps({"bench": "webui", **kw}), flush=True)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def psql(url, sql):
    return subprocess.check_output(["psql", url, "-tAqc", sql], text=True).strip()


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
    bin_dir = os.path.join(build, "bin")
    chromium = os.environ.get("DET_CHROMIUM", "/usr/bin/chromium")
    for need in (os.path.join(bin_dir, "api-bench-seed"), os.path.join(build, "webui", "index.html"),
                 chromium, os.path.join(ROOT, "webui", "node_modules", "playwright-core")):
        if not os.path.exists(need):
            emit(error="missing " + need)
            return 1
    tmp = tempfile.mkdtemp(prefix="det-bench-webui-")
    os.chmod(tmp, 0o755)
    server = os.environ.get("DET_BENCH_PG_URL")
    own_pg = None
    if not server:
        own_pg = os.path.join(tmp, "pg")
        server = subprocess.check_output([os.path.join(ROOT, "scripts", "pg.sh"), "start", own_pg],
                                         text=True).strip()
    try:
        r = measure(bin_dir, server, tmp, "bench_webui",
                    ["--agents", "1", "--experiments", str(EXPERIMENTS), "--trials", "1",
                     "--curve", str(POINTS)],
                    {"DET_WEBUI_EXPERIMENTS": str(EXPERIMENTS), "DET_WEBUI_POINTS": str(POINTS),
                     "DET_WEBUI_EXP": "1"})
        if r is None:
            return 1
        for metric, samples, goal in (("experiments_list_10000", r["list"], 1000),
                                      ("experiment_curve_100000", r["curve"], 1500)):
            report(metric, samples, goal)
        c = measure(bin_dir, server, tmp, "bench_webui_compare",
                    ["--agents", "3", "--experiments", "1", "--trials", str(COMPARE_TRIALS),
                     "--curve", str(COMPARE_POINTS), "--curve-trials", str(COMPARE_TRIALS)],
                    {"DET_WEBUI_MODE": "compare", "DET_WEBUI_POINTS": str(COMPARE_POINTS),
                     "DET_WEBUI_COMPARE_TRIALS": str(COMPARE_TRIALS), "DET_WEBUI_EXPERIMENTS": "1",
                     "DET_WEBUI_EXP": "1"})
        if c is None:
            return 1
        report("compare_10x10000", c["compare"], 1500)
        return 0
    finally:
        if own_pg:
            subprocess.call([os.path.join(ROOT, "scripts", "pg.sh"), "stop", own_pg])
        shutil.rmtree(tmp, ignore_errors=True)


def report(metric, samples, goal):
    median = statistics.median(samples)
    emit(metric=metric, value=median, unit="ms", goal=goal, ratio=round(median / goal, 3),
         reference="goal", first=samples[0], samples=samples)


def measure(bin_dir, server, tmp, dbname, seed_args, env_extra):
    """Seeds database `dbname` with api-bench-seed, starts det-master on
    it, runs measure.mjs with `env_extra`; its JSON result, or None after
    emitting why not."""
    master = None
    try:
        psql(server, "DROP DATABASE IF EXISTS %s WITH (FORCE)" % dbname)
        psql(server, "CREATE DATABASE %s" % dbname)
        db = server.rsplit("/", 1)[0] + "/" + dbname
        t = time.monotonic()
        subprocess.check_output(
            [os.path.join(bin_dir, "api-bench-seed"), "--db", db, "--secret", "webui-bench"] + seed_args,
            text=True)
        emit(metric="seed_seconds", db=dbname, value=round(time.monotonic() - t, 2), unit="s")
        port = free_port()
        cfg = os.path.join(tmp, dbname + ".yaml")
        with open(cfg, "w") as f:
            f.write("port: %d\nagent_reconnect_wait: 1h\n"
                    "checkpoint_storage:\n  type: shared_fs\n  host_path: %s\n"
                    "  storage_path: ckpt\nresource_pools:\n  - pool_name: default\n"
                    % (port, tmp))
        log = open(os.path.join(tmp, dbname + ".log"), "w")
        master = subprocess.Popen(
            [os.path.join(bin_dir, "det-master"), "--config", cfg, "--db", db,
             "--listen", "127.0.0.1"], stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen("http://127.0.0.1:%d/info" % port, timeout=5).read()
                break
            except OSError:
                if master.poll() is not None or time.monotonic() > deadline:
                    emit(error="det-master did not start; see " + log.name)
                    return None
                time.sleep(0.2)
        env = dict(os.environ, DET_WEBUI_URL="http://127.0.0.1:%d" % port, **env_extra)
        p = subprocess.run(["node", os.path.join(ROOT, "bench", "webui", "measure.mjs")],
                           env=env, capture_output=True, text=True, timeout=900)
        if p.returncode != 0:
            emit(error="measure.mjs failed: " + (p.stderr or p.stdout)[-2000:])
            return None
        return json.loads(p.stdout.strip().splitlines()[-1])
    finally:
        if master and master.poll() is None:
            master.terminate()
            try:
                master.wait(timeout=30)
            except subprocess.TimeoutExpired:
                master.kill()


if __name__ == "__main__":
    sys.exit(main())
