#!/usr/bin/env python3
"""The chart's master.yaml on a det-master that does not yet know
`resource_manager: {type: kubernetes}` (that resource manager is its own
change): agent_master_yaml() asks det-master --check-config whether it
accepts the text, and only when it refuses resource_manager.type swaps the
resource manager for the agent one, so the rest of the chart's
configuration is still what the master loads. Once det-master accepts the
kubernetes resource manager the text passes through unchanged.

Run as a program it is a helm post-renderer (`--post-renderer
master_yaml.py --post-renderer-args <det-master>`): manifests on stdin, the
same with the master config Secret adjusted on stdout."""
import os
import subprocess
import sys
import tempfile

import yaml

DET_MASTER = os.environ.get("DET_MASTER_BIN", "")


def refuses_kubernetes_rm(text, exe):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
        f.write(text)
        f.flush()
        p = subprocess.run([exe, "--check-config", "--config", f.name], capture_output=True,
                           text=True, timeout=30)
    return p.returncode != 0 and "resource_manager.type" in (p.stdout + p.stderr)


def agent_master_yaml(text, exe=None):
    exe = exe or DET_MASTER or os.path.join(os.environ.get("DET_BUILD_DIR", "build"), "bin", "det-master")
    if not refuses_kubernetes_rm(text, exe):
        return text
    m = yaml.safe_load(text)
    m["resource_manager"] = {"type": "agent"}
    return yaml.safe_dump(m)


def main():
    exe = sys.argv[1]
    docs = list(yaml.safe_load_all(sys.stdin))
    for d in docs:
        if d and d.get("kind") == "Secret" and d["metadata"]["name"].startswith("determined-master-config-"):
            d["stringData"]["master.yaml"] = agent_master_yaml(d["stringData"]["master.yaml"], exe)
    yaml.safe_dump_all([d for d in docs if d], sys.stdout)


if __name__ == "__main__":
    main()
