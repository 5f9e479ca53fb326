"""Fixtures for end-to-end tests: a private PostgreSQL, and det-master with
a local pool whose provider starts real det-agent processes, all on
127.0.0.1. Every wait is bounded. The harness is tests/harness/ (shared
with the chaos, provisioner, WebUI and Kubernetes suites); its names are
imported here so test modules keep `from conftest import ...`."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from harness.cluster import (Cluster, alive, cluster_factory, experiment_yaml,  # noqa: E402,F401
                             group_alive, moto_s3)
from harness.paths import BIN, BUILD, EXAMPLE, ROOT  # noqa: E402,F401
from harness.pg import pg_server  # noqa: E402,F401
from harness.wait import free_port, wait_for  # noqa: E402,F401


def cli_cluster(pg_server, tmp_path_factory, name, **kw):
    """A module's cluster for the real `det` CLI: one agent always up (the
    interactive tasks' suites), and a HOME of its own (`c.home`) so the
    CLI's token cache is the module's."""
    tmp = str(tmp_path_factory.mktemp(name))
    kw.setdefault("idle", "10m")
    kw.setdefault("max_instances", 1)
    kw.setdefault("min_instances", 1)
    cl = Cluster(pg_server, tmp, "e2e_" + name, **kw)
    cl.home = os.path.join(tmp, "home")
    os.makedirs(cl.home)
    return cl


def cli_cluster_fixture(name, **kw):
    """The module-scoped fixture of a cli_cluster named `name`:
    `c = cli_cluster_fixture("cmds")` in a test module."""
    @pytest.fixture(scope="module")
    def c(pg_server, tmp_path_factory):
        cl = cli_cluster(pg_server, tmp_path_factory, name, **kw)
        yield cl
        cl.stop()
    return c
