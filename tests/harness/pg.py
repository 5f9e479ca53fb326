"""A private PostgreSQL for a session (scripts/pg.sh: initdb into a
temporary folder, a free loopback port), and a fresh database per cluster."""
import os
import select
import shutil
import subprocess
import tempfile
import time

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


class Psql:
    """One psql process for many small queries. A psql started per query
    costs a process and a connection each time, which made most of the
    hostile-input test's run (two queries after each of its thousands of
    requests). query() answers as `psql -At` prints: a row a line, fields
    joined by "|"; an error's text comes back in place of rows. Each answer
    is awaited for at most `timeout` seconds; a psql that ended (its server
    restarted) is started again once."""

    MARK = "__det_psql_done__"

    def __init__(self, url):
        self.url = url
        self._p = None
        self._buf = b""

    def _start(self):
        self._p = subprocess.Popen(
            ["psql", self.url, "-qAtX"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self._buf = b""

    def query(self, sql, timeout=60):
        for attempt in (1, 2):
            if self._p is None or self._p.poll() is not None:
                self._start()
            try:
                return self._ask(sql, timeout)
            except (BrokenPipeError, EOFError):
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _ask(self, sql, timeout):
        text = sql.strip().rstrip(";") + ";\n\\echo " + self.MARK + "\n"
        self._p.stdin.write(text.encode())
        self._p.stdin.flush()
        end = ("\n" + self.MARK + "\n").encode()
        deadline = time.monotonic() + timeout
        while True:
            seen = b"\n" + self._buf
            at = seen.find(end)
            if at >= 0:
                self._buf = seen[at + len(end):]
                return seen[1:at].decode(errors="replace")
            left = deadline - time.monotonic()
            if left <= 0:
                self.close()
                raise TimeoutError("psql gave no answer in %ss to: %s" % (timeout, sql))
            ready, _, _ = select.select([self._p.stdout], [], [], left)
            if ready:
                chunk = os.read(self._p.stdout.fileno(), 65536)
                if not chunk:
                    raise EOFError("psql ended")
                self._buf += chunk

    def close(self):
        if self._p is not None:
            if self._p.poll() is None:
                self._p.kill()
            self._p.wait()
            for f in (self._p.stdin, self._p.stdout):
                try:
                    f.close()
                except OSError:
                    pass
            self._p = None


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
