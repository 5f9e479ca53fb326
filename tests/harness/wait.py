"""Ports and bounded waits. Every wait in the suites has a deadline."""
import socket
import time

import pytest


def free_port():
    """A loopback TCP port nobody listens on at the moment."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(what, predicate, timeout=60.0, interval=0.1):
    """Polls predicate() until it returns a truthy value (returned), at most
    `timeout` seconds; raises TimeoutError naming `what` otherwise."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError("timed out after %.0f s waiting for %s" % (timeout, what))
        time.sleep(interval)


def wait_for(what, predicate, timeout=60.0, interval=0.2):
    """As wait_until, but fails the test naming `what` when time runs out."""
    try:
        return wait_until(what, predicate, timeout, interval)
    except TimeoutError as e:
        pytest.fail(str(e))
