"""Fixtures for end-to-end tests: a private PostgreSQL, and det-master with
a local pool whose provider starts real det-agent processes, all on
127.0.0.1. Every wait is bounded. The harness is tests/harness/ (shared
with the chaos, provisioner, WebUI and Kubernetes suites); its names are
imported here so test modules keep `from conftest import ...`."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from harness.cluster import (Cluster, alive, cluster_factory, experiment_yaml,  # noqa: E402,F401
                             group_alive, moto_s3)
from harness.paths import BIN, BUILD, EXAMPLE, ROOT  # noqa: E402,F401
from harness.pg import pg_server  # noqa: E402,F401
from harness.wait import free_port, wait_for  # noqa: E402,F401
