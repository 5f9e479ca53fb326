#!/usr/bin/env python3
"""Fails when a source folder includes a folder it may not depend on.

The floors of the design, bottom first; a folder may include only the
folders listed for it (and itself). `cmd/`, `tests/`, `bench/` and `fuzz/` sit on
top and may include anything. A new folder must be added here, so its
place in the picture is a decision, not an accident.

Usage: scripts/check-layers.py [ROOT]   (exit 1 and one line per offence)
"""
import os
import re
import sys

ALLOWED = {
    "util": set(),
    "messages": {"util"},
    "metrics": set(),
    "state": {"messages", "util"},
    "policy": {"messages", "util"},
    "store": {"state", "messages", "util"},
    "conf": {"messages", "util"},
    "net": {"messages", "util"},
    "http": {"messages", "util"},
    "aws": {"net", "messages", "util"},
    "k8s": {"net", "conf", "messages", "util"},
    "core": {"state", "policy", "messages", "util"},
    "read": {"state", "policy", "messages", "util", "metrics"},
    "actors": {"core", "store", "state", "policy", "messages", "util",
               "metrics"},
    "provision": {"core", "aws", "net", "conf", "state", "policy",
                  "messages", "util", "metrics"},
    "inspect": {"state", "store", "policy", "messages", "util", "metrics"},
    "api": {"http", "read", "actors", "core", "store", "state", "policy",
            "conf", "inspect", "metrics", "messages", "util", "net",
            # det-sim's comparison, for the "what would it cost" route.
            "sim"},
    "agent": {"net", "aws", "conf", "policy", "messages", "util"},
    "deployer": {"aws", "net", "conf", "messages", "util"},
    "telemetry": {"aws", "net", "conf", "policy", "state", "read", "inspect",
                  "metrics", "messages", "util"},
    # The master's resource managers, side by side behind one interface
    # (rm/resource_manager.hpp), above the API whose agents and start
    # frames they share.
    "rm": {"api", "actors", "provision", "k8s", "aws", "net", "conf", "core",
           "store", "state", "policy", "read", "metrics", "messages", "util"},
    # det-sim: the master's pure decisions (policy/) driven in virtual
    # time, its fleet read from master.yaml (conf/), a cluster's jobs read
    # from its event log (store/); no actors.
    "sim": {"policy", "conf", "store", "state", "messages", "util"},
}
TOP = {"cmd", "tests", "bench", "fuzz"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    bad = []
    # Build trees (build/, build-asan/) and dot folders are not sources.
    folders = {d for d in os.listdir(root)
               if os.path.isdir(os.path.join(root, d))
               and not d.startswith((".", "build"))}
    for folder in sorted(folders):
        path = os.path.join(root, folder)
        has_code = any(f.endswith((".cpp", ".hpp"))
                       for _, _, fs in os.walk(path) for f in fs)
        if not has_code or folder in TOP:
            continue
        if folder not in ALLOWED:
            bad.append(f"{folder}/: a source folder with no place in "
                       "scripts/check-layers.py")
            continue
        for dirpath, _, files in os.walk(path):
            for name in files:
                if not name.endswith((".cpp", ".hpp")):
                    continue
                file = os.path.join(dirpath, name)
                with open(file, encoding="utf-8", errors="replace") as f:
                    for n, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        dep = m.group(1)
                        if dep == folder or dep not in folders:
                            continue
                        if dep not in ALLOWED[folder]:
                            rel = os.path.relpath(file, root)
                            bad.append(f"{rel}:{n}: {folder}/ may not "
                                       f"include {dep}/ ({line.strip()})")
    for b in bad:
        print(b)
    if bad:
        print(f"check-layers: {len(bad)} include(s) against the floors")
        return 1
    print("check-layers: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
