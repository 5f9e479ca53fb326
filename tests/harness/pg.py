"""A private PostgreSQL for a session (scripts/pg.sh: initdb into a
temporary folder, a free loopback port), and a fresh database per cluster."""
import os
import shutil
import subprocess
import tempfile

import pytest

from harness.paths import BIN, SCRIPTS

PG_SH = os.path.join(SCRIPTS, "pg.sh")


def start_pg(prefix="det-pg-"):
    """Starts a server in a new temporary folder; returns (url, stop)."""
    d = tempfile.mkdtemp(prefix=prefix)
    url = subprocess.check_output([PG_SH, "start", d], text=True).strip()

    def stop():
        subprocess.call([PG_SH, "stop", d])
        shutil.rmtree(d, ignore_errors=True)
    return url, stop


def fresh_database(pg_url, name):
    """Drops and creates database `name` on pg_url's server; its URL."""
    subprocess.check_call(["psql", pg_url, "-qc", "DROP DATABASE IF EXISTS %s WITH (FORCE)" % name])
    subprocess.check_call(["psql", pg_url, "-qc", "CREATE DATABASE %s" % name])
    return pg_url.rsplit("/", 1)[0] + "/" + name


@pytest.fixture(scope="session")
def pg_server():
    """The session's server (skips when det-master is not built). With
    DET_E2E_KEEP set it is left running for inspection."""
    if not os.path.exists(os.path.join(BIN, "det-master")):
        pytest.skip("det-master is not built (set DET_BUILD_DIR)")
    url, stop = start_pg("det-e2e-pg-")
    yield url
    if os.environ.get("DET_E2E_KEEP"):
        print("kept PostgreSQL for inspection:", url)
        return
    stop()
