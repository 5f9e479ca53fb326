#!/usr/bin/env python3
"""bench/provisioner: the aws provisioner against moto (server mode, on
loopback) behind a counting proxy, with det-master's production timings
(1 s tick, 10 s listing cache). One JSON line per result.

1. launch latency: time from a trial becoming unschedulable (its experiment
   accepted, no capacity anywhere) to the RunInstances request reaching
   the proxy, over SUBMISSIONS submissions one after another (p50, p99;
   also counted from the submission's answer and from the trial's
   trial_created event, the moment it exists and cannot be placed),
   first with decisions on the tick only (DET_PROVISIONER_WAKE=0, the
   reference), then as det-master runs (woken by the master on a change of
   the pool's demand or capacity);
2. EC2 API calls per minute in steady state with 100 instances (nothing
   pending, nothing idle to terminate), against AWS's default RunInstances /
   Describe* budgets.

    bench/provisioner/run.py BUILD_DIR   (DET_BENCH_PG_URL: a server URL)
"""
import json
import os
import random
import sys
import tempfile
import time
import uuid

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "provisioner"))
os.environ.setdefault("DET_BUILD_DIR", sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(ROOT, "build"))
import prov_harness as conftest  # noqa: E402  (the provisioner tests harness)
from fault_proxy import FaultProxy  # noqa: E402

# 100: the p99 is then the 99th of 100, not the largest of a few.
SUBMISSIONS = int(os.environ.get("DET_BENCH_PROV_SUBMISSIONS", "100"))
STEADY = 100
WINDOW_S = float(os.environ.get("DET_BENCH_PROV_WINDOW_S", "60"))


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def emit(metric, value, unit, **extra):
    print(json.dumps(dict(bench="provisioner", metric=metric, value=round(value, 4),
                          unit=unit, **extra)), flush=True)


def trial_created_at(c):
    """Wall-clock seconds at which each trial was created (the master's
    clock in its trial_created event), in submission order."""
    import subprocess
    out = subprocess.check_output(
        ["psql", c.db, "-qAtc",
         "SELECT payload->>'at_us' FROM events WHERE type = 'trial_created' "
         "ORDER BY (payload->>'experiment_id')::bigint, position"], text=True)
    return [int(x) / 1e6 for x in out.split()]


def launch_latencies(c, proxy):
    """Per submission: seconds from the submit call, from its answer and
    from its trial's creation (the trial is unschedulable from then on) to
    the RunInstances request reaching the proxy."""
    lat, lat_resp, sent_wall = [], [], []
    wall_minus_mono = time.time() - time.monotonic()
    rnd = random.Random(7)
    for i in range(SUBMISSIONS):
        # A random gap, so that submissions do not phase-lock with the
        # provisioner's tick (each would then wait a whole tick).
        time.sleep(rnd.uniform(0, 1.0))
        before = len(proxy.actions("RunInstances"))
        t0 = time.monotonic()
        status, body = c.submit(conftest.experiment_yaml(max_length=5, trials=1))
        if status != 200:
            raise SystemExit("submit failed: %s" % body)
        t1 = time.monotonic()  # the trial exists (and waits) by now
        deadline = t0 + 30
        while len(proxy.actions("RunInstances")) <= before:
            if time.monotonic() > deadline:
                raise SystemExit("no RunInstances within 30 s")
            time.sleep(0.002)
        sent = proxy.actions("RunInstances")[before][0]
        lat.append(sent - t0)
        lat_resp.append(max(0.0, sent - t1))
        sent_wall.append(sent + wall_minus_mono)
    created = trial_created_at(c)
    if len(created) != len(sent_wall):
        raise SystemExit("%d trials for %d submissions" % (len(created), len(sent_wall)))
    lat_trial = [max(0.0, s - t) for s, t in zip(sent_wall, created)]
    return lat, lat_resp, lat_trial


def start_moto():
    import subprocess
    port = conftest.free_port()
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1",
                             "-p", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    url = "http://127.0.0.1:%d" % port
    import urllib.request

    def up():
        try:
            urllib.request.urlopen(url + "/moto-api/", timeout=2).read()
            return True
        except OSError:
            return False
    deadline = time.monotonic() + 60
    while not up():
        if time.monotonic() > deadline:
            raise SystemExit("moto did not start")
        time.sleep(0.2)
    return proc, url


def main():
    server = os.environ.get("DET_BENCH_PG_URL")
    if not server:
        print("bench/provisioner: set DET_BENCH_PG_URL (make bench does)", file=sys.stderr)
        return 2
    import boto3
    moto, moto_url = start_moto()
    proxy = FaultProxy(moto_url)
    ec2 = boto3.client("ec2", endpoint_url=moto_url, region_name="us-east-1",
                       aws_access_key_id="testing", aws_secret_access_key="testing")
    vpc = ec2.create_vpc(CidrBlock="10.8.0.0/16")["Vpc"]["VpcId"]
    subnet = ec2.create_subnet(VpcId=vpc, CidrBlock="10.8.1.0/24")["Subnet"]["SubnetId"]
    sg = ec2.create_security_group(GroupName="bench", Description="bench", VpcId=vpc)["GroupId"]
    prod = {"DET_PROVISIONER_LIST_INTERVAL_MS": "10000", "DET_PROVISIONER_TICK_MS": "1000",
            "DET_PROVISIONER_ORPHAN_GRACE_MS": "120000"}
    clusters = []
    reference = {}
    try:
        # 1. Launch latency: decided on the tick only (the reference: how it
        # was before the master woke provisioners), then as det-master runs.
        for mode, wake in (("tick_only", "0"), ("", "1")):
            c = conftest.AwsCluster(server, tempfile.mkdtemp(prefix="det-bench-prov-"),
                                    "bench_prov_latency", ec2, proxy.url, subnet, sg,
                                    "det-bench-" + uuid.uuid4().hex[:8],
                                    max_instances=SUBMISSIONS + 1, idle="1h",
                                    env=dict(prod, DET_PROVISIONER_WAKE=wake),
                                    starting="1h")
            clusters.append(c)
            lat, lat_resp, lat_trial = launch_latencies(c, proxy)
            c.stop()
            # Its instances go (moto slows down as it holds more).
            ids = [i["InstanceId"] for i in conftest.tagged(ec2, c.tag_value)]
            for k in range(0, len(ids), 500):
                ec2.terminate_instances(InstanceIds=ids[k:k + 500])
            if mode:
                reference[mode] = (pct(lat, 50), pct(lat, 99))
                reference[mode + "_trial"] = (pct(lat_trial, 50), pct(lat_trial, 99))
                emit("unschedulable_to_run_instances_p50_" + mode, pct(lat, 50) * 1000, "ms",
                     n=len(lat), tick_ms=1000)
                emit("unschedulable_to_run_instances_p99_" + mode, pct(lat, 99) * 1000, "ms",
                     n=len(lat), tick_ms=1000)
                emit("trial_created_to_run_instances_p50_" + mode, pct(lat_trial, 50) * 1000,
                     "ms", n=len(lat_trial), tick_ms=1000)
                emit("trial_created_to_run_instances_p99_" + mode, pct(lat_trial, 99) * 1000,
                     "ms", n=len(lat_trial), tick_ms=1000)
                continue
            ref50, ref99 = reference["tick_only"]
            emit("unschedulable_to_run_instances_p50", pct(lat, 50) * 1000, "ms",
                 n=len(lat), tick_ms=1000, reference="tick only (same run)",
                 ratio=round(pct(lat, 50) / ref50, 4))
            emit("unschedulable_to_run_instances_p99", pct(lat, 99) * 1000, "ms",
                 n=len(lat), tick_ms=1000, reference="tick only (same run)",
                 ratio=round(pct(lat, 99) / ref99, 4),
                 slo="cluster-autoscaler 30000 ms (<100 nodes)")
            # From the trial's creation (the master's clock in its
            # trial_created event): the trial is unschedulable from then on;
            # excludes the submission itself (upload, experiment, searcher).
            t50, t99 = reference["tick_only_trial"]
            emit("trial_created_to_run_instances_p50", pct(lat_trial, 50) * 1000, "ms",
                 n=len(lat_trial), reference="tick only (same run)",
                 ratio=round(pct(lat_trial, 50) / t50, 4))
            emit("trial_created_to_run_instances_p99", pct(lat_trial, 99) * 1000, "ms",
                 n=len(lat_trial), reference="tick only (same run)",
                 ratio=round(pct(lat_trial, 99) / t99, 4))
            # The same, counted from the submission's answer (excludes the
            # upload of the model definition).
            emit("submitted_to_run_instances_p50", pct(lat_resp, 50) * 1000, "ms",
                 n=len(lat_resp))
            emit("submitted_to_run_instances_p99", pct(lat_resp, 99) * 1000, "ms",
                 n=len(lat_resp))
        # 2. Steady state with 100 instances.
        c = conftest.AwsCluster(server, tempfile.mkdtemp(prefix="det-bench-prov-"),
                                "bench_prov_steady", ec2, proxy.url, subnet, sg,
                                "det-bench-" + uuid.uuid4().hex[:8],
                                min_instances=STEADY, max_instances=STEADY, env=prod,
                                starting="1h")
        clusters.append(c)
        runs_before = len(proxy.actions("RunInstances"))
        deadline = time.monotonic() + 120
        while len(c.pool()["instances"]) < STEADY:
            if time.monotonic() > deadline:
                raise SystemExit("100 instances not reached")
            time.sleep(0.2)
        launches = len(proxy.actions("RunInstances")) - runs_before
        time.sleep(2)  # let the launch's own listing settle
        n0 = len(proxy.actions())
        t0 = time.monotonic()
        time.sleep(WINDOW_S)
        calls = proxy.actions()[n0:]
        per_min = len(calls) * 60.0 / (time.monotonic() - t0)
        kinds = {}
        for _, a, _, _ in calls:
            kinds[a] = kinds.get(a, 0) + 1
        emit("steady_state_ec2_calls_per_minute", per_min, "calls/min",
             instances=STEADY, by_action=kinds, run_instances_for_100=launches,
             reference="AWS non-mutating bucket refill 1200/min",
             ratio=round(per_min / 1200.0, 5))
    finally:
        for c in clusters:
            c.stop()
        proxy.stop()
        moto.terminate()
        moto.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
