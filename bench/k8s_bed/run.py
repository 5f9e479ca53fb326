#!/usr/bin/env python3
"""bench/k8s_bed: the Kubernetes test bed's costs (docs/k8s-test-bed.md),
one JSON line per figure: bring-up and tear-down time of `bed.sh up/down`
(programs already built), and the time from creating a pod to its Running
phase on a kwok node and on a process-kubelet node (median of 10 each).

    bench/k8s_bed/run.py [BUILD_DIR]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from harness import k8s_bed  # noqa: E402

PODS = "/api/v1/namespaces/default/pods"


def emit(name, value, unit):
    print(json.dumps({"bench": "k8s_bed", "name": name, "value": round(value, 3), "unit": unit}), flush=True)


def time_to_running(bed, name, node_selector):
    t0 = time.monotonic()
    bed.kube.post(PODS, {"metadata": {"name": name}, "spec": {
        "nodeSelector": node_selector, "restartPolicy": "Never", "terminationGracePeriodSeconds": 0,
        "containers": [{"name": "c", "image": "x", "command": ["sleep", "30"]}]}})
    k8s_bed.wait_until("pod %s Running" % name,
                       lambda: bed.kube.get("%s/%s" % (PODS, name))["status"].get("phase") == "Running",
                       timeout=60, interval=0.02)
    took = time.monotonic() - t0
    bed.kube.delete("%s/%s" % (PODS, name), {"gracePeriodSeconds": 0})
    return took


def main():
    subprocess.run([os.path.join(k8s_bed.BED_DIR, "build.sh")], check=True, stdout=subprocess.DEVNULL)
    d = tempfile.mkdtemp(prefix="det-k8s-bench-")
    t0 = time.monotonic()
    bed, stop = k8s_bed.start_bed(d=d)
    emit("bed_up_seconds", time.monotonic() - t0, "s")
    try:
        for label, sel in (("kwok", {"det-bed": "kwok"}), ("process_kubelet", {"det-bed": "process"})):
            runs = [time_to_running(bed, "bench-%s-%d" % (label.replace("_", "-"), i), sel) for i in range(10)]
            emit("pod_create_to_running_%s_median_seconds" % label, statistics.median(runs), "s")
    finally:
        t0 = time.monotonic()
        stop()
        emit("bed_down_seconds", time.monotonic() - t0, "s")


if __name__ == "__main__":
    main()
