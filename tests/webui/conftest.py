"""The WebUI's tests run against the same real cluster as tests/e2e: its
fixtures (pg_server, cluster_factory) and helpers are loaded from
tests/e2e/conftest.py, not copied. Test modules import the helpers from
the module `e2e_conftest`."""
import importlib.util
import os
import sys

_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e", "conftest.py")
_spec = importlib.util.spec_from_file_location("e2e_conftest", _path)
e2e_conftest = importlib.util.module_from_spec(_spec)
sys.modules["e2e_conftest"] = e2e_conftest
_spec.loader.exec_module(e2e_conftest)

pg_server = e2e_conftest.pg_server
cluster_factory = e2e_conftest.cluster_factory
