#!/usr/bin/env python3
"""Runs a command as one named stage of a test run and records how long it
took: wall seconds, and CPU seconds (user + system) of the command and every
process it waited for.

    scripts/timed.py NAME COMMAND [ARG...]    run and record; exit as COMMAND
    scripts/timed.py --table [LIMIT_SECONDS]  print the recorded stages

Stages go to the file named by DET_STAGES (nothing is recorded when it is
unset), one JSON object a line, so that .ci/run can print them all at its
end: a stage that grows shows up there.
"""
import json
import os
import resource
import subprocess
import sys
import time


def record(name, start, wall, cpu, code):
    path = os.environ.get("DET_STAGES")
    if not path:
        return
    with open(path, "a") as f:
        f.write(json.dumps({"stage": name, "start": round(start, 1),
                            "wall": round(wall, 1), "cpu": round(cpu, 1),
                            "exit": code}) + "\n")


def run(name, argv):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    try:
        code = subprocess.call(argv)
    except KeyboardInterrupt:
        code = 130
    wall = time.time() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    record(name, t0, wall, cpu, code)
    return code


def table(limit):
    path = os.environ.get("DET_STAGES")
    if not path or not os.path.exists(path):
        print("stages: none recorded")
        return 0
    rows = [json.loads(line) for line in open(path) if line.strip()]
    if not rows:
        print("stages: none recorded")
        return 0
    first = min(r["start"] for r in rows)
    last = max(r["start"] + r["wall"] for r in rows)
    width = max(len(r["stage"]) for r in rows)
    print("%-*s  %7s  %7s  %7s  %s" % (width, "stage", "from s", "wall s", "CPU s", "exit"))
    for r in sorted(rows, key=lambda r: r["start"]):
        print("%-*s  %7.0f  %7.0f  %7.0f  %d" % (width, r["stage"], r["start"] - first,
                                                r["wall"], r["cpu"], r["exit"]))
    total = last - first
    print("%-*s  %7s  %7.0f  %7s" % (width, "total (first start to last end)", "", total, ""))
    if limit:
        print("%.0f of %.0f s: %.0f%% of CI's limit, %.0f s to spare"
              % (total, limit, 100.0 * total / limit, limit - total))
    return 0


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--table":
        return table(float(sys.argv[2]) if len(sys.argv) > 2 else 0)
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    return run(sys.argv[1], sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
