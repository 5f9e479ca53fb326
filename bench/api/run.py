#!/usr/bin/env python3
"""bench/api: requests/s and p99 latency of the master's REST API on
loopback, one JSON line per result:

- GET /api/v1/agents with 1,000 agents,
- GET /api/v1/experiments with 10,000 experiments,
- a learning curve of 100,000 training reports (GET /api/v1/trials/
  time-series, sampled to 1,000 points), first read and later ones, and
  the whole history as the SDK streams it,
- POST /api/v1/trials/{id}/metrics from 500 concurrent trials, each report
  durably appended (the count of trial_metrics_reported events in the log
  is checked against the 200 answers afterwards): alone, while the lists
  above are read as fast as they answer, and while they are read at a
  fixed rate; alone also from wrk (post_trial_metrics_wrk, against wrk's
  GET /info over as many connections), whose latencies leave out the
  Python client's own queueing,
- the same reports at a fixed mean rate per trial (1 and 4 a second, from
  wrk with bench/api/paced_metrics.lua), alone and beside the paced reads:
  the latency a reporting trial sees (p50/p90/p99/p99.9).

Read figures carry "ratio": requests/s against GET /info in the same run.
The lists are read both as plain JSON and gzip-coded (Accept-Encoding:
gzip, as the det CLI and browsers send).

The cluster is written into an empty event log by api-bench-seed before
det-master starts (a static pool, agent_reconnect_wait 1h so the seeded
agents and running trials stay). The load client is asyncio with keep-alive
connections; it shares the 2 cores with the master, so figures are a floor.

  python3 bench/api/run.py BUILD_DIR [--seconds S] [--ingest-only]

--ingest-only measures GET /info and the closed-loop metric reports alone
(for comparing two builds of the master in one sitting).

PostgreSQL: DET_BENCH_PG_URL (scripts/bench.sh sets it), else a private one
started with scripts/pg.sh."""
import asyncio
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# Training reports of trial 1: the learning curve read back.
CURVE = 100000


def emit(**kw):
    print(json.dumps({"bench": "api", **kw}), flush=True)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


async def request(reader, writer, method, path, body=b"", headers=()):
    head = "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n" % (method, path)
    for k, v in headers:
        head += "%s: %s\r\n" % (k, v)
    head += "Content-Length: %d\r\n\r\n" % len(body)
    writer.write(head.encode() + body)
    status_line = await reader.readline()
    status = int(status_line.split()[1])
    length = 0
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        k, _, v = line.decode().partition(":")
        if k.lower() == "content-length":
            length = int(v)
    data = await reader.readexactly(length) if length else b""
    return status, data


async def load(port, conns, seconds, make_request, max_requests, rate=None):
    """`conns` connections, each sending make_request(i) back to back (or,
    given `rate`, each at most `rate` requests a second) until `seconds`
    pass or `max_requests` were sent in all; returns latencies (s) and
    status counts."""
    lat, statuses = [], {}
    deadline = time.monotonic() + seconds
    sent = [0]

    async def worker(i):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        next_at = time.monotonic()
        try:
            while time.monotonic() < deadline and sent[0] < max_requests:
                if rate:
                    next_at += 1.0 / rate
                    await asyncio.sleep(max(0.0, next_at - time.monotonic()))
                sent[0] += 1
                method, path, body, headers = make_request(i)
                t = time.perf_counter()
                status, _ = await request(reader, writer, method, path, body, headers)
                lat.append(time.perf_counter() - t)
                statuses[status] = statuses.get(status, 0) + 1
        finally:
            writer.close()

    start = time.monotonic()
    await asyncio.gather(*(worker(i) for i in range(conns)))
    return lat, statuses, time.monotonic() - start


def cpu_seconds(pid):
    """User + system CPU time of process `pid` so far (/proc/PID/stat)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def p99(lat):
    s = sorted(lat)
    return s[min(len(s) - 1, int(len(s) * 0.99))] if s else 0.0


def wrk(port, path, headers, seconds, conns=4):
    """requests/s and p99 (ms) of GET `path` from wrk (C, two threads):
    the Python client cannot read large bodies as fast as the master sends
    them, so the read figures and their /info reference come from wrk when
    it is installed (scripts/install-deps.sh installs it)."""
    args = ["wrk", "-t2", "-c%d" % conns, "-d%ds" % max(1, int(seconds)), "--latency"]
    for k, v in headers:
        args += ["-H", "%s: %s" % (k, v)]
    out = subprocess.run(args + ["http://127.0.0.1:%d%s" % (port, path)],
                         capture_output=True, text=True, timeout=seconds + 60).stdout
    rps = float(out.split("Requests/sec:")[1].split()[0])
    p99 = 0.0
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "99%":
            v = parts[1]
            unit = next(u for u in ("us", "ms", "s") if v.endswith(u))
            p99 = float(v[: -len(unit)]) * scale[unit]
    non2xx = 0
    if "Non-2xx" in out:
        non2xx = int(out.split("Non-2xx or 3xx responses:")[1].split()[0])
    return rps, p99, non2xx


def paced_metrics(port, trials_file, trials, per_trial, seconds):
    """wrk with bench/api/paced_metrics.lua: `trials` trials (one keep-alive
    connection each) posting training metrics, each `per_trial` times a
    second on average (None: back to back, a closed loop); returns the
    script's counts and latencies (µs)."""
    gap_ms = max(1, int(1000 / per_trial)) if per_trial else 0
    script = os.path.join(ROOT, "bench", "api", "paced_metrics.lua")
    out = subprocess.run(
        ["wrk", "-t2", "-c%d" % trials, "-d%ds" % max(1, int(seconds)), "--timeout", "10s",
         "--script", script, "http://127.0.0.1:%d" % port, "--", trials_file, str(gap_ms), "2"],
        capture_output=True, text=True, timeout=seconds + 60).stdout
    line = next((l for l in out.splitlines() if l.startswith("paced_metrics ")), None)
    if line is None:
        raise SystemExit("wrk gave no paced_metrics line:\n" + out)
    return json.loads(line.split(" ", 1)[1])


def report(name, lat, statuses, elapsed, reference=None, **extra):
    """reference: requests/s of GET /info (no state, tiny body) over the
    same connections, measured in the same run."""
    ok = statuses.get(200, 0)
    rps = ok / elapsed
    if reference:
        extra_rps = dict(reference=round(reference, 1), ratio=round(rps / reference, 4))
    else:
        extra_rps = {}
    emit(metric=name + "_rps", value=round(rps, 1), unit="req/s",
         statuses={str(k): v for k, v in statuses.items()}, **extra_rps, **extra)
    emit(metric=name + "_p99", value=round(p99(lat) * 1000, 2), unit="ms", **extra)


def psql(url, sql):
    return subprocess.check_output(["psql", url, "-tAqc", sql], text=True).strip()


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
    seconds = float(sys.argv[sys.argv.index("--seconds") + 1]) if "--seconds" in sys.argv else 5.0
    ingest_only = "--ingest-only" in sys.argv
    bin_dir = os.path.join(build, "bin")
    tmp = tempfile.mkdtemp(prefix="det-bench-api-")
    os.chmod(tmp, 0o755)  # pg.sh runs PostgreSQL as its own user when root
    server = os.environ.get("DET_BENCH_PG_URL")
    own_pg = None
    if not server:
        own_pg = os.path.join(tmp, "pg")
        server = subprocess.check_output([os.path.join(ROOT, "scripts", "pg.sh"), "start", own_pg],
                                         text=True).strip()
    master = None
    try:
        psql(server, "DROP DATABASE IF EXISTS bench_api WITH (FORCE)")
        psql(server, "CREATE DATABASE bench_api")
        db = server.rsplit("/", 1)[0] + "/bench_api"
        secret = secrets.token_hex(16)
        t = time.monotonic()
        seeded = json.loads(subprocess.check_output(
            [os.path.join(bin_dir, "api-bench-seed"), "--db", db, "--secret", secret,
             "--agents", "1000", "--experiments", "10000", "--trials", "500",
             "--curve", str(CURVE)], text=True))
        emit(metric="seed_seconds", value=round(time.monotonic() - t, 2), unit="s",
             events=seeded["events"])
        port = free_port()
        cfg = os.path.join(tmp, "master.yaml")
        with open(cfg, "w") as f:
            f.write("port: %d\nagent_reconnect_wait: 1h\n"
                    "checkpoint_storage:\n  type: shared_fs\n  host_path: %s\n"
                    "  storage_path: ckpt\nresource_pools:\n  - pool_name: default\n"
                    % (port, tmp))
        log = open(os.path.join(tmp, "master.log"), "w")
        t = time.monotonic()
        master = subprocess.Popen(
            [os.path.join(bin_dir, "det-master"), "--config", cfg, "--db", db,
             "--listen", "127.0.0.1"], stdout=log, stderr=subprocess.STDOUT,
            env={**os.environ, "DET_SESSION_SECRET": secret})
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen("http://127.0.0.1:%d/info" % port, timeout=5).read()
                break
            except OSError:
                if master.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("det-master did not start; see " + log.name)
                time.sleep(0.2)
        # Which malloc the master runs on (jemalloc in a release build,
        # cmd/det_master/CMakeLists.txt): the ingest figures depend on it.
        with open("/proc/%d/maps" % master.pid) as maps:
            allocator = "jemalloc" if "libjemalloc" in maps.read() else "glibc"
        emit(metric="master_start_seconds", value=round(time.monotonic() - t, 2), unit="s",
             events=seeded["events"], allocator=allocator)

        # Every route but /info needs a session: log in as admin (blank
        # password on a new cluster), as the det CLI does.
        sys.path.insert(0, os.path.join(ROOT, "scripts"))
        import submit  # scripts/submit.py: login()
        base = "http://127.0.0.1:%d" % port
        admin = (("Authorization", "Bearer " + submit.login(base, "admin", "")),)

        def get(path):
            return lambda i: ("GET", path, b"", admin)

        def fetch(path):
            req = urllib.request.Request(base + path, headers=dict(admin))
            return urllib.request.urlopen(req, timeout=60).read()

        lat, st, el = asyncio.run(load(port, 4, seconds, get("/info"), 100000))
        report("get_info", lat, st, el, connections=4)
        ref = st.get(200, 0) / el

        # The same reads from wrk: GET /info as the reference, then each
        # list, in this run.
        if shutil.which("wrk") and not ingest_only:
            wrk_ref, p, _ = wrk(port, "/info", admin, seconds)
            emit(metric="wrk_get_info_rps", value=round(wrk_ref, 1), unit="req/s",
                 p99_ms=round(p, 2), client="wrk", connections=4)
            # Each list twice: as plain JSON, and gzip-coded as the det CLI
            # (python-requests sends "Accept-Encoding: gzip, deflate") and
            # browsers ask for it.
            gz = (("Accept-Encoding", "gzip, deflate"),)
            for name, path in (("wrk_get_experiments_page", "/api/v1/experiments?limit=100&offset=5000"),
                               ("wrk_get_agents", "/api/v1/agents"),
                               ("wrk_get_experiments", "/api/v1/experiments")):
                for suffix, headers in (("", admin), ("_gzip", admin + gz)):
                    req = urllib.request.Request(base + path, headers=dict(headers))
                    size = len(urllib.request.urlopen(req, timeout=60).read())
                    rps, p, bad = wrk(port, path, headers, seconds)
                    emit(metric=name + suffix + "_rps", value=round(rps, 1), unit="req/s",
                         reference=round(wrk_ref, 1), ratio=round(rps / wrk_ref, 4),
                         p99_ms=round(p, 2), non_2xx=bad, client="wrk", connections=4,
                         response_bytes=size)

        if not ingest_only:
            # GET /api/v1/agents (may not exist in this build: then the
            # det-inspect view of the same 1,000 agents is measured instead).
            status = asyncio.run(load(port, 1, 1, get("/api/v1/agents"), 1))[1]
            path = "/api/v1/agents"
            if 200 not in status:
                emit(metric="get_agents_skipped", value=0, unit="",
                     note="GET /api/v1/agents answered %s; measuring %s instead"
                     % (status, "/api/v1/inspect/agents"))
                path = "/api/v1/inspect/agents"
            body = fetch(path)
            n = len(json.loads(body).get("agents", []))
            lat, st, el = asyncio.run(load(port, 4, seconds, get(path), 100000))
            report("get_agents", lat, st, el, ref, path=path, agents=n, connections=4,
                   response_bytes=len(body))

            # The whole list in one answer, and one page of it as the det CLI
            # asks (limit/offset).
            for name, path in (("get_experiments", "/api/v1/experiments"),
                               ("get_experiments_page", "/api/v1/experiments?limit=100&offset=5000")):
                body = fetch(path)
                n = len(json.loads(body)["experiments"])
                lat, st, el = asyncio.run(load(port, 4, seconds, get(path), 100000))
                report(name, lat, st, el, ref, experiments=n, connections=4,
                       response_bytes=len(body))

            # A learning curve of CURVE training reports: the first read loads
            # the trial's history from the log; later ones are served from it.
            # Sampled to 1,000 points (what a chart draws), and the whole
            # history as the SDK's iter_metrics() streams it.
            curve = "/api/v1/trials/time-series?trialIds=1&group=training&maxDatapoints=1000"
            t = time.perf_counter()
            body = fetch(curve)
            cold = time.perf_counter() - t
            points = len(json.loads(body)["trials"][0]["metrics"][0]["data"])
            warm = []
            for _ in range(20):
                t = time.perf_counter()
                fetch(curve)
                warm.append(time.perf_counter() - t)
            warm.sort()
            emit(metric="learning_curve_first_ms", value=round(cold * 1000, 1), unit="ms",
                 reports=CURVE, points=points, note="loads the history from the log")
            emit(metric="learning_curve_ms", value=round(warm[len(warm) // 2] * 1000, 1),
                 unit="ms", p99_ms=round(warm[-1] * 1000, 1), reports=CURVE, points=points,
                 response_bytes=len(body), goal_ms=200)
            t = time.perf_counter()
            body = fetch("/api/v1/trials/metrics/trial_metrics?trialIds=1&group=training")
            full = time.perf_counter() - t
            n = sum(len(json.loads(l)["result"]["metrics"]) for l in body.splitlines() if l.strip())
            emit(metric="metrics_history_all_ms", value=round(full * 1000, 1), unit="ms",
                 reports=n, response_bytes=len(body))

        allocs = seeded["allocations"]
        before = int(psql(db, "SELECT count(*) FROM events WHERE type = 'trial_metrics_reported'"))
        steps = [0] * len(allocs)

        def metrics_req(i):
            trial_id, _, token = allocs[i]
            steps[i] += 1
            body = json.dumps({"metrics": {"trialId": trial_id, "stepsCompleted": steps[i],
                                           "metrics": {"avgMetrics": {"loss": 1.0 / steps[i]}}},
                               "group": "training"}).encode()
            return ("POST", "/api/v1/trials/%d/metrics" % trial_id, body,
                    (("Authorization", "Bearer " + token),
                     ("Content-Type", "application/json")))

        cpu = cpu_seconds(master.pid)
        lat, st, el = asyncio.run(load(port, len(allocs), seconds, metrics_req, 200000))
        cpu = cpu_seconds(master.pid) - cpu
        after = int(psql(db, "SELECT count(*) FROM events WHERE type = 'trial_metrics_reported'"))
        report("post_trial_metrics", lat, st, el, ref, trials=len(allocs), connections=len(allocs),
               appended=after - before, durable_check=(after - before == st.get(200, 0)),
               master_cpu_us_per_report=round(cpu * 1e6 / max(1, st.get(200, 0)), 1),
               master_cores=round(cpu / el, 2), allocator=allocator)
        alone = st.get(200, 0) / el

        # The same closed loop driven by wrk (C): the Python client's own
        # event loop, which shares the 2 cores and queues each answer
        # behind the others it is handling, does not show in these
        # latencies. The reference is GET /info from wrk over as many
        # connections, in this run.
        trials_file = os.path.join(tmp, "trials.txt")
        with open(trials_file, "w") as f:
            for trial_id, _, token in allocs:
                f.write("%d %s\n" % (trial_id, token))
        if shutil.which("wrk"):
            info_500, info_500_p99, _ = wrk(port, "/info", admin, seconds, conns=len(allocs))
            before = int(psql(db, "SELECT count(*) FROM events WHERE type = 'trial_metrics_reported'"))
            cpu = cpu_seconds(master.pid)
            r = paced_metrics(port, trials_file, len(allocs), None, seconds)
            cpu = cpu_seconds(master.pid) - cpu
            after = int(psql(db, "SELECT count(*) FROM events WHERE type = 'trial_metrics_reported'"))
            ok = r["requests"] - r["non_2xx"]
            rps = ok / (r["duration_us"] / 1e6)
            emit(metric="post_trial_metrics_wrk_rps", value=round(rps, 1), unit="req/s",
                 reference=round(info_500, 1), ratio=round(rps / info_500, 4),
                 reference_p99_ms=round(info_500_p99, 2), client="wrk",
                 connections=len(allocs), non_2xx=r["non_2xx"],
                 socket_errors=r["socket_errors"], appended=after - before,
                 durable_check=(after - before >= ok),
                 master_cpu_us_per_report=round(cpu * 1e6 / max(1, ok), 1),
                 master_cores=round(cpu / (r["duration_us"] / 1e6), 2), allocator=allocator)
            emit(metric="post_trial_metrics_wrk_p99", value=round(r["p99_us"] / 1000, 2),
                 unit="ms", p50_ms=round(r["p50_us"] / 1000, 2),
                 p90_ms=round(r["p90_us"] / 1000, 2), p999_ms=round(r["p999_us"] / 1000, 2),
                 max_ms=round(r["max_us"] / 1000, 2), client="wrk", connections=len(allocs),
                 little_ms=round(len(allocs) / rps * 1000, 2) if rps else None,
                 note="little_ms: connections / throughput, the mean any closed loop has")
        if ingest_only:
            return

        # The same metric reports while lists are read at the same time (two
        # connections on a page of 100 experiments, one on the 1,000 agents,
        # one on all 10,000 experiments): with reads on the read model the
        # master's event throughput should not drop.
        async def both():
            return await asyncio.gather(
                load(port, len(allocs), seconds, metrics_req, 200000),
                load(port, 2, seconds,
                     get("/api/v1/experiments?limit=100&offset=5000"), 100000),
                load(port, 1, seconds, get("/api/v1/agents"), 100000),
                load(port, 1, seconds, get("/api/v1/experiments"), 100000))

        before = after
        (lat, st, el), pages, agents, whole = asyncio.run(both())
        after = int(psql(db, "SELECT count(*) FROM events WHERE type = 'trial_metrics_reported'"))
        rps = st.get(200, 0) / el
        emit(metric="post_trial_metrics_under_reads_rps", value=round(rps, 1), unit="req/s",
             reference=round(alone, 1), ratio=round(rps / alone, 4) if alone else None,
             note="reference: the same load without reads, this run",
             durable_check=(after - before == st.get(200, 0)),
             reads_rps={"experiments_page": round(pages[1].get(200, 0) / pages[2], 1),
                        "agents": round(agents[1].get(200, 0) / agents[2], 1),
                        "experiments_all": round(whole[1].get(200, 0) / whole[2], 1)})
        emit(metric="post_trial_metrics_under_reads_p99", value=round(p99(lat) * 1000, 2),
             unit="ms")

        # The same, with the reads at a fixed rate (a few dashboards and
        # CLIs polling): the closed loops above read as fast as the shared
        # 2 cores allow, so faster reads there also mean more reads.
        paced = {"experiments_page": 50, "agents": 10, "experiments_all": 2}

        async def paced_reads():
            return await asyncio.gather(
                load(port, len(allocs), seconds, metrics_req, 200000),
                load(port, 2, seconds, get("/api/v1/experiments?limit=100&offset=5000"),
                     100000, rate=paced["experiments_page"] / 2),
                load(port, 1, seconds, get("/api/v1/agents"), 100000, rate=paced["agents"]),
                load(port, 1, seconds, get("/api/v1/experiments"), 100000,
                     rate=paced["experiments_all"]))

        before = after
        (lat, st, el), pages, agents, whole = asyncio.run(paced_reads())
        after = int(psql(db, "SELECT count(*) FROM events WHERE type = 'trial_metrics_reported'"))
        rps = st.get(200, 0) / el
        emit(metric="post_trial_metrics_under_paced_reads_rps", value=round(rps, 1),
             unit="req/s", reference=round(alone, 1),
             ratio=round(rps / alone, 4) if alone else None,
             note="reference: the same load without reads, this run",
             durable_check=(after - before == st.get(200, 0)), reads_per_s=paced,
             reads_p99_ms={"experiments_page": round(p99(pages[0]) * 1000, 2),
                           "agents": round(p99(agents[0]) * 1000, 2),
                           "experiments_all": round(p99(whole[0]) * 1000, 2)})

        # Trials as they report in training: each at a fixed mean rate, not
        # back to back. A closed loop of 500 connections always has 500
        # requests queued, so its latency is connections / throughput
        # whatever the master does (Little's law); these figures are the
        # latency a trial sees. The client is wrk (C), so the load client's
        # own speed does not show in them.
        if shutil.which("wrk"):
            count = "SELECT count(*) FROM events WHERE type = 'trial_metrics_reported'"

            def paced_ingest(per_trial, name, **extra):
                before = int(psql(db, count))
                r = paced_metrics(port, trials_file, len(allocs), per_trial, seconds)
                after = int(psql(db, count))
                ok = r["requests"] - r["non_2xx"]
                rps = ok / (r["duration_us"] / 1e6)
                emit(metric=name + "_p99", value=round(r["p99_us"] / 1000, 2), unit="ms",
                     p50_ms=round(r["p50_us"] / 1000, 2), p90_ms=round(r["p90_us"] / 1000, 2),
                     p999_ms=round(r["p999_us"] / 1000, 2), max_ms=round(r["max_us"] / 1000, 2),
                     rps=round(rps, 1), offered_rps=len(allocs) * per_trial, trials=len(allocs),
                     non_2xx=r["non_2xx"], socket_errors=r["socket_errors"],
                     appended=after - before, durable_check=(after - before >= ok),
                     client="wrk", **extra)
                return rps

            for per_trial in (1, 4):
                paced_ingest(per_trial, "post_trial_metrics_paced_%d_per_s" % per_trial)

            # The slower rate again, while the lists are read at the fixed
            # rates above.
            async def reads_beside():
                loop = asyncio.get_running_loop()
                ingest = loop.run_in_executor(
                    None, lambda: paced_ingest(1, "post_trial_metrics_paced_1_per_s_under_paced_reads",
                                               reads_per_s=paced))
                reads = asyncio.gather(
                    load(port, 2, seconds, get("/api/v1/experiments?limit=100&offset=5000"),
                         100000, rate=paced["experiments_page"] / 2),
                    load(port, 1, seconds, get("/api/v1/agents"), 100000, rate=paced["agents"]),
                    load(port, 1, seconds, get("/api/v1/experiments"), 100000,
                         rate=paced["experiments_all"]))
                return await asyncio.gather(ingest, reads)

            asyncio.run(reads_beside())
    finally:
        if master and master.poll() is None:
            master.terminate()
            try:
                master.wait(timeout=30)
            except subprocess.TimeoutExpired:
                master.kill()
        if own_pg:
            subprocess.call([os.path.join(ROOT, "scripts", "pg.sh"), "stop", own_pg])
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
