"""Fixtures of the chaos suite. The cluster harness is the suites' shared
one (tests/harness/): a private PostgreSQL, det-master with the local
provider, det-agent processes. This file adds the seed and the kill count, and prints both the
seed (in the header, before anything runs) and the run's figures (one JSON
line in the summary), whether the run passes or not.

  CHAOS_SEED   the run's seed (default: a random one, printed)
  CHAOS_KILLS  how many times the master is SIGKILLed (default 50)
"""
import json
import os
import random
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))

# The harness's fixtures, visible to this folder's tests.
from harness.cluster import cluster_factory  # noqa: E402,F401
from harness.paths import BIN  # noqa: E402,F401
from harness.pg import pg_server  # noqa: E402,F401

SEED = int(os.environ.get("CHAOS_SEED") or random.SystemRandom().randrange(1, 2 ** 31))
KILLS = int(os.environ.get("CHAOS_KILLS") or 50)

# Filled by the test: the figures line printed at the end of the session.
FIGURES = {}


def pytest_report_header(config):
    return "chaos: CHAOS_SEED=%d CHAOS_KILLS=%d" % (SEED, KILLS)


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line("chaos: CHAOS_SEED=%d CHAOS_KILLS=%d (again: "
                                "make chaos CHAOS_SEED=%d CHAOS_KILLS=%d)"
                                % (SEED, KILLS, SEED, KILLS))
    if FIGURES:
        terminalreporter.write_line(json.dumps(FIGURES, sort_keys=True))


@pytest.fixture
def chaos_seed():
    return SEED


@pytest.fixture
def chaos_kills():
    return KILLS
