"""Fixtures for the Kubernetes suites: one test bed per session
(harness.k8s_bed.start_bed, tests/harness/) whose process kubelet maps the chart's images to this
build's det-master and to Debian's PostgreSQL (tests/k8s/bed/images/)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from harness.k8s_bed import BED_DIR, start_bed  # noqa: E402
from harness.paths import BIN, BUILD, ROOT  # noqa: E402,F401


def kubelet_maps():
    return ["--image", "det-master=" + os.path.join(BIN, "det-master"),
            "--bin", "det-master=" + os.path.join(BIN, "det-master"),
            "--image", "postgres=" + os.path.join(BED_DIR, "images", "postgres-entrypoint.sh")]


@pytest.fixture(scope="session")
def bed():
    b, stop = start_bed(kubelet_args=kubelet_maps())
    yield b
    stop()


@pytest.fixture(scope="session")
def helm_bin():
    """helm from the bed's build (built once, cached: tests/k8s/bed/build.sh)."""
    import subprocess
    out = subprocess.run([os.path.join(BED_DIR, "build.sh")], capture_output=True, text=True,
                         timeout=3600, check=True).stdout.strip()
    return os.path.join(out, "helm")
