"""The WebUI's tests run against the same real cluster as tests/e2e: the
fixtures (pg_server, cluster_factory) and helpers of the shared harness
(tests/harness/), imported here so test modules take them from
`conftest`."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from harness.cluster import Cluster, cluster_factory, experiment_yaml  # noqa: E402,F401
from harness.paths import EXAMPLE, ROOT  # noqa: E402,F401
from harness.pg import pg_server  # noqa: E402,F401
from harness.wait import wait_for  # noqa: E402,F401
